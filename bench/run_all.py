"""Run every benchmark under bench/ and write docs/benchmarks.md with the machine, the date and each report.

    .venv/bin/python bench/run_all.py [--quick]

Each benchmark is a script that prints its own markdown (figures beside their goal or reference); this runner only
collects them, so a figure in the report is always one measured in this run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks.md"

# (title, script, full arguments, quick arguments, the flag that runs it, or None: always)
BENCHES = [
    ("Rules engine: common-draw settlement", "engine_settle.py", [], ["--players", "20000", "--rounds", "3"], None),
    ("RTP simulation (numba)", "rtp_simulation.py", [], ["--hands", "2000000"], None),
    ("RTP: exact analysis of the first hand", "rtp_exact.py", [], ["--profiles", "free_bet"], None),
    ("Wallet: bet holds and batch resolution", "wallet_bench.py", [], ["--quick"], None),
    # The settlement's rounds are played through the services up to the dealer once (the 10,000-player one takes
    # 10 to 15 minutes on a 2-CPU host) and kept as a database template; later runs settle a copy of it, so the
    # settlement and its references are always of this run (bench/settle_bench.py --template).
    ("Settlement of a 10,000-player common-draw round by a real worker", "settle_bench.py",
     ["--template", "bench_settle_10000"], ["--quick"], None),
    ("Settlement growth: 1,000 players", "settle_bench.py", ["--players", "1000", "--template", "bench_settle_1000"],
     ["--players", "200"], None),
    # 100,000 players would take hours to play up to the dealer through the services on this kind of host: the
    # simulator plays 1,000 and bench/settle_template.py copies their spots up to 100,000 (about 25 minutes
    # here, most of it the 99,000 deposits; the template is kept like the others).
    ("Settlement growth: 100,000 players", "settle_bench.py",
     ["--players", "100000", "--scale-from", "1000", "--threads", "6", "--template", "bench_settle_100000"],
     ["--players", "2000", "--scale-from", "200"], "--settle-100k"),
    # One run: the windows at 10, 50 and 200 clients share the round, the server and the pgbench reference.
    ("Bet placement through the HTTP API (scripts/web.sh, 10, 50 and 200 clients)", "http_bench.py", [], ["--quick"],
     None),
    # Loading 10,000,000 ledger entries takes about 5 minutes: past the quarter of an hour `make bench` aims at.
    ("Back office on large data", "backoffice_bench.py", ["--no-write"], ["--quick"], "--backoffice"),
]


def machine() -> str:
    model = cpu_model()
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores ({model}){memory}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def kept_sections(titles: set[str]) -> str:
    """The sections of the current report that no benchmark here writes (a before-and-after written by hand,
    for one), kept as they are at the end."""
    if not REPORT.exists():
        return ""
    kept = []
    for part in re.split(r"^(?=## )", REPORT.read_text(), flags=re.M)[1:]:
        if part.splitlines()[0][3:].strip() not in titles:
            kept.append(part.rstrip("\n") + "\n")
    return "".join("\n" + part for part in kept)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, for a smoke test")
    parser.add_argument("--backoffice", action="store_true", help="also the back office on 10,000,000 entries")
    parser.add_argument("--settle-100k", action="store_true", help="also settle a 100,000-player round (about 30 minutes the first time)")
    args = parser.parse_args()
    sections = []
    failed = 0
    for title, script, full, quick, flag in BENCHES:
        path = ROOT / "bench" / script
        if not path.exists() or (flag and not getattr(args, flag[2:].replace("-", "_"))):
            continue  # a section not run this time keeps its last figures in the report (kept_sections)
        print(f"== {title}", flush=True)
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(path), *(quick if args.quick else full)],
            cwd=ROOT, capture_output=True, text=True,
        )
        elapsed = time.perf_counter() - started
        print(proc.stdout, flush=True)
        if proc.returncode != 0:
            failed += 1
            print(proc.stderr, file=sys.stderr)
            body = f"**failed** (exit {proc.returncode}):\n\n```\n{proc.stderr.strip()[-2000:]}\n```"
        else:
            body = proc.stdout.strip()
        sections.append(f"## {title}\n\n`bench/{script}`, {elapsed:.0f} s.\n\n{body}\n")
    header = (
        "# Benchmarks\n\n"
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {machine()}"
        f"{' (quick run)' if args.quick else ''}, by `make bench`.\n"
        "Figures come from this one run (sections after the ones it wrote are kept from earlier runs); on a shared "
        "machine they vary with its load.\n"
    )
    written = {section.splitlines()[0][3:].strip() for section in sections}
    REPORT.write_text(header + "\n" + "\n".join(sections) + kept_sections(written))
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

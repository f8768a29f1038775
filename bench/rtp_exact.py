"""Benchmark of the exact main-game analysis: seconds for one configuration on one core, and its figures.

Usage: .venv/bin/python bench/rtp_exact.py [--profiles free_bet classic_eu ...]

Prints one markdown table (ready for docs/benchmarks.md): per profile the exact first-hand RTP under the
optimal total-dependent and composition-dependent strategies, the published figure and the distance to it,
the infinite-deck figure, and the wall time of one analysis (numba kernel compiled or loaded first; the
analysis is single-threaded: numpy with one BLAS thread).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rounds.engine.rtp import main_game_rtp, rtp_rules_for  # noqa: E402
from rounds.engine.rtp.exact import _solve  # noqa: E402
from rounds.engine.rtp.strategy import strategy_tables  # noqa: E402

PUBLISHED = {"free_bet": 0.9845, "free_bet_seated": 0.9826, "classic_eu": 0.9949}
PROFILES = ("free_bet", "free_bet_seated", "classic_eu", "classic_us_peek_before", "classic_us_peek_after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=list(PROFILES))
    args = parser.parse_args()
    started = time.perf_counter()
    warm = rtp_rules_for("classic_eu")
    _solve(warm, strategy_tables(warm))
    print(f"first analysis, numba kernel included: {time.perf_counter() - started:.2f} s\n")
    print("| profile | exact TD | exact CD | published | TD - published | infinite deck | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in args.profiles:
        rules = rtp_rules_for(name)
        tables = strategy_tables(rules)
        started = time.process_time()
        result = _solve(rules, tables)
        seconds = time.process_time() - started
        published = PUBLISHED.get(name)
        td, cd = result.total_dependent.rtp, result.composition_dependent.rtp
        gap = f"{(td - published) * 100:+.4f} pp" if published else ""
        shown = f"{published * 100:.2f} %" if published else ""
        print(
            f"| {name} | {td * 100:.4f} % | {cd * 100:.4f} % | {shown} | {gap} | "
            f"{main_game_rtp(rules) * 100:.4f} % | {seconds:.2f} |"
        )


if __name__ == "__main__":
    main()

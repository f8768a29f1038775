"""Helpers shared by the settlement, HTTP and soak benchmarks: PostgreSQL scratch databases, pgbench, a real
Celery worker process (casino.worker_process), Redis queues, and process memory. No Django import here: the
scripts set their environment (database, broker, queue) first and only then set Django up."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import time
from glob import glob
from pathlib import Path
from urllib.parse import urlparse

from casino.worker_process import CeleryWorker, WorkerFailed

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "var" / "bench"


def bench_env(*, database_url: str, secret_key: str = "bench-only-not-a-secret", http_clients: bool = False,
              **more: str) -> dict[str, str]:
    """The environment a benchmark runs in, and gives the processes it starts: production settings (DEBUG off)
    on the benchmark's own database, quiet logs, fast password hashes, then `more`. http_clients: plain HTTP on
    the loopback and every client from one address, so no HTTPS redirect and the rate limits out of the way
    (the limiter still counts each bet, so its cost is measured)."""
    env = dict(DATABASE_URL=database_url, DEBUG="0", SECRET_KEY=secret_key, DJANGO_SETTINGS_MODULE="casino.settings",
               LOG_LEVEL="WARNING", FAST_PASSWORD_HASHER="1")
    if http_clients:
        env.update(SECURE_SSL_REDIRECT="0", RATE_LIMIT_BETS_PER_USER="100000000/60",
                   RATE_LIMIT_BETS_PER_ADDRESS="100000000/60")
    return env | more


def pg_params(url: str) -> dict:
    parsed = urlparse(url)
    return {"host": parsed.hostname or "127.0.0.1", "port": str(parsed.port or 5432),
            "user": parsed.username or "postgres", "db": parsed.path.lstrip("/")}


def pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if not found:
        raise SystemExit(f"{name} not found (it comes with PostgreSQL)")
    return found


def psql(pg: dict, sql: str, db: str = "postgres") -> str:
    return subprocess.run(
        [pg_bin("psql"), "-h", pg["host"], "-p", pg["port"], "-U", pg["user"], "-d", db, "-Atqc", sql],
        check=True, capture_output=True, text=True,
    ).stdout.strip()


def database_recreate(pg: dict, name: str, *, template: str | None = None) -> None:
    psql(pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(pg, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


def database_drop(pg: dict, name: str) -> None:
    psql(pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_version(pg: dict) -> str:
    return "PostgreSQL " + psql(pg, "SHOW server_version").split(" ")[0]


def pgbench_tps(pg: dict, *, clients: int, seconds: int) -> tuple[float, int]:
    """TPC-B (pgbench's default script) with one branch per client, so the reference is not a single hot row."""
    scratch = f"{pg['db']}_pgbench"
    database_recreate(pg, scratch)
    scale = clients
    base = [pg_bin("pgbench"), "-h", pg["host"], "-p", pg["port"], "-U", pg["user"]]
    try:
        subprocess.run([*base, "-i", "-q", "-s", str(scale), scratch], check=True, capture_output=True, text=True)
        for _attempt in range(3):
            run = subprocess.run([*base, "-c", str(clients), "-j", "2", "-T", str(seconds), scratch],
                                 capture_output=True, text=True)
            if run.returncode == 0:
                break
            # On a shared server its 50 connections may not all be had at once (max_connections): wait, retry.
            progress(f"pgbench failed ({run.stderr.strip().splitlines()[-1:]}); retrying in 10 s ...")
            time.sleep(10)
        else:
            raise SystemExit(f"pgbench failed three times:\n{run.stderr.strip()[-2000:]}")
        out = run.stdout
    finally:
        database_drop(pg, scratch)
    match = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    if not match:
        raise SystemExit(f"could not read pgbench's tps from:\n{out}")
    return float(match.group(1)), scale


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    return f"{os.cpu_count()} CPU ({cpu_model()}), Python {platform.python_version()}"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def progress(message: str) -> None:
    # stdout carries only the report (bench/run_all.py collects it); progress goes to stderr.
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- Celery workers ------------------------------------------------------------------------------------------------

class Worker(CeleryWorker):
    """The benchmarks' worker (casino.worker_process): its log under var/bench/, no heartbeats, a process group
    of its own; a worker that does not start ends the benchmark with its message."""

    def __init__(self, *, name: str, queue: str, env: dict, pool: str | None = "solo", beat: bool = False,
                 extra: tuple[str, ...] = ()):
        super().__init__(name=name, queue=queue, env=env, log_path=OUTPUT / f"{name}.log", pool=pool, beat=beat,
                         extra=("--without-heartbeat", *extra), own_group=True)

    def start(self, *, wait: bool = True, timeout: float = 60.0) -> None:
        try:
            super().start(wait=wait, timeout=timeout)
        except WorkerFailed as failure:
            raise SystemExit(str(failure)) from failure


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak since start or since peak_reset) of a process, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far, in seconds (on a loaded machine, unlike wall time, what a
    piece of work costs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def backend_pids(database: str, *, exclude: int | None = None) -> list[int]:
    """The PostgreSQL backends connected to `database` (the server runs on this machine), found by their
    process titles ("postgres: <user> <database> <client> <state>")."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            title = cmdline.read_bytes().decode(errors="replace")
        except OSError:
            continue
        if title.startswith("postgres: ") and f" {database} " in title:
            pid = int(cmdline.parent.name)
            if pid != exclude:
                pids.append(pid)
    return pids


class BackendCpu:
    """CPU used by the backends of a database while a `with` block runs, polled every 20 ms in a thread, so
    that a backend whose client disconnects before the end is counted up to its last reading."""

    def __init__(self, database: str, *, exclude: int | None = None):
        import threading

        self.database, self.exclude = database, exclude
        self.start: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _read(self) -> dict[int, float]:
        values = {}
        for pid in backend_pids(self.database, exclude=self.exclude):
            try:
                values[pid] = cpu_seconds(pid)
            except OSError:
                pass
        return values

    def _poll(self) -> None:
        while not self._stop.wait(0.02):
            self.last.update(self._read())

    def __enter__(self):
        self.start = self._read()
        self.last = dict(self.start)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.last.update(self._read())

    @property
    def seconds(self) -> float:
        return sum(value - self.start.get(pid, 0.0) for pid, value in self.last.items())


def peak_reset(pid: int) -> bool:
    """Reset a process's peak resident size (Linux: writing 5 to clear_refs), so VmHWM measures what follows."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def queue_purge(app, queue: str) -> int:
    """Drop every message waiting on a queue of the app's broker; returns how many there were."""
    with app.connection_for_write() as connection:
        return connection.default_channel.queue_purge(queue) or 0

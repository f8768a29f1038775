"""Helpers shared by the settlement, HTTP and soak benchmarks: PostgreSQL scratch databases, pgbench, a real
Celery worker process, Redis queues, and process memory. No Django import here: the scripts set their
environment (database, broker, queue) first and only then set Django up."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from glob import glob
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "var" / "bench"


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
        out = subprocess.run([*base, "-c", str(clients), "-j", "2", "-T", str(seconds), scratch],
                             check=True, capture_output=True, text=True).stdout
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

class Worker:
    """A real `celery -A casino worker` process on a queue, with its log under var/bench/. pool=None: the
    settings' pool (prefork, CELERY_WORKER_CONCURRENCY children), as in production. The worker leads a process
    group of its own, so a kill takes its pool's children with it, as when a machine dies."""

    def __init__(self, *, name: str, queue: str, env: dict, pool: str | None = "solo", beat: bool = False,
                 extra: tuple[str, ...] = ()):
        self.name = name
        self.queue = queue
        self.env = env
        self.pool = pool
        self.beat = beat
        self.extra = extra
        self.proc: subprocess.Popen | None = None
        self.log_path = OUTPUT / f"{name}.log"
        self.starts = 0

    def start(self, *, wait: bool = True, timeout: float = 60.0) -> None:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = open(self.log_path, "a")  # noqa: SIM115 - owned by the process, closed with it
        log.write(f"\n--- start {self.starts} at {time.strftime('%H:%M:%S')}\n")
        log.flush()
        offset = self.log_path.stat().st_size
        command = [sys.executable, "-m", "celery", "-A", "casino", "worker", "-Q", self.queue,
                   "-n", f"{self.name}@%h", *(["--pool", self.pool] if self.pool else []), "--loglevel", "INFO",
                   "--without-gossip", "--without-mingle", "--without-heartbeat", *self.extra]
        if self.beat:
            command += ["-B", "--schedule", str(OUTPUT / f"{self.name}-beat-schedule")]
        self.proc = subprocess.Popen(command, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        if not wait:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"worker {self.name} exited with {self.proc.returncode}; see {self.log_path}")
            with open(self.log_path) as handle:
                handle.seek(offset)
                if "ready." in handle.read():
                    return
            time.sleep(0.1)
        raise SystemExit(f"worker {self.name} not ready after {timeout:.0f} s; see {self.log_path}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL to the worker and its pool's children: no warm shutdown, the tasks in hand are lost mid-way
        (and redelivered after the broker's visibility timeout: acks_late)."""
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def children(self) -> list[int]:
        """The pool's child processes (none for the solo pool)."""
        try:
            return [int(pid) for pid in Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()]
        except OSError:
            return []

    def kill_child(self, rng) -> bool:
        """SIGKILL one pool child: the worker sees it lost and puts its task back at once (reject_on_worker_lost)
        and starts a new child."""
        children = self.children() if self.alive() else []
        if not children:
            return False
        try:
            os.kill(rng.choice(children), signal.SIGKILL)
        except ProcessLookupError:
            return False
        return True

    def freeze(self, frozen: bool) -> None:
        """SIGSTOP / SIGCONT the worker's whole process group: it takes nothing off the queue while frozen."""
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGSTOP if frozen else signal.SIGCONT)

    def stop(self) -> None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak since start or since peak_reset) of a process, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


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

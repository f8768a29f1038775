"""A real `celery -A casino worker` process: the one launcher behind the tests' worker fixtures and the
benchmarks' workers. No Django import: the caller gives it the environment (database, broker, queue) it runs
with, and Django is set up in the worker process only."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def long_queue(default_queue: str) -> str:
    """The queue of the tasks that run for seconds or more (casino.settings CELERY_TASK_ROUTES), named after the
    default queue so that each test session's and soak's stays its own."""
    return f"{default_queue}.long"


class WorkerFailed(RuntimeError):
    """The worker exited, or did not say it was ready in time; the message names its log."""


class CeleryWorker:
    """A worker on one queue or several (a tuple), logging to `log_path` (appended to, one marker per start).

    pool=None: the settings' pool (prefork, CELERY_WORKER_CONCURRENCY children), as in production. With
    own_group the worker leads a process group of its own, so kill() and freeze() take its pool's children with
    it, as when a machine dies; without it (the test fixtures) it stays in the caller's group, so stopping the
    test run stops it too."""

    def __init__(self, *, name: str, queue: str | tuple[str, ...], env: dict, log_path: Path, pool: str | None = "solo",
                 beat: bool = False, extra: tuple[str, ...] = (), own_group: bool = True):
        self.name = name
        self.queue = queue
        self.env = env
        self.log_path = log_path
        self.pool = pool
        self.beat = beat
        self.extra = extra
        self.own_group = own_group
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def command(self) -> list[str]:
        command = [sys.executable, "-m", "celery", "-A", "casino", "worker", "-Q",
                   self.queue if isinstance(self.queue, str) else ",".join(self.queue),
                   "-n", f"{self.name}@%h", *(["--pool", self.pool] if self.pool else []), "--loglevel", "INFO",
                   "--without-gossip", "--without-mingle", *self.extra]
        if self.beat:
            command += ["-B", "--schedule", str(self.log_path.with_name(f"{self.name}-beat-schedule"))]
        return command

    def start(self, *, wait: bool = True, timeout: float = 60.0) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = open(self.log_path, "a")  # noqa: SIM115 - owned by the process, closed with it
        log.write(f"\n--- start {self.starts} at {time.strftime('%H:%M:%S')}\n")
        log.flush()
        offset = self.log_path.stat().st_size
        self.proc = subprocess.Popen(self.command(), cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=self.own_group)
        log.close()
        if not wait:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise WorkerFailed(f"worker {self.name} exited with {self.proc.returncode}; see {self.log_path}")
            with open(self.log_path, errors="replace") as handle:
                handle.seek(offset)
                if "ready." in handle.read():
                    return
            time.sleep(0.1)
        self._kill_now()
        raise WorkerFailed(f"worker {self.name} not ready after {timeout:.0f} s; see {self.log_path}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _kill_now(self) -> None:
        assert self.proc is not None
        if self.own_group:
            os.killpg(self.proc.pid, signal.SIGKILL)
        else:
            self.proc.kill()
        self.proc.wait()

    def kill(self) -> None:
        """SIGKILL, with no warm shutdown: the tasks in hand are lost mid-way (and redelivered after the broker's
        visibility timeout: acks_late)."""
        if self.alive():
            self._kill_now()

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
        if self.alive() and self.own_group:
            os.killpg(self.pid, signal.SIGSTOP if frozen else signal.SIGCONT)

    def stop(self, *, timeout: float = 30.0) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill_now()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

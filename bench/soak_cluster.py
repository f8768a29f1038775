"""The soak test's own PostgreSQL cluster and Redis server, and the faults it injects into them.

Both run on ports of their own with their data under var/soak-<port>/, are created at the start of a soak and
removed at its end, so that stopping them hurts nobody else: PostgreSQL is stopped with `pg_ctl stop -m
immediate` (every backend killed, no checkpoint: a crash as far as the database can tell) and started again;
Redis is killed with SIGKILL and started empty (it persists nothing), so every message waiting on a queue is
lost and only the recovery sweep brings the rounds back. No Django import here."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

from bench.common import REPO, pg_bin


def _as_postgres(command: list[str]) -> list[str]:
    # initdb and the server refuse to run as root; as root, run them as the postgres user.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PgCluster:
    """A throw-away PostgreSQL cluster (initdb + pg_ctl) on its own port and data folder."""

    def __init__(self, *, port: int, host: str = "127.0.0.1", wrap: tuple[str, ...] = ()):
        # host: the address it listens on; wrap: a command prefix it runs under (`ip netns exec <ns>`).
        self.port, self.host, self.wrap = port, host, wrap
        self.folder = REPO / "var" / f"soak-pg-{port}"
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"

    @property
    def url(self) -> str:
        return f"postgres://postgres@{self.host}:{self.port}/casino_soak"

    def create(self) -> None:
        self.remove()
        self.folder.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            # The server runs as postgres, which must pass through var/ to reach its folder; Django's file cache
            # creates var/ as 0700 when it is the first to need it (make run, the SQLite tests).
            parent = self.folder.parent
            os.chmod(parent, os.stat(parent).st_mode | 0o111)
        subprocess.run(_as_postgres([pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                                     "-E", "UTF8", "--no-instructions"]), check=True, capture_output=True)
        # fsync off: an immediate stop kills the server, not the machine, so what it wrote is in the page cache.
        # Commits stay synchronous: an immediate stop must not lose a committed transaction.
        conf = (f"port = {self.port}\nlisten_addresses = '{self.host}'\nunix_socket_directories = '{self.folder}'\n"
                "fsync = off\nfull_page_writes = off\nmax_connections = 100\nshared_buffers = 128MB\n")
        with open(self.data / "postgresql.conf", "a") as handle:
            handle.write(conf)
        if self.host != "127.0.0.1":  # the soak's other hosts connect from the same private subnet
            with open(self.data / "pg_hba.conf", "a") as handle:
                handle.write("host all all samenet trust\n")
            with open(self.data / "postgresql.conf", "a") as handle:  # where each connection came from
                handle.write("log_connections = on\n")
        self.start()

    def start(self) -> None:
        subprocess.run([*self.wrap, *_as_postgres([pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                                                   "-t", "60", "start"])], check=True, capture_output=True)

    def stop_immediate(self) -> None:
        subprocess.run(_as_postgres([pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
                       check=True, capture_output=True)

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(_as_postgres([pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
                           capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


class RedisServer:
    """A redis-server of the soak's own, persisting nothing, on its own port."""

    def __init__(self, *, port: int, host: str = "127.0.0.1", wrap: tuple[str, ...] = ()):
        self.port, self.host, self.wrap = port, host, wrap
        self.folder = REPO / "var" / f"soak-redis-{port}"
        self.proc: subprocess.Popen | None = None

    def url(self, db: int) -> str:
        return f"redis://{self.host}:{self.port}/{db}"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if not binary:
            raise SystemExit("redis-server not found (the soak runs a Redis server of its own)")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "server.log", "a")  # noqa: SIM115 - owned by the process
        self.proc = subprocess.Popen(
            [*self.wrap, binary, "--port", str(self.port), "--bind", self.host, "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--daemonize", "no",
             # Without a password Redis answers only loopback clients unless told otherwise; it listens on the
             # soak's private subnet alone.
             *(["--protected-mode", "no"] if self.host != "127.0.0.1" else [])], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 20
        while not self.ping():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"redis-server on port {self.port} did not start; see {self.folder}/server.log")
            time.sleep(0.05)

    def ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(host=self.host, port=self.port, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def remove(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def port_free(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0

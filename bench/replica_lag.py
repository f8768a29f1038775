"""A PostgreSQL streaming replica beside a primary under a write load: how far behind the replica reads, and
what replaying the primary's writes costs it (docs/scaling.md, read replicas for the back office).

    .venv/bin/python bench/replica_lag.py [--clients 10] [--seconds 20] [--port 55481]

Two throw-away clusters of its own (bench/soak_cluster.py's PgCluster: own ports, data under var/, removed at
the end): the primary, and a hot standby made from it with `pg_basebackup -R` (streaming replication, the
standard set-up; asynchronous, as a replica for reads would be). pgbench's TPC-B runs on the primary as the
write load (each transaction three UPDATEs and an INSERT, like a bet hold's balance update and entries); a
probe commits a numbered row on the primary every 50 ms and polls the standby until it sees it, which is the
staleness a back-office read on the replica would have. CPU is read from /proc for the primary's backends
and WAL sender and the standby's WAL receiver and startup (replay) process. Prints a markdown report.
No Django import here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cpu_seconds, machine, percentile, pg_bin, progress  # noqa: E402
from bench.soak_cluster import PgCluster, _as_postgres, port_free  # noqa: E402


class Standby(PgCluster):
    """A hot standby of `primary`, from a base backup with its recovery settings written (-R)."""

    def __init__(self, *, port: int, primary: PgCluster):
        super().__init__(port=port)
        self.primary = primary

    def create(self) -> None:
        self.remove()
        self.folder.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(_as_postgres([pg_bin("pg_basebackup"), "-h", self.primary.host, "-p", str(self.primary.port),
                                     "-U", "postgres", "-D", str(self.data), "-R", "-X", "stream", "-c", "fast"]),
                       check=True, capture_output=True)
        # The backup carries the primary's settings; the last line of a setting wins.
        with open(self.data / "postgresql.conf", "a") as handle:
            handle.write(f"port = {self.port}\nunix_socket_directories = '{self.folder}'\nhot_standby = on\n")
        self.start()


def postmaster(cluster: PgCluster) -> int:
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


def process_cpu(parent: int, title_part: str) -> dict[int, float]:
    """CPU seconds of the children of one postmaster whose title contains `title_part` (PostgreSQL names its
    processes: "postgres: walsender ...", "postgres: startup recovering ...", "postgres: postgres postgres
    127.0.0.1(...)" for a client's backend); other clusters on the machine are not counted."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != parent:
                continue
            title = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
            if title_part in title:
                found[int(stat.parent.name)] = cpu_seconds(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


class Probe(threading.Thread):
    """Commits a numbered row on the primary every `every` seconds and times until the standby shows it."""

    def __init__(self, primary_url: str, standby_url: str, *, first: int, every: float = 0.05):
        super().__init__(daemon=True)
        self.primary_url, self.standby_url, self.every, self.first = primary_url, standby_url, every, first
        self.error: BaseException | None = None
        self.lags: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            self._probe()
        except BaseException as error:  # reported by the main thread
            self.error = error

    def _probe(self) -> None:
        import psycopg

        with psycopg.connect(self.primary_url, autocommit=True) as primary, \
                psycopg.connect(self.standby_url, autocommit=True) as standby:
            number = self.first
            while not self.stop.wait(self.every):
                number += 1
                primary.execute("INSERT INTO lag_probe VALUES (%s)", (number,))
                committed = time.perf_counter()
                while not standby.execute("SELECT 1 FROM lag_probe WHERE n = %s", (number,)).fetchone():
                    time.sleep(0.0005)
                self.lags.append(time.perf_counter() - committed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--port", type=int, default=55481, help="the primary's; the standby takes the next one")
    args = parser.parse_args()
    for port in (args.port, args.port + 1):
        if not port_free(port):
            raise SystemExit(f"port {port} is taken: choose another with --port")
    primary = PgCluster(port=args.port)
    standby = Standby(port=args.port + 1, primary=primary)
    url = "postgres://postgres@127.0.0.1:{}/postgres"
    try:
        progress(f"replica: primary on {args.port}, standby on {args.port + 1} ...")
        primary.create()
        base = [pg_bin("pgbench"), "-h", "127.0.0.1", "-p", str(args.port), "-U", "postgres"]
        subprocess.run([*base, "-i", "-q", "-s", str(args.clients), "postgres"], check=True, capture_output=True)
        subprocess.run([pg_bin("psql"), "-h", "127.0.0.1", "-p", str(args.port), "-U", "postgres", "-Atqc",
                        "CREATE TABLE lag_probe (n int PRIMARY KEY)"], check=True, capture_output=True)
        standby.create()
        probe = Probe(url.format(args.port), url.format(args.port + 1), first=1_000_000)
        idle = Probe(url.format(args.port), url.format(args.port + 1), first=0)
        idle.start()  # the lag with no other writes: the floor of streaming, one commit at a time
        time.sleep(3)
        idle.stop.set()
        idle.join()
        processes = (("primary backends", postmaster(primary), "postgres postgres 127.0.0.1"),
                     ("WAL sender", postmaster(primary), "walsender"),
                     ("WAL receiver", postmaster(standby), "walreceiver"),
                     ("replay", postmaster(standby), "startup"))
        before = {name: process_cpu(parent, part) for name, parent, part in processes}
        probe.start()
        progress(f"replica: pgbench TPC-B, {args.clients} clients, {args.seconds} s on the primary ...")
        # The backends' CPU is read while pgbench runs (they exit with it): sampled every second.
        run = subprocess.Popen([*base, "-c", str(args.clients), "-j", "2", "-T", str(args.seconds), "postgres"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        last = {name: dict(values) for name, values in before.items()}
        while run.poll() is None:
            for name, parent, part in processes:
                last[name].update(process_cpu(parent, part))
            time.sleep(0.5)
        out = run.communicate()[0]
        probe.stop.set()
        probe.join()
    finally:
        standby.remove()
        primary.remove()
    for thread in (idle, probe):
        if thread.error or not thread.lags:
            raise SystemExit(f"the replica probe failed: {thread.error!r}")
    transactions = int(next(line for line in out.splitlines() if "transactions actually processed" in line)
                       .split(":")[1].split("/")[0])
    tps = float(next(line for line in out.splitlines() if line.startswith("tps")).split("=")[1].split()[0])
    cpu = {name: sum(value - before[name].get(pid, 0.0) for pid, value in last[name].items()) for name in last}
    per = {name: seconds / transactions * 1e6 for name, seconds in cpu.items()}
    lags, floor = probe.lags, idle.lags
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC by `bench/replica_lag.py` on {machine()}: "
          f"a primary and its streaming hot standby (`pg_basebackup -R`, asynchronous), both on this machine.\n")
    print("| Figure | Result |\n|---|---|")
    print(f"| Write load on the primary: pgbench TPC-B, {args.clients} clients, {args.seconds} s | {tps:,.0f} tps "
          f"({transactions:,} transactions) |")
    print(f"| Replica staleness, idle primary: commit on the primary → row visible on the standby, "
          f"{len(floor)} probes | p50 {percentile(floor, 0.5) * 1000:.1f} ms, p99 {percentile(floor, 0.99) * 1000:.1f} ms |")
    print(f"| Replica staleness under the load, {len(lags)} probes | p50 {percentile(lags, 0.5) * 1000:.1f} ms, "
          f"p99 {percentile(lags, 0.99) * 1000:.1f} ms, max {max(lags) * 1000:.1f} ms |")
    print(f"| CPU per write transaction: primary backends / WAL sender | {per['primary backends']:.0f} µs / "
          f"{per['WAL sender']:.0f} µs |")
    print(f"| CPU per write transaction on the standby: WAL receiver / replay (startup process) | "
          f"{per['WAL receiver']:.0f} µs / {per['replay']:.0f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

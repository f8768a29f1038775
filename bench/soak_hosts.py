"""The soak on test hosts of its own: Linux network namespaces joined by a bridge, so that every connection of
the workers crosses a network interface as it would between machines.

    .venv/bin/python bench/soak.py --hosts 2 [--delay-ms 0.5] [soak options]   # one run, its checks
    .venv/bin/python bench/soak_hosts.py [--write] [soak options]             # 1 host, then 2, compared

With --hosts N the soak's PostgreSQL and redis-server run in a namespace of their own (the database host,
10.<a>.<b>.2 on a private /24) and listen only on that address; its Celery workers are spread over N
namespaces (the worker hosts, .11, .12, ...), each joined to the bridge by a veth pair; the table simulator
and the checks run in the root namespace behind the bridge's own address (.1), so they too reach the database
and the broker through the bridge and a veth, never through loopback. Beat, the one scheduler, runs on the
database host, so that killing a worker host takes only its workers. --delay-ms adds a one-way delay with
`tc qdisc netem` on both ends of each worker host's link (a round trip worker -> database pays it twice), if the
kernel has the netem qdisc. Besides the soak's own faults, every worker of the first host is killed (SIGKILL)
while rounds settle, and the time until the other host has settled them all is measured.

The namespaces, the bridge and the links are removed at the end, after a failure and on SIGTERM/SIGINT/SIGHUP
too; leftovers of a run that was killed with SIGKILL are removed at the next start (their names carry the
soak's PostgreSQL port). Run as root: creating namespaces needs CAP_NET_ADMIN.

This file's main runs the short soak twice at the same load, once with every worker on one host and once with
the same number of workers per host on two hosts, and prints (with --write: puts in docs/soak.md between
markers) the figures side by side. No Django import here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import OUTPUT, REPO, Worker  # noqa: E402
from bench.soak_faults import Faults  # noqa: E402

IPROUTE_MISSING = ("the soak's --hosts mode needs `ip` from iproute2 (network namespaces, veth, bridge): "
                   "install it with `apt-get install -y iproute2`")


def run(*command: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"`{' '.join(command)}` failed: {done.stderr.strip() or done.stdout.strip()}")
    return done


class Network:
    """A database host and `hosts` worker hosts, each a network namespace with one veth into a bridge."""

    def __init__(self, *, hosts: int, tag: int, delay_ms: float = 0.0):
        if hosts < 1:
            raise SystemExit("--hosts must be at least 1")
        self.hosts, self.tag, self.delay_ms = hosts, tag, delay_ms
        # A private /24 of its own per soak port, so two soaks on different ports do not meet.
        self.prefix = f"10.{200 + tag % 50}.{tag % 250}"
        self.bridge = f"sk{tag}br"
        self.db = f"sk{tag}-db"
        self.workers = [f"sk{tag}-h{n + 1}" for n in range(hosts)]
        self.up = False

    @property
    def db_address(self) -> str:
        return f"{self.prefix}.2"

    def address(self, namespace: str) -> str:
        return self.db_address if namespace == self.db else f"{self.prefix}.{11 + self.workers.index(namespace)}"

    @staticmethod
    def wrap(namespace: str) -> tuple[str, ...]:
        # `ip netns exec` joins the namespace and execs the command: the process keeps its pid (and leads its
        # process group when started so), so killing and freezing it work as for any worker.
        return ("ip", "netns", "exec", namespace)

    def _links(self, namespace: str) -> tuple[str, str]:
        short = "db" if namespace == self.db else f"h{self.workers.index(namespace) + 1}"
        return f"sk{self.tag}{short}o", f"sk{self.tag}{short}i"  # the bridge's end, the host's end

    def create(self) -> None:
        if not shutil.which("ip"):
            raise SystemExit(IPROUTE_MISSING)
        if os.geteuid() != 0:
            raise SystemExit("the soak's --hosts mode creates network namespaces: run it as root")
        self.remove()
        self.up = True
        try:
            run("ip", "link", "add", self.bridge, "type", "bridge")
        except SystemExit as error:
            raise SystemExit(f"{error} (network namespaces and bridges need CAP_NET_ADMIN)") from None
        run("ip", "addr", "add", f"{self.prefix}.1/24", "dev", self.bridge)
        run("ip", "link", "set", self.bridge, "up")
        for namespace in (self.db, *self.workers):
            outside, inside = self._links(namespace)
            run("ip", "netns", "add", namespace)
            run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
            run("ip", "link", "set", inside, "netns", namespace)
            run("ip", "link", "set", outside, "master", self.bridge)
            run("ip", "link", "set", outside, "up")
            inns = ("ip", "netns", "exec", namespace)
            run(*inns, "ip", "addr", "add", f"{self.address(namespace)}/24", "dev", inside)
            run(*inns, "ip", "link", "set", inside, "up")
            run(*inns, "ip", "link", "set", "lo", "up")
            if self.delay_ms and namespace != self.db:
                self._delay(namespace, outside, inside)

    def _delay(self, namespace: str, outside: str, inside: str) -> None:
        if not shutil.which("tc"):
            raise SystemExit("--delay-ms needs `tc` from iproute2: `apt-get install -y iproute2`")
        delay = f"{self.delay_ms}ms"
        done = run("tc", "qdisc", "add", "dev", outside, "root", "netem", "delay", delay, check=False)
        if done.returncode != 0:
            raise SystemExit(f"--delay-ms: `tc qdisc add ... netem` failed ({done.stderr.strip()}): this kernel "
                             "has no netem qdisc (sch_netem); run without --delay-ms")
        run("ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", inside, "root", "netem", "delay", delay)

    def remove(self) -> None:
        """Every namespace (its veth end goes with it, and the peer with that) and the bridge; what is not
        there is skipped."""
        for namespace in (self.db, *self.workers):
            run("ip", "netns", "del", namespace, check=False)
            run("ip", "link", "del", self._links(namespace)[0], check=False)
        run("ip", "link", "del", self.bridge, check=False)
        self.up = False

    def describe(self) -> str:
        hosts = ", ".join(f"`{n}` {self.address(n)}" for n in self.workers)
        delay = (f"; `tc netem` delay {self.delay_ms} ms each way on each worker host's link, both ends"
                 if self.delay_ms else "; no added delay")
        return (f"PostgreSQL, Redis and beat in namespace `{self.db}` ({self.db_address}); worker hosts {hosts}; "
                f"the simulator behind bridge `{self.bridge}` ({self.prefix}.1/24){delay}")


def removed_on_signals(network: Network) -> None:
    """SIGTERM, SIGINT and SIGHUP end the soak through its `finally` blocks (the servers, then the network)."""

    def leave(signum, _frame):
        raise SystemExit(f"soak: stopped by signal {signum}")

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, leave)


class HostWorker(Worker):
    """A soak worker on one of the worker hosts."""

    def __init__(self, *, host: str, **kwargs):
        super().__init__(**kwargs)
        self.host = host

    def command(self) -> list[str]:
        return [*Network.wrap(self.host), *super().command()]


class HostFaults(Faults):
    """The soak's faults with one more kind, "host": every worker of the first host killed while rounds settle,
    and started again once the other host has settled them."""

    def strike(self, kind: str, outage: float) -> float:
        if kind != "host":
            return super().strike(kind, outage)
        first = self.workers[0].host  # type: ignore[attr-defined]
        for worker in self.workers:
            if worker.host == first:  # type: ignore[attr-defined]
                worker.kill()
        # Measured from the kill: the other host's workers must take over what the dead host held.
        return time.monotonic()

    def inject(self, kind: str, sims, bar, number: int) -> None:
        super().inject(kind, sims, bar, number)
        if kind == "host":
            self.chaos.pause()
            for worker in self.workers:
                if not worker.alive():
                    worker.start()
            self.chaos.resume()


def settle_runs_by_host(workers: list[HostWorker]) -> dict[str, int]:
    runs: dict[str, int] = {}
    for worker in workers:
        count = sum(1 for line in worker.log().splitlines() if "round_settle[" in line and "succeeded in" in line)
        runs[worker.host] = runs.get(worker.host, 0) + count
    return runs


def connection_sources(redis_url: str, pg_log: Path) -> dict[str, dict[str, int]]:
    """Where the database's clients connected from since its start (its log_connections lines) and where the
    broker's clients connect from now, by address: the evidence that the workers' connections come from their
    hosts' addresses, across the bridge, and none from loopback."""
    import re

    import redis

    database: dict[str, int] = {}
    text = pg_log.read_text(errors="replace") if pg_log.exists() else ""
    for address in re.findall(r"connection received: host=([^ ]+)", text):
        database[address] = database.get(address, 0) + 1
    broker: dict[str, int] = {}
    for client in redis.Redis.from_url(redis_url).client_list():
        address = client["addr"].rsplit(":", 1)[0]
        broker[address] = broker.get(address, 0) + 1
    return {"PostgreSQL connections since its start": dict(sorted(database.items())),
            "Redis clients now": dict(sorted(broker.items()))}


MARK_BEGIN, MARK_END = "<!-- soak-hosts:begin -->", "<!-- soak-hosts:end -->"
HOSTS_SECTION = "## Two worker hosts"  # the end of docs/soak.md, kept when the plain soak rewrites the page


def soak_page(report: str, current: str) -> str:
    """docs/soak.md rewritten by the plain soak: its new report, then the two-host section kept as it was."""
    head, mark, rest = current.partition(HOSTS_SECTION)
    return report + (f"\n{mark}{rest}" if mark else "")


def comparison_in_page(block: str, current: str) -> str:
    """docs/soak.md with the comparison between its markers replaced (the section added when missing)."""
    block = f"{MARK_BEGIN}\n{block}\n{MARK_END}"
    if MARK_BEGIN in current:
        head, _, tail = current.partition(MARK_BEGIN)
        return head + block + tail.partition(MARK_END)[2]
    return current.rstrip("\n") + f"\n\n{HOSTS_SECTION}\n\n" + block + "\n"


def comparison(one: dict, two: dict) -> str:
    """The two runs side by side, markdown."""

    def rate(figures: dict, name: str) -> float:
        return figures[name] / figures["play seconds"] if figures["play seconds"] else 0.0

    rows = [("Worker hosts (network namespaces)", one["hosts"], two["hosts"], None),
            ("Celery workers (prefork, 2 children each)", one["workers"], two["workers"], None),
            ("Rounds (settled + voided)", one["rounds"], two["rounds"], None),
            ("Bets placed", one["placements"], two["placements"], None),
            ("Rounds settled", one["settled"], two["settled"], None),
            ("round_settle runs per host", one["settle runs by host"], two["settle runs by host"], None),
            ("Play seconds (faults' time left out)", f"{one['play seconds']:.0f}", f"{two['play seconds']:.0f}", None),
            ("Rounds per second of play", f"{rate(one, 'rounds'):.2f}", f"{rate(two, 'rounds'):.2f}",
             rate(two, "rounds") / rate(one, "rounds") if rate(one, "rounds") else None),
            ("Bets per second of play", f"{rate(one, 'placements'):.1f}", f"{rate(two, 'placements'):.1f}",
             rate(two, "placements") / rate(one, "placements") if rate(one, "placements") else None)]
    for kind in ("database", "broker", "host"):
        first, second = one["recovery"].get(kind, []), two["recovery"].get(kind, [])
        if first or second:
            rows.append((f"Recovery after {kind} fault, s (each)", " / ".join(f"{s:.1f}" for s in first) or "—",
                         " / ".join(f"{s:.1f}" for s in second) or "—", None))
    rows.append(("Every check passed", "yes" if one["passed"] else "**no**", "yes" if two["passed"] else "**no**",
                 None))
    lines = ["| Figure | 1 host | 2 hosts | 2 hosts / 1 host |", "|---|---|---|---|"]
    for name, a, b, ratio in rows:
        if isinstance(a, dict):
            a, b = ", ".join(f"{k}: {v}" for k, v in a.items()), ", ".join(f"{k}: {v}" for k, v in b.items())
        lines.append(f"| {name} | {a} | {b} | {f'{ratio:.2f}' if ratio is not None else ''} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="The short soak on 1 worker host, then on 2, compared.")
    parser.add_argument("--write", action="store_true", help="put the comparison in docs/soak.md")
    parser.add_argument("--workers-per-host", type=int, default=1)
    parser.add_argument("--short", action=argparse.BooleanOptionalAction, default=True,
                        help="run the soak's --short form (its faults fixed); --no-short takes every soak option as "
                             "given, e.g. no faults at all to compare throughput alone")
    args, rest = parser.parse_known_args()
    figures = []
    for hosts in (1, 2):
        path = OUTPUT / f"soak-hosts-{hosts}.json"
        path.unlink(missing_ok=True)
        command = [sys.executable, str(REPO / "bench" / "soak.py"), *(["--short"] if args.short else []),
                   "--hosts", str(hosts),
                   "--workers", str(hosts * args.workers_per_host), "--figures", str(path), *rest]
        print(f"soak-hosts: {' '.join(command[1:])}", file=sys.stderr, flush=True)
        code = subprocess.run(command, cwd=REPO).returncode
        if not path.exists():
            raise SystemExit(f"the soak on {hosts} host(s) wrote no figures (exit {code})")
        figures.append(json.loads(path.read_text()))
    text = comparison(*figures)
    print(text)
    if args.write:
        soak_md = REPO / "docs" / "soak.md"
        soak_md.write_text(comparison_in_page(text, soak_md.read_text()))
    return 0 if all(f["passed"] for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())

"""The soak on test hosts of its own: Linux network namespaces joined by a bridge, so that every connection of
the workers crosses a network interface as it would between machines.

    .venv/bin/python bench/soak.py --hosts 2 [--delay-ms 0.5 | --relay-rtt-ms 1] [soak options]  # one run
    .venv/bin/python bench/soak_hosts.py [--write] [--relay-rtt-ms 1 5] [soak options]  # 1 host, 2, compared

With --hosts N the soak's PostgreSQL and redis-server run in a namespace of their own (the database host,
10.<a>.<b>.2 on a private /24) and listen only on that address; its Celery workers are spread over N
namespaces (the worker hosts, .11, .12, ...), each joined to the bridge by a veth pair; the table simulator
and the checks run in the root namespace behind the bridge's own address (.1), so they too reach the database
and the broker through the bridge and a veth, never through loopback. Beat, the one scheduler, runs on the
database host, so that killing a worker host takes only its workers. --delay-ms adds a one-way delay with
`tc qdisc netem` on both ends of each worker host's link (a round trip worker -> database pays it twice), if the
kernel has the netem qdisc; this project's test host has none (no sch_netem, no loadable modules), so
--relay-rtt-ms puts the hosts but the first behind bench/soak_relay.py instead, a TCP relay in their namespace
that adds half the round trip each way on their path to PostgreSQL and Redis. Besides the soak's own faults,
every worker of the first host is killed (SIGKILL) while rounds settle, and the time until the other host has
settled them all is measured.

The namespaces, the bridge and the links are removed at the end, after a failure and on SIGTERM/SIGINT/SIGHUP
too; leftovers of a run that was killed with SIGKILL are removed at the next start (their names carry the
soak's PostgreSQL port). Run as root: creating namespaces needs CAP_NET_ADMIN.

This file's main runs the short soak twice at the same load, once with every worker on one host and once with
the same number of workers per host on two hosts (then, with --relay-rtt-ms, once more on two hosts per round
trip given), and prints (with --write: puts in docs/soak.md between markers) the figures side by side. No
Django import here.
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

    def __init__(self, *, hosts: int, tag: int, delay_ms: float = 0.0, relay_rtt_ms: float | None = None):
        if hosts < 1:
            raise SystemExit("--hosts must be at least 1")
        if relay_rtt_ms is not None and (hosts < 2 or relay_rtt_ms < 0 or delay_ms):
            raise SystemExit("--relay-rtt-ms needs --hosts 2 or more, a delay of 0 or more, and no --delay-ms")
        self.hosts, self.tag, self.delay_ms, self.relay_rtt_ms = hosts, tag, delay_ms, relay_rtt_ms
        self.relays: dict[str, subprocess.Popen] = {}
        self.relay_probe: dict[str, float] = {}
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

    @property
    def relayed(self) -> list[str]:
        """The worker hosts behind the delay relay: all but the first, which stays next to the database (and is
        the one the host fault kills, so the relayed host is the one that must take its rounds over)."""
        return self.workers[1:] if self.relay_rtt_ms is not None else []

    def relays_start(self, ports: tuple[int, ...]) -> None:
        """On every relayed host, bench/soak_relay.py on the host's own address and the database host's ports,
        half the round trip each way; then the round trip it adds, measured (Redis PINGs through it and past it)."""
        for host in self.relayed:
            routes = [f"{self.address(host)}:{port}={self.db_address}:{port}" for port in ports]
            relay = subprocess.Popen(
                [*self.wrap(host), sys.executable, str(REPO / "bench" / "soak_relay.py"),
                 "--delay-ms", str(self.relay_rtt_ms / 2), *routes],  # type: ignore[operator]
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
            self.relays[host] = relay
            if relay.stdout.readline().strip() != "relay ready":  # type: ignore[union-attr]
                raise SystemExit(f"the delay relay on {host} did not start (exit {relay.poll()})")
        for host in self.relayed:
            self.relay_probe[host] = self._probe(host, ports[-1])

    def _probe(self, host: str, redis_port: int) -> float:
        """Milliseconds a Redis PING round trip from `host` pays through its relay beyond the direct path
        (medians of 200 each)."""
        probe = ("import statistics, sys, time, redis\n"
                 "def rtt(host):\n"
                 f"    r = redis.Redis(host=host, port={redis_port}); r.ping(); times = []\n"
                 "    for _ in range(200):\n"
                 "        t = time.perf_counter(); r.ping(); times.append(time.perf_counter() - t)\n"
                 "    return statistics.median(times) * 1000\n"
                 f"print(rtt({self.address(host)!r}) - rtt({self.db_address!r}))\n")
        done = run(*self.wrap(host), sys.executable, "-c", probe)
        return float(done.stdout.strip())

    def env_for(self, host: str, env: dict[str, str]) -> dict[str, str]:
        """A worker's environment on `host`: behind the relay, the database and the broker are at the host's
        own address (the relay's), on the same ports."""
        if host not in self.relayed:
            return env
        here = self.address(host)
        return {name: value.replace(f"@{self.db_address}:", f"@{here}:").replace(f"//{self.db_address}:",
                                                                                  f"//{here}:")
                for name, value in env.items()}

    def relays_stop(self) -> None:
        for relay in self.relays.values():
            if relay.poll() is None:
                relay.terminate()
                relay.wait(timeout=10)
        self.relays.clear()

    def remove(self) -> None:
        """Every namespace (its veth end goes with it, and the peer with that) and the bridge; what is not
        there is skipped."""
        self.relays_stop()
        for namespace in (self.db, *self.workers):
            run("ip", "netns", "del", namespace, check=False)
            run("ip", "link", "del", self._links(namespace)[0], check=False)
        run("ip", "link", "del", self.bridge, check=False)
        self.up = False

    def describe(self) -> str:
        hosts = ", ".join(f"`{n}` {self.address(n)}" for n in self.workers)
        delay = (f"; `tc netem` delay {self.delay_ms} ms each way on each worker host's link, both ends"
                 if self.delay_ms else "; no added delay")
        if self.relay_rtt_ms is not None:
            probed = ", ".join(f"{ms:.2f} ms on `{host}`" for host, ms in self.relay_probe.items())
            delay = (f"; {', '.join(f'`{h}`' for h in self.relayed)} reaching PostgreSQL and Redis through "
                     f"bench/soak_relay.py, {self.relay_rtt_ms:g} ms added per round trip "
                     f"(measured by Redis PINGs, median: {probed or 'not yet'})")
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


def settle_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "round_settle[" in line and "succeeded in" in line]


def settle_runs_by_host(workers: list[HostWorker]) -> dict[str, int]:
    runs: dict[str, int] = {}
    for worker in workers:
        runs[worker.host] = runs.get(worker.host, 0) + len(settle_lines(worker.log()))
    return runs


def settle_ms_by_host(workers: list[HostWorker]) -> dict[str, float]:
    """The median time a round_settle run took on each host (Celery's "succeeded in" line), milliseconds: the
    cost of the round trips between a worker and the database, which the relay makes longer."""
    import statistics

    times: dict[str, list[float]] = {}
    for worker in workers:
        for line in settle_lines(worker.log()):
            times.setdefault(worker.host, []).append(float(line.split("succeeded in")[1].split("s:")[0]) * 1000)
    return {host: round(statistics.median(values), 1) for host, values in sorted(times.items())}


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


def run_title(figures: dict) -> str:
    hosts = f"{figures['hosts']} host{'s' if figures['hosts'] > 1 else ''}"
    rtt = figures.get("relay rtt ms")
    return hosts if rtt is None else f"{hosts}, host 2 +{rtt:g} ms round trip"


def comparison(one: dict, two: dict, *relayed: dict) -> str:
    """The runs side by side, markdown: 1 host, 2 hosts and their ratio, then any 2-host runs behind the delay
    relay (--relay-rtt-ms)."""

    def rate(figures: dict, name: str) -> float:
        return figures[name] / figures["play seconds"] if figures["play seconds"] else 0.0

    def ratio(name: str) -> float | None:
        return rate(two, name) / rate(one, name) if rate(one, name) else None

    runs = (one, two, *relayed)

    def each(value) -> list:
        return [value(figures) for figures in runs]

    rows = [("Worker hosts (network namespaces)", each(lambda f: f["hosts"]), None),
            ("Celery workers (prefork, 2 children each)", each(lambda f: f["workers"]), None),
            ("Round trip added to host 2 (relay; Redis PING median)",
             each(lambda f: ", ".join(f"{ms:.2f} ms" for ms in f.get("relay probe ms", {}).values()) or "—"), None),
            ("Rounds (settled + voided)", each(lambda f: f["rounds"]), None),
            ("Bets placed", each(lambda f: f["placements"]), None),
            ("Rounds settled", each(lambda f: f["settled"]), None),
            ("round_settle runs per host", each(lambda f: f["settle runs by host"]), None),
            ("round_settle median ms per host", each(lambda f: f.get("settle ms by host") or "—"), None),
            ("Play seconds (faults' time left out)", each(lambda f: f"{f['play seconds']:.0f}"), None),
            ("Rounds per second of play", each(lambda f: f"{rate(f, 'rounds'):.2f}"), ratio("rounds")),
            ("Bets per second of play", each(lambda f: f"{rate(f, 'placements'):.1f}"), ratio("placements"))]
    for kind in ("database", "broker", "host"):
        if any(f["recovery"].get(kind) for f in runs):
            rows.append((f"Recovery after {kind} fault, s (each)",
                         each(lambda f, kind=kind: " / ".join(f"{s:.1f}" for s in f["recovery"].get(kind, [])) or "—"),
                         None))
    rows.append(("Every check passed", each(lambda f: "yes" if f["passed"] else "**no**"), None))
    titles = [run_title(f) for f in runs]
    lines = ["| Figure | " + " | ".join([*titles[:2], "2 hosts / 1 host", *titles[2:]]) + " |",
             "|---" * (len(runs) + 2) + "|"]
    for name, values, quotient in rows:
        cells = [", ".join(f"{k}: {v}" for k, v in value.items()) if isinstance(value, dict) else str(value)
                 for value in values]
        cells.insert(2, f"{quotient:.2f}" if quotient is not None else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="The short soak on 1 worker host, then on 2, compared.")
    parser.add_argument("--write", action="store_true", help="put the comparison in docs/soak.md")
    parser.add_argument("--workers-per-host", type=int, default=1)
    parser.add_argument("--short", action=argparse.BooleanOptionalAction, default=True,
                        help="run the soak's --short form (its faults fixed); --no-short takes every soak option as "
                             "given, e.g. no faults at all to compare throughput alone")
    parser.add_argument("--relay-rtt-ms", type=float, nargs="+", default=[], metavar="MS",
                        help="after the two runs, one more 2-host run per value with host 2 reaching PostgreSQL and "
                             "Redis through bench/soak_relay.py, adding that round trip (e.g. 1 5)")
    args, rest = parser.parse_known_args()
    figures = []
    for hosts, rtt in ((1, None), (2, None), *((2, value) for value in args.relay_rtt_ms)):
        path = OUTPUT / f"soak-hosts-{hosts}{'' if rtt is None else f'-rtt{rtt:g}'}.json"
        path.unlink(missing_ok=True)
        command = [sys.executable, str(REPO / "bench" / "soak.py"), *(["--short"] if args.short else []),
                   "--hosts", str(hosts), *(["--relay-rtt-ms", str(rtt)] if rtt is not None else []),
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

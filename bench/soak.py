"""Soak test: simulated tables on PostgreSQL and Redis while workers are killed, the database and the broker
restarted, tasks delivered twice and requests raced.

    .venv/bin/python bench/soak.py [--players 100] [--tables 4] [--rounds 240] [--seed 1] [--short] [--write]
                                   [--races | --no-races] [--outage 3 12] [--pg-port 55433] [--redis-port 56380]
                                   [--hosts N [--delay-ms 0.5 | --relay-rtt-ms 1] [--host-kills 1] [--figures PATH]]

The soak runs a PostgreSQL cluster and a redis-server of its own (bench/soak_cluster.py: own ports, data
under var/, removed at the end) with the production Celery settings: two prefork worker processes (two children each)
compete for one queue, one beat process runs the timer and recovery sweeps. While the table simulator plays the
rounds through the services, a chaos thread kills, at random moments, a whole worker (its process group: the
broker's visibility timeout brings its task back) or one pool child (the worker puts its task back at once) and
starts it again; the simulator sends 10 % of the settle/void tasks a second time, 5 % of the players disconnect
while betting is open and 2 % of the rounds are voided as malfunctions. Between stretches of play, with every
table's round waiting on the dealer, the soak completes them all and then either stops PostgreSQL with
`pg_ctl stop -m immediate` while they settle, or (with the workers frozen while the rounds are completed, so
their settlements wait on the queue) kills Redis with SIGKILL, every queued settlement lost, and lets the workers
live through the outage, trying to reconnect; it starts the database or broker again after 3 s, the next time of
that kind after 12 s (--outage), and measures the time from its return until every one of those rounds is
settled. Player positions left in a non-live continuation (a disconnection after betting closed) are completed
as at their deadline before the checks. With --races (on by default, --short included; --no-races turns them off), bets race a
disconnection and main bets race the table maximum (bench/soak_races.py). Afterwards it verifies, from the
database and the simulator's own log of the cashier:

- the money in the system (player cash, bets in play, the house's bankroll and tips) equals deposits minus
  withdrawals, to the minor unit, and the cashier's ledger says the same;
- no bet is resolved twice, and no round has more than one payout or refund;
- every round is settled, or voided with its refunds done;
- no player balance was ever negative (every entry's balance afterwards, and every balance now);
- `manage.py ledger_audit` is clean, and every settled round replays from its audit trail to what was paid;
- with --races: no stake on a voided spot with its hold pending, no spot above the table maximum, no answer but a
  bet placed or a refusal.

It prints a markdown report of what was injected and verified and exits 1 if any check fails. --short is the
form CI runs from `make test` (a few minutes); --write puts the report in docs/soak.md.

This file sets the soak up and runs it; its parts are bench/soak_cluster.py (the servers), soak_faults.py (the
chaos thread, the database and broker restarts), soak_races.py, soak_checks.py (what is verified) and
soak_report.py (the markdown). With --hosts N, the database and the broker run on a host of their own and the
workers on N hosts, each a network namespace (bench/soak_hosts.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    OUTPUT,
    REPO,
    Worker,
    bench_env,
    database_recreate,
    pg_params,
    pg_version,
    progress,
)
from bench.soak_checks import continuations_complete, verify, wait_all_done, worker_log_counts  # noqa: E402
from bench.soak_cluster import PgCluster, RedisServer, port_free  # noqa: E402
from bench.soak_faults import Chaos, Faults  # noqa: E402
from bench.soak_hosts import (  # noqa: E402
    HostFaults,
    HostWorker,
    Network,
    connection_sources,
    removed_on_signals,
    settle_ms_by_host,
    settle_runs_by_host,
    soak_page,
)
from bench.soak_report import soak_report  # noqa: E402
from casino.worker_process import long_queue  # noqa: E402

QUEUE = f"soak-{os.getpid()}"


def soak_env(*, database_url: str, redis: RedisServer) -> dict[str, str]:
    """The environment of every soak process: production Celery settings, the soak's own database and Redis."""
    return bench_env(
        database_url=database_url, secret_key="soak-only-not-a-secret", http_clients=True,
        CELERY_BROKER_URL=redis.url(0), CELERY_RESULT_BACKEND=redis.url(1), REDIS_URL=redis.url(2),
        CELERY_TASK_DEFAULT_QUEUE=QUEUE, CELERY_WORKER_CONCURRENCY="2",
    )


def progress_line(text: str) -> None:
    """The simulator's progress bar on a terminal; in a CI log, one plain line now and then."""
    if sys.stderr.isatty():
        print(text, end="", file=sys.stderr, flush=True)
    elif text.strip():
        print(text.strip(), file=sys.stderr, flush=True)


def split(total: int, parts: int, index: int) -> int:
    """The index-th of `parts` nearly equal shares of `total`."""
    return total // parts + (1 if index < total % parts else 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--tables", type=int, default=4)
    # 100 players, 240 rounds: about a quarter of an hour on a shared 2-CPU machine, faults and races included.
    parser.add_argument("--rounds", type=int, default=240)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-every", type=float, nargs=2, default=(5.0, 20.0), metavar=("MIN", "MAX"),
                        help="seconds between two kills, drawn uniformly (5 20)")
    parser.add_argument("--duplicate-rate", type=float, default=0.10)
    parser.add_argument("--disconnect-rate", type=float, default=0.05)
    parser.add_argument("--malfunction-rate", type=float, default=0.02)
    parser.add_argument("--database-restarts", type=int, default=4)
    parser.add_argument("--broker-restarts", type=int, default=4)
    parser.add_argument("--outage", type=float, nargs="+", default=(3.0, 12.0), metavar="SECONDS",
                        help="seconds the database or broker stays down, fault after fault in turn (3 12)")
    parser.add_argument("--races", action=argparse.BooleanOptionalAction, default=True,
                        help="race bets against disconnections and the table maximum (default: on)")
    parser.add_argument("--race-rounds", type=int, default=None, help="rounds of races (default 40; --short 8)")
    parser.add_argument("--pg-port", type=int, default=55433, help="the soak's own PostgreSQL cluster")
    parser.add_argument("--redis-port", type=int, default=56380, help="the soak's own redis-server")
    parser.add_argument("--short", action="store_true",
                        help="the CI form: 32 players, 4 tables, 60 rounds, a kill every 3-8 s, one database and "
                             "one broker restart, 8 rounds of races")
    parser.add_argument("--write", action="store_true", help="also write the report to docs/soak.md")
    parser.add_argument("--hosts", type=int, default=0,
                        help="run the workers on N hosts of their own, network namespaces (bench/soak_hosts.py)")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="with --hosts: one-way delay per link (netem)")
    parser.add_argument("--relay-rtt-ms", type=float, default=None,
                        help="with --hosts 2 or more: the hosts but the first reach the database and the broker "
                             "through a relay adding this round trip (bench/soak_relay.py; no netem needed)")
    parser.add_argument("--host-kills", type=int, default=1,
                        help="with --hosts 2 or more: times every worker of one host is killed while rounds settle")
    parser.add_argument("--figures", type=Path, help="also write the run's figures as JSON (bench/soak_hosts.py)")
    args = parser.parse_args()
    if args.hosts < 2:
        args.host_kills = 0
    if args.short:
        # Small enough for make test (its length is the machine's load, mostly), with every kind of fault.
        args.players, args.rounds, args.kill_every = 32, 60, (3.0, 8.0)
        args.database_restarts, args.broker_restarts = 1, 1
    if args.race_rounds is None:
        args.race_rounds = 8 if args.short else 40
    for port in (args.pg_port, args.redis_port):
        if not port_free(port):
            raise SystemExit(f"port {port} is taken: choose another with --pg-port / --redis-port")
    network = Network(hosts=args.hosts, tag=args.pg_port, delay_ms=args.delay_ms,
                      relay_rtt_ms=args.relay_rtt_ms) if args.hosts else None
    if network:
        removed_on_signals(network)
        cluster = PgCluster(port=args.pg_port, host=network.db_address, wrap=network.wrap(network.db))
        redis = RedisServer(port=args.redis_port, host=network.db_address, wrap=network.wrap(network.db))
    else:
        cluster, redis = PgCluster(port=args.pg_port), RedisServer(port=args.redis_port)
    progress(f"soak: own PostgreSQL on port {args.pg_port}, own Redis on port {args.redis_port} ...")
    try:
        if network:
            network.create()
            progress(f"soak: {network.describe()}")
        cluster.create()
        redis.start()
        if network and network.relayed:
            network.relays_start((args.pg_port, args.redis_port))
            progress(f"soak: {network.describe()}")
        return soak(args, cluster, redis, network)
    finally:
        redis.remove()
        cluster.remove()
        if network:
            network.remove()


def soak(args, cluster: PgCluster, redis: RedisServer, network: Network | None = None) -> int:
    env = soak_env(database_url=cluster.url, redis=redis)
    os.environ.update(env)
    pg = pg_params(cluster.url)
    database_recreate(pg, pg["db"])
    version = pg_version(pg)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from bench.soak_races import Races
    from rounds.simulator.run import (
        Progress,
        SimulationConfig,
        SimulationReport,
        simulation_prepare,
        table_sims,
        tables_play_in_threads,
    )

    call_command("migrate", verbosity=0)
    connections.close_all()
    started = time.monotonic()
    env = dict(os.environ)
    hosts = network.workers if network else [None]

    def worker_on(host: str | None, **kwargs) -> Worker:
        if host and network:
            return HostWorker(host=host, env=network.env_for(host, env), **kwargs)
        return Worker(env=env, **kwargs)

    # The settlement workers dealt to the hosts in turn, and on each host, as in production (docs/operations.md),
    # one worker (solo pool) for the long tasks (RTP previews), so the settlements never wait behind them.
    settlers = [worker_on(hosts[n % len(hosts)], name=f"soak-{QUEUE}-{n + 1}", queue=QUEUE, pool=None)
                for n in range(args.workers)]
    workers = settlers + [worker_on(host, name=f"soak-{QUEUE}-long-{n + 1}", queue=long_queue(QUEUE), pool="solo")
                          for n, host in enumerate(hosts)]
    for worker in workers:
        worker.start()
    beat_log = OUTPUT / f"soak-{QUEUE}-beat.log"
    beat = subprocess.Popen(
        [*(network.wrap(network.db) if network else ()), sys.executable, "-m", "celery", "-A", "casino", "beat",
         "--loglevel", "INFO",
         "--schedule", str(OUTPUT / f"soak-{QUEUE}-beat-schedule")],
        cwd=REPO, env=env, stdout=open(beat_log, "w"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )
    chaos = Chaos(settlers, interval=tuple(args.kill_every), seed=args.seed)
    faults = (HostFaults if network else Faults)(cluster=cluster, redis=redis, workers=workers, chaos=chaos, outages=list(args.outage))
    config = SimulationConfig(
        tables=args.tables, players=args.players, rounds=args.rounds, seed=args.seed, prefix="SK",
        settle="worker", player_threads=2, disconnect_rate=args.disconnect_rate, late_disconnect_rate=0.005,
        malfunction_rate=args.malfunction_rate, pause_rate=0.01, duplicate_task_rate=args.duplicate_rate,
        settle_timeout=240.0, habit_overrides={"cash_out": 0.05, "reload": True},
    )
    # Database and broker restarts alternate, each after a stretch of play.
    kinds = [kind for n in range(max(args.database_restarts, args.broker_restarts, args.host_kills))
             for kind, count in (("database", args.database_restarts), ("broker", args.broker_restarts),
                                 ("host", args.host_kills)) if n < count]
    fault_seconds = 0.0
    failure = None
    races = None
    try:
        progress(f"soak: {args.players} players, {args.tables} tables, {args.rounds} rounds, {args.workers} prefork "
                 f"workers (one killed every {args.kill_every[0]:.0f}-{args.kill_every[1]:.0f} s), "
                 f"{args.database_restarts} database and {args.broker_restarts} broker restarts, "
                 f"races {'on' if args.races else 'off'} ...")
        began = time.monotonic()
        transport, studio, tables, players = simulation_prepare(config)
        stats: Counter = Counter()
        stats["deposited"] += sum(p.bankroll for p in players)
        bar = Progress(config.rounds + len(kinds) * args.tables, progress_line,
                       every=0.2 if sys.stderr.isatty() else 15)
        sims = table_sims(config, transport=transport, studio=studio, tables=tables, players=players, stats=stats,
                          on_round=bar.tick)
        if args.races:
            races = Races(studio=studio, transport=transport, currency=config.currency, stats=stats,
                          timers=config.table_timers)
        stretches = len(kinds) + 1
        chaos.start()
        try:
            for index in range(stretches):
                share = [split(args.rounds // len(sims) + (1 if t < args.rounds % len(sims) else 0), stretches, index)
                         for t in range(len(sims))]
                tables_play_in_threads(sims, share)
                if races:
                    for _ in range(split(args.race_rounds, stretches, index)):
                        races.round_play()
                if index < len(kinds):
                    struck = time.monotonic()
                    faults.inject(kinds[index], sims, bar, number=100_000 + index)
                    fault_seconds += time.monotonic() - struck
        finally:
            chaos.stop()
        report = SimulationReport(
            config=config, tables=[t.code for t in tables], players=players, stats=stats,
            seconds=time.monotonic() - began,
            clock_ahead_seconds=max((sim.clock.jumped.total_seconds() for sim in sims), default=0.0))
        for worker in workers:
            if not worker.alive():
                worker.start()
        sources = connection_sources(redis.url(0), cluster.log) if network else {}
        progress(f"  played in {report.seconds:.0f} s; waiting for the last settlements ...")
        done = wait_all_done(timeout=150)
        report.stats["continuations completed at their deadline"] = continuations_complete()
        progress("  verifying ...")
        results = verify(report, done=done)
        if races:
            results += races.results()
        results += [("every fault recovered from", all(f["recovered"] for f in faults.done),
                     f"{sum(1 for f in faults.done if f['recovered'])} of {len(faults.done)} faults: every round "
                     "waiting at the fault settled within 240 s of its end")]
        if chaos.error:
            results.append(("chaos thread", False, repr(chaos.error)))
    except BaseException as error:
        failure = error
        raise
    finally:
        chaos.stop_event.set()
        chaos.running.set()
        beat.terminate()
        beat.wait(timeout=30)
        for worker in workers:
            worker.freeze(False)
            worker.stop()
        if failure is None:
            counts = worker_log_counts(workers)
            by_host = settle_runs_by_host(workers) if network else {}
            settle_ms = settle_ms_by_host(workers) if network else {}
        connections.close_all()
    elapsed = time.monotonic() - started
    text = soak_report(args, report, results, counts, chaos, faults, races, elapsed, version,
                       network=network.describe() if network else None, by_host=by_host, sources=sources)
    print(text)
    passed = all(passed for _name, passed, _detail in results)
    if args.figures:
        stats = report.stats
        args.figures.write_text(json.dumps({
            "hosts": args.hosts, "workers": args.workers, "delay ms": args.delay_ms, "passed": passed,
            "relay rtt ms": args.relay_rtt_ms, "relay probe ms": network.relay_probe if network else {},
            "rounds": stats["rounds settled"] + stats["rounds voided"], "settled": stats["rounds settled"],
            "placements": stats["placements"], "play seconds": report.seconds - fault_seconds,
            "seconds": elapsed, "settle runs by host": by_host, "settle ms by host": settle_ms,
            "connections from": sources, "kills": chaos.kills, "child kills": chaos.child_kills,
            "recovery": {kind: [f["seconds"] for f in faults.done if f["kind"] == kind]
                         for kind in ("database", "broker", "host")},
            "clock lead waited before a host fault": [f["clock lead"] for f in faults.done if f["kind"] == "host"],
        }, indent=1))
    if args.write:
        soak_md = REPO / "docs" / "soak.md"
        # The two-host section (bench/soak_hosts.py) at the end of the page stays.
        soak_md.write_text(soak_page(text, soak_md.read_text() if soak_md.exists() else ""))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

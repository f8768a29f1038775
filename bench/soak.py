"""Soak test: simulated tables on PostgreSQL and Redis while workers are killed, the database and the broker
restarted, tasks delivered twice and requests raced.

    .venv/bin/python bench/soak.py [--players 100] [--tables 4] [--rounds 240] [--seed 1] [--short] [--write]
                                   [--races | --no-races] [--outage 3 12] [--pg-port 55433] [--redis-port 56380]

The soak runs a PostgreSQL cluster and a redis-server of its own (bench/soak_faults.py: own ports, data under
var/, removed at the end) with the production Celery settings: two prefork worker processes (two children each)
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
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    OUTPUT,
    REPO,
    Worker,
    bench_env,
    database_recreate,
    machine,
    percentile,
    pg_params,
    pg_version,
    progress,
)
from bench.soak_faults import PgCluster, RedisServer, port_free  # noqa: E402

QUEUE = f"soak-{os.getpid()}"
RECOVERY_GOAL_SECONDS = 10.0


def soak_env(*, database_url: str, redis: RedisServer) -> dict[str, str]:
    """The environment of every soak process: production Celery settings, the soak's own database and Redis."""
    return bench_env(
        database_url=database_url, secret_key="soak-only-not-a-secret", http_clients=True,
        CELERY_BROKER_URL=redis.url(0), CELERY_RESULT_BACKEND=redis.url(1), REDIS_URL=redis.url(2),
        CELERY_TASK_DEFAULT_QUEUE=QUEUE, CELERY_WORKER_CONCURRENCY="2",
    )


class Chaos(threading.Thread):
    """Kills, at random moments, a random worker whole or one of its pool's children, and starts it again.

    A settlement takes milliseconds, so a kill at a purely random moment mostly finds the workers idle: after
    the random wait, the kill waits (up to 3 s) for a round to be settling or refunding, so that many kills land
    while a worker holds such a task. pause() holds the kills while the database or the broker is restarted."""

    def __init__(self, workers: list[Worker], *, interval: tuple[float, float], seed: int):
        super().__init__(name="chaos", daemon=True)
        self.workers = workers
        self.interval = interval
        self.rng = random.Random(f"{seed}:chaos")
        self.stop_event = threading.Event()
        self.running = threading.Event()
        self.running.set()
        self.idle = threading.Lock()
        self.kills = 0
        self.child_kills = 0
        self.while_settling = 0
        self.error: BaseException | None = None

    def settling_now(self) -> int:
        from django.db import InterfaceError, OperationalError, connection

        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM rounds_round WHERE state = 'settling' "
                               "OR (state = 'voided' AND refunds_done_at IS NULL)")
                return cursor.fetchone()[0]
        except (OperationalError, InterfaceError):  # the connection the database restart broke
            connection.close()
            return 0

    def run(self) -> None:
        from django.db import connections

        try:
            while not self.stop_event.wait(self.rng.uniform(*self.interval)):
                self.running.wait()
                with self.idle:
                    if self.stop_event.is_set() or not self.running.is_set():
                        continue
                    worker = self.rng.choice(self.workers)
                    aim_until = time.monotonic() + 3.0
                    while not (busy := self.settling_now()) and time.monotonic() < aim_until:
                        time.sleep(0.01)
                    if self.rng.random() < 0.5 and worker.kill_child(self.rng):
                        self.child_kills += 1
                    else:
                        worker.kill()
                        self.kills += 1
                        time.sleep(self.rng.uniform(0.2, 2.0))
                        worker.start()
                    self.while_settling += 1 if busy else 0
        except BaseException as error:  # reported by the main thread
            self.error = error
        finally:
            connections.close_all()

    def pause(self) -> None:
        self.running.clear()
        with self.idle:  # a kill under way ends (and its worker is started again) first
            pass

    def resume(self) -> None:
        self.running.set()

    def stop(self) -> None:
        self.stop_event.set()
        self.running.set()
        self.join()


def progress_line(text: str) -> None:
    """The simulator's progress bar on a terminal; in a CI log, one plain line now and then."""
    if sys.stderr.isatty():
        print(text, end="", file=sys.stderr, flush=True)
    elif text.strip():
        print(text.strip(), file=sys.stderr, flush=True)


def wait_all_done(timeout: float) -> dict[str, int]:
    """Every round settled, or voided with its refunds done (the beat's recovery sweep re-queues lost work)."""
    from rounds.models import Round

    deadline = time.monotonic() + timeout
    while True:
        pending = Round.objects.exclude(state="settled").exclude(state="voided", refunds_done_at__isnull=False)
        count = pending.count()
        if not count or time.monotonic() > deadline:
            return {"pending": count, "states": dict(Counter(pending.values_list("state", flat=True)))}
        time.sleep(0.5)


def continuations_complete() -> int:
    """The positions of players who disconnected after betting closed wait, held, in a continuation until its
    deadline (a day by default); the soak does not wait a day: it runs the continuations sweep as at the last
    deadline, which completes them with the timeout rule, as production would."""
    from django.db.models import Max

    from rounds import services
    from rounds.models import Continuation

    last = Continuation.objects.filter(finished_at__isnull=True).aggregate(last=Max("deadline"))["last"]
    return len(services.continuations_sweep(now=last + timedelta(seconds=1))) if last else 0


def verify(report, *, done: dict) -> list[tuple[str, bool, str]]:
    """(check, passed, detail) for everything the soak promises."""
    from django.db.models import Count, Q, Sum

    from rounds import selectors
    from rounds.models import Round, RoundBet
    from wallet.models import Account, AccountKind, Bet, BetResolution, Entry, LedgerTransaction

    results = []
    stats = report.stats
    currency = report.config.currency

    # 1. Money: what the cashier let in minus what it paid out is still all there, to the minor unit.
    deposited, withdrawn = stats["deposited"], stats["withdrawn"]
    players_cash = Account.objects.filter(player__isnull=False, kind=AccountKind.PLAYER_CASH,
                                          currency=currency).aggregate(total=Sum("balance"))["total"] or 0

    def house(kind: str) -> int:
        return Entry.objects.filter(account__player__isnull=True, account__kind=kind,
                                    account__currency=currency).aggregate(total=Sum("amount"))["total"] or 0

    in_play, bankroll, tips = (house(AccountKind.HOUSE_BETS_IN_PLAY), house(AccountKind.HOUSE_BANKROLL),
                               house(AccountKind.HOUSE_TIPS))
    cashier = house(AccountKind.HOUSE_CASHIER)
    in_system = players_cash + in_play + bankroll + tips
    results.append((
        "money in the system = deposits - withdrawals", in_system == deposited - withdrawn == -cashier,
        f"players' cash {players_cash:,} + bets in play {in_play:,} + house bankroll {bankroll:,} + tips {tips:,} "
        f"= {in_system:,}; deposits {deposited:,} - withdrawals {withdrawn:,} = {deposited - withdrawn:,}; "
        f"the cashier's ledger: {-cashier:,} ({currency} minor units)",
    ))
    golden_players = Account.objects.filter(player__isnull=False, kind=AccountKind.PLAYER_GOLDEN_CHIPS).aggregate(
        total=Sum("balance"))["total"] or 0
    golden_house = sum(house(kind) for kind in (AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY,
                                                AccountKind.HOUSE_PROMOTIONS))
    results.append(("Golden Chips: granted - spent = held", golden_players + golden_house == 0,
                    f"players hold {golden_players:,}, promotions and chips in play {golden_house:,}"))

    # 2. No bet resolved twice; one payout per settled round, one refund per voided round.
    bets = Bet.objects.count()
    resolutions = BetResolution.objects.count()
    twice = BetResolution.objects.values("bet_id").annotate(n=Count("*")).filter(n__gt=1).count()
    unresolved = Bet.objects.filter(resolution__isnull=True).count()
    # A continued position is paid by its continuation, after the live round's payout (its own key, once each).
    payouts = (LedgerTransaction.objects.filter(kind="payout").exclude(idempotency_key__contains=":continuation")
               .values("reference").annotate(n=Count("id")).filter(n__gt=1).count())
    # A void refunds in batches of players (one transaction each), so a round has several refunds; a stake
    # refunded twice would be a bet resolved twice, counted above.
    round_bets_unresolved = RoundBet.objects.filter(wallet_bet__resolution__isnull=True).count()
    results.append((
        "no bet resolved twice", twice == 0 and payouts == 0 and unresolved == 0,
        f"{bets:,} bets, {resolutions:,} resolutions, {twice} resolved twice, {unresolved} unresolved "
        f"({round_bets_unresolved} of them round bets); rounds with more than one payout: {payouts}",
    ))

    # 3. Every round ended.
    states = Counter(Round.objects.values_list("state", flat=True))
    unrefunded = Round.objects.filter(state="voided", refunds_done_at__isnull=True).count()
    void_kinds = Counter(Round.objects.filter(state="voided").values_list("void_kind", flat=True))
    results.append((
        "every round settled or voided", done["pending"] == 0 and unrefunded == 0 and set(states) <= {
            "settled", "voided"},
        f"{states.get('settled', 0):,} settled, {states.get('voided', 0):,} voided "
        f"({', '.join(f'{n} {k}' for k, n in sorted(void_kinds.items()))}), {unrefunded} voided without refunds, "
        f"still open: {done['states'] or 'none'}",
    ))

    # 4. Never a negative balance: every running balance the ledger ever recorded, and every balance now.
    negative_entries = Entry.objects.filter(account__player__isnull=False, balance_after__lt=0).count()
    negative_now = Account.objects.filter(Q(balance__lt=0)).count()
    player_entries = Entry.objects.filter(account__player__isnull=False).count()
    results.append(("no player balance ever negative", negative_entries == 0 and negative_now == 0,
                    f"{player_entries:,} player entries checked: {negative_entries} with a negative balance after "
                    f"them; {negative_now} accounts negative now"))

    # 5. The ledger audit, as operators run it.
    audit = subprocess.run([sys.executable, "manage.py", "ledger_audit"], cwd=REPO, env=os.environ,
                           capture_output=True, text=True)
    results.append(("`manage.py ledger_audit` clean", audit.returncode == 0,
                    (audit.stdout.strip() or audit.stderr.strip()).splitlines()[-1] if (
                        audit.stdout.strip() or audit.stderr.strip()) else f"exit {audit.returncode}"))

    # 6. Every settled round replays from its audit trail to exactly what the wallet paid.
    mismatched = []
    settled = Round.objects.filter(state="settled").order_by("id")
    for round in settled:
        replay = selectors.round_replay(round=round)
        if not replay.matches:
            mismatched.append(round.game_number)
    results.append(("every settled round replays to what was paid", not mismatched,
                    f"{settled.count():,} replayed, {len(mismatched)} differ {mismatched[:5] or ''}".strip()))
    return results


def worker_log_counts(workers: list[Worker]) -> dict[str, int]:
    """What the workers' logs say they did: task runs, runs that found nothing to do, sweep re-queues."""
    lines = [line for worker in workers for line in worker.log().splitlines() if "succeeded in" in line]

    def runs(task: str, *, no_op: bool = False) -> int:
        return sum(1 for line in lines if f"{task}[" in line and (not no_op or line.rstrip().endswith("False")))

    counts = {"settle runs": runs("round_settle"), "settle no-ops": runs("round_settle", no_op=True),
              "void runs": runs("round_void_refunds"), "void no-ops": runs("round_void_refunds", no_op=True)}
    # A task a killed worker had taken comes back with the same id: received more than once.
    received = Counter(line.split("[", 1)[1].split("]", 1)[0] for worker in workers
                       for line in worker.log().splitlines()
                       if "Task rounds.tasks.round_" in line and " received" in line and "[" in line)
    counts["redelivered"] = sum(1 for n in received.values() if n > 1)
    requeued = 0
    for line in lines:
        if "rounds_recovery_sweep[" in line and "succeeded" in line:
            part = line.split("'settling': [", 1)[-1].split("]", 1)[0]
            refunds = line.split("'refunds': [", 1)[-1].split("]", 1)[0]
            requeued += len([x for x in part.split(",") if x.strip()]) + len([x for x in refunds.split(",")
                                                                             if x.strip()])
    counts["re-queued by the recovery sweep"] = requeued
    return counts


class Faults:
    """Database restarts and broker restarts, each between two stretches of play, and the recovery after each."""

    def __init__(self, *, cluster: PgCluster, redis: RedisServer, workers: list[Worker], chaos: Chaos,
                 outages: list[float]):
        self.cluster = cluster
        self.redis = redis
        self.workers = workers
        self.chaos = chaos
        self.outages = outages  # seconds down, fault after fault in turn
        self.done: list[dict] = []

    def inject(self, kind: str, sims, bar, number: int) -> None:
        """Every table plays a round up to the dealer's complete hand; the studio completes them all and the
        fault lands while they settle (database) or while their settlements wait on the queue (broker)."""
        from django.db import connections

        from rounds.simulator.threads import parallel

        self.chaos.pause()
        for worker in self.workers:
            if not worker.alive():
                worker.start()
        plays = parallel(sims, lambda sim: (sim, sim.play_round(number, until="dealer_complete")), threads=len(sims))
        pending = [(sim, play) for sim, play in plays if sim.state_of(play.ref) == "dealer"]
        ids = [play.ref.id for _sim, play in pending]
        if kind == "broker":
            for worker in self.workers:
                worker.freeze(True)
        parallel(pending, lambda item: item[0].transport.dealer_complete(studio=item[0].studio, round=item[1].ref,
                                                                         now=item[0].now()), threads=len(sims))
        settling = rounds_waiting(ids)
        outage = self.outages[sum(1 for f in self.done if f["kind"] == kind) % len(self.outages)]
        if kind == "database":
            self.cluster.stop_immediate()
            time.sleep(outage)
            self.cluster.start()
        else:
            self.redis.kill()
            # The workers live through the outage (what is already in their sockets runs, the rest is lost) and
            # try to reach the broker again while it is away, as they would in production.
            for worker in self.workers:
                worker.freeze(False)
            time.sleep(outage)
            self.redis.start()
        back = time.monotonic()
        connections.close_all()
        deadline = back + 240
        while (waiting := rounds_waiting(ids)) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.done.append({"kind": kind, "rounds": len(ids), "settling at the fault": settling, "outage": outage,
                          "recovered": not waiting, "seconds": time.monotonic() - back})
        for sim, play in pending:
            sim.round_finish(play.ref)
            sim.after_round(play)
            if sim.shoe is not None and sim.shoe.cut_card_reached:
                sim.shoe_new()
            bar.tick(sim.state_of(play.ref))
        self.chaos.resume()

    def lines(self) -> list[str]:
        out = []
        for kind, what in (("database", "PostgreSQL stopped (`pg_ctl stop -m immediate`) while rounds settled"),
                           ("broker", "Redis killed (SIGKILL, nothing persisted) with settlements queued")):
            runs = [f for f in self.done if f["kind"] == kind]
            if not runs:
                continue
            seconds = [f["seconds"] for f in runs]
            downs = sorted({f["outage"] for f in runs})
            out.append(
                f"| {what}, started again {' or '.join(f'{d:.0f}' for d in downs)} s later | {len(runs)} | "
                f"{sum(f['rounds'] for f in runs)} rounds waiting ({sum(f['settling at the fault'] for f in runs)} "
                f"not settled at the fault) | {min(seconds):.1f} / {percentile(seconds, 0.5):.1f} / "
                f"{max(seconds):.1f} s | {'met' if max(seconds) < RECOVERY_GOAL_SECONDS else '**not met**'} |")
        return out


def rounds_waiting(ids: list[int]) -> int:
    """How many of these rounds are not yet settled, or voided with their refunds done (retries while the
    database comes back)."""
    from django.db import InterfaceError, OperationalError, connections

    from rounds.models import Round

    for _attempt in range(100):
        try:
            return (Round.objects.filter(pk__in=ids).exclude(state="settled")
                    .exclude(state="voided", refunds_done_at__isnull=False).count())
        except (OperationalError, InterfaceError):
            connections.close_all()
            time.sleep(0.1)
    raise SystemExit("the soak's database did not come back")


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
    args = parser.parse_args()
    if args.short:
        # Small enough for make test (its length is the machine's load, mostly), with every kind of fault.
        args.players, args.rounds, args.kill_every = 32, 60, (3.0, 8.0)
        args.database_restarts, args.broker_restarts = 1, 1
    if args.race_rounds is None:
        args.race_rounds = 8 if args.short else 40
    for port in (args.pg_port, args.redis_port):
        if not port_free(port):
            raise SystemExit(f"port {port} is taken: choose another with --pg-port / --redis-port")
    cluster, redis = PgCluster(port=args.pg_port), RedisServer(port=args.redis_port)
    progress(f"soak: own PostgreSQL on port {args.pg_port}, own Redis on port {args.redis_port} ...")
    try:
        cluster.create()
        redis.start()
        return soak(args, cluster, redis)
    finally:
        redis.remove()
        cluster.remove()


def soak(args, cluster: PgCluster, redis: RedisServer) -> int:
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
    workers = [Worker(name=f"soak-{QUEUE}-{n + 1}", queue=QUEUE, env=env, pool=None) for n in range(args.workers)]
    for worker in workers:
        worker.start()
    beat_log = OUTPUT / f"soak-{QUEUE}-beat.log"
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "beat", "--loglevel", "INFO",
         "--schedule", str(OUTPUT / f"soak-{QUEUE}-beat-schedule")],
        cwd=REPO, env=env, stdout=open(beat_log, "w"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )
    chaos = Chaos(workers, interval=tuple(args.kill_every), seed=args.seed)
    faults = Faults(cluster=cluster, redis=redis, workers=workers, chaos=chaos, outages=list(args.outage))
    config = SimulationConfig(
        tables=args.tables, players=args.players, rounds=args.rounds, seed=args.seed, prefix="SK",
        settle="worker", player_threads=2, disconnect_rate=args.disconnect_rate, late_disconnect_rate=0.005,
        malfunction_rate=args.malfunction_rate, pause_rate=0.01, duplicate_task_rate=args.duplicate_rate,
        settle_timeout=240.0, habit_overrides={"cash_out": 0.05, "reload": True},
    )
    # Database and broker restarts alternate, each after a stretch of play.
    kinds = [kind for n in range(max(args.database_restarts, args.broker_restarts))
             for kind, count in (("database", args.database_restarts), ("broker", args.broker_restarts)) if n < count]
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
                    faults.inject(kinds[index], sims, bar, number=100_000 + index)
        finally:
            chaos.stop()
        report = SimulationReport(
            config=config, tables=[t.code for t in tables], players=players, stats=stats,
            seconds=time.monotonic() - began,
            clock_ahead_seconds=max((sim.clock.jumped.total_seconds() for sim in sims), default=0.0))
        for worker in workers:
            if not worker.alive():
                worker.start()
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
        connections.close_all()
    elapsed = time.monotonic() - started
    text = soak_report(args, report, results, counts, chaos, faults, races, elapsed, version)
    print(text)
    if args.write:
        (REPO / "docs" / "soak.md").write_text(text)
    return 0 if all(passed for _name, passed, _detail in results) else 1


def soak_report(args, report, results, counts, chaos: Chaos, faults: Faults, races, elapsed: float,
                version: str) -> str:
    stats = report.stats
    rounds = stats["rounds settled"] + stats["rounds voided"]
    player_rounds = stats["player rounds"]
    voids = sum(n for name, n in stats.items() if name.startswith("malfunction voids"))
    lines = [
        f"# Soak test{' (short form, as CI runs it)' if args.short else ''}",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `bench/soak.py{' --short' if args.short else ''}` on "
        f"{machine()}, {version} and Redis of its own; {elapsed:.0f} s in all.",
        "",
        "## What was injected",
        "",
        "| Injection | Asked for | Happened |",
        "|---|---|---|",
        f"| Celery workers competing for one queue, production settings | {args.workers} | {args.workers} "
        "(prefork, 2 children each), plus one beat |",
        f"| A worker (whole, or one pool child) killed with SIGKILL | every {args.kill_every[0]:.0f}-"
        f"{args.kill_every[1]:.0f} s | {chaos.kills} workers killed and restarted, {chaos.child_kills} children "
        f"killed ({chaos.while_settling} of all kills while a settlement or refund was pending) |",
        f"| PostgreSQL stopped (`-m immediate`) while rounds settle, and the broker (Redis) killed with "
        f"settlements queued | {args.database_restarts}, {args.broker_restarts} | "
        f"{sum(1 for f in faults.done if f['kind'] == 'database')}, "
        f"{sum(1 for f in faults.done if f['kind'] == 'broker')} (below) |",
        f"| Races: bets against a disconnection, main bets against the table maximum | "
        f"{f'{args.race_rounds} rounds' if args.races else 'off (--races)'} | "
        f"{races.counts['race rounds'] if races else 0} rounds |",
        f"| Settle/void tasks delivered twice | {args.duplicate_rate:.0%} of rounds | "
        f"{stats['settlement tasks delivered twice']} of {rounds} rounds |",
        f"| Players disconnecting while betting is open | {args.disconnect_rate:.0%} of player rounds | "
        f"{stats['disconnects during betting (refunded)']} of {player_rounds} |",
        f"| Rounds voided as malfunctions | {args.malfunction_rate:.0%} | {voids} of {rounds} |",
        f"| Also: disconnects after betting closed, paused tables | | "
        f"{stats['disconnects after betting (played by timeout)']} (their continuations completed at the deadline: "
        f"{stats['continuations completed at their deadline']}), {stats['table pauses']} |",
        "",
        f"The table simulator played {rounds:,} rounds at {args.tables} tables with {args.players} players "
        f"(seed {args.seed}) in {report.seconds:.0f} s: {stats['placements']:,} placements, "
        f"{sum(n for k, n in stats.items() if k.startswith('decisions: ')):,} decisions, {stats['cards']:,} cards, "
        f"{stats['tips']} tips, {stats['deposits (reloads)']} reloads, {stats['withdrawals']} withdrawals. "
        f"The workers ran round_settle {counts['settle runs']:,} times ({counts['settle no-ops']:,} found the round "
        f"already settled: duplicates and redeliveries) and round_void {counts['void runs']:,} times "
        f"({counts['void no-ops']:,} no-ops); {counts['redelivered']} tasks taken by a killed worker were delivered "
        f"again (same task id), and the recovery sweep re-queued {counts['re-queued by the recovery sweep']} "
        "settlements or refunds left behind.",
        "",
        "## Recovery after each fault",
        "",
        "From the moment the database or the broker is back until every round that was waiting at the fault is "
        f"settled (the goal: under {RECOVERY_GOAL_SECONDS:.0f} s). Every table's round is completed by the dealer "
        "at once; PostgreSQL is stopped (`-m immediate`) while they settle, or Redis is killed (SIGKILL, nothing "
        "persisted) while their settlements wait on the queue, with the workers alive and trying to reconnect "
        "throughout. After a database restart the settle tasks' own retries (at most 2 s apart) bring the rounds "
        "back; after a broker restart the settlements are lost, and the sweep each worker queues once it is back "
        "on the broker (tried every second) queues them again.",
        "",
        "| Fault | Times | Rounds | Recovery min / median / max | Goal |",
        "|---|---|---|---|---|",
        *faults.lines(),
        "",
        "## What was verified",
        "",
        "| Check | Result | Detail |",
        "|---|---|---|",
    ]
    for name, passed, detail in results:
        lines.append(f"| {name} | {'passed' if passed else '**FAILED**'} | {detail} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""Soak test: simulated tables on PostgreSQL and Redis while Celery workers are killed and tasks delivered twice.

    .venv/bin/python bench/soak.py [--players 200] [--tables 4] [--rounds 1000] [--seed 1] [--short] [--write]

Two real Celery worker processes compete for one queue (and one beat process runs the timer and recovery sweeps,
as in production). While the table simulator plays the rounds through the services, a chaos thread kills a worker
with SIGKILL at random moments and starts it again; the simulator sends 10 % of the settle/void tasks a second
time, 5 % of the players disconnect while betting is open and 2 % of the rounds are voided as malfunctions.
Afterwards it verifies, from the database and the simulator's own log of the cashier:

- the money in the system (player cash, bets in play, the house's bankroll and tips) equals deposits minus
  withdrawals, to the minor unit, and the cashier's ledger says the same;
- no bet is resolved twice, and no round has more than one payout or refund;
- every round is settled, or voided with its refunds done;
- no player balance was ever negative (every entry's balance afterwards, and every balance now);
- `manage.py ledger_audit` is clean, and every settled round replays from its audit trail to what was paid.

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
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    OUTPUT,
    REPO,
    Worker,
    database_drop,
    database_recreate,
    machine,
    pg_params,
    pg_version,
    progress,
    queue_purge,
)

SOAK_URL = os.environ.get("SOAK_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/casino_soak")
BROKER_URL = os.environ.get("SOAK_BROKER_URL", "redis://127.0.0.1:6379/0")
QUEUE = f"soak-{os.getpid()}"
ENV = dict(
    DATABASE_URL=SOAK_URL, CELERY_BROKER_URL=BROKER_URL, CELERY_RESULT_BACKEND=BROKER_URL[:-1] + "1",
    CELERY_TASK_DEFAULT_QUEUE=QUEUE, DEBUG="0", SECRET_KEY="soak-only-not-a-secret", LOG_LEVEL="WARNING",
    FAST_PASSWORD_HASHER="1", DJANGO_SETTINGS_MODULE="casino.settings",
    # A message taken by a worker that is then killed comes back to the queue after this many seconds.
    CELERY_VISIBILITY_TIMEOUT="20",
)
os.environ.update(ENV)


class Chaos(threading.Thread):
    """Kills a random worker with SIGKILL at random moments and starts it again, until stopped.

    A settlement takes milliseconds, so a kill at a purely random moment mostly finds the workers idle: after
    the random wait, the kill waits (up to 3 s) for a round to be settling or refunding, so that many kills land
    while a worker holds such a task."""

    def __init__(self, workers: list[Worker], *, interval: tuple[float, float], seed: int):
        super().__init__(name="chaos", daemon=True)
        self.workers = workers
        self.interval = interval
        self.rng = random.Random(f"{seed}:chaos")
        self.stop_event = threading.Event()
        self.kills = 0
        self.while_settling = 0
        self.error: BaseException | None = None

    def settling_now(self) -> int:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM rounds_round WHERE state = 'settling' "
                           "OR (state = 'voided' AND refunds_done_at IS NULL)")
            return cursor.fetchone()[0]

    def run(self) -> None:
        from django.db import connections

        try:
            while not self.stop_event.wait(self.rng.uniform(*self.interval)):
                worker = self.rng.choice(self.workers)
                aim_until = time.monotonic() + 3.0
                while not (busy := self.settling_now()) and time.monotonic() < aim_until:
                    time.sleep(0.01)
                worker.kill()
                self.kills += 1
                self.while_settling += 1 if busy else 0
                time.sleep(self.rng.uniform(0.2, 2.0))
                worker.start()
        except BaseException as error:  # reported by the main thread
            self.error = error
        finally:
            connections.close_all()

    def stop(self) -> None:
        self.stop_event.set()
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
    payouts = (LedgerTransaction.objects.filter(kind="payout").values("reference").annotate(n=Count("id"))
               .filter(n__gt=1).count())
    round_refunds = (LedgerTransaction.objects.filter(kind="refund", idempotency_key__regex=r"^round\d+:void$")
                     .values("reference").annotate(n=Count("id")).filter(n__gt=1).count())
    round_bets_unresolved = RoundBet.objects.filter(wallet_bet__resolution__isnull=True).count()
    results.append((
        "no bet resolved twice", twice == 0 and payouts == 0 and round_refunds == 0 and unresolved == 0,
        f"{bets:,} bets, {resolutions:,} resolutions, {twice} resolved twice, {unresolved} unresolved "
        f"({round_bets_unresolved} of them round bets); rounds with more than one payout: {payouts}, "
        f"with more than one void refund: {round_refunds}",
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
    audit = subprocess.run([sys.executable, "manage.py", "ledger_audit"], cwd=REPO, env={**os.environ, **ENV},
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-every", type=float, nargs=2, default=(5.0, 20.0), metavar=("MIN", "MAX"),
                        help="seconds between two kills, drawn uniformly (5 20)")
    parser.add_argument("--duplicate-rate", type=float, default=0.10)
    parser.add_argument("--disconnect-rate", type=float, default=0.05)
    parser.add_argument("--malfunction-rate", type=float, default=0.02)
    parser.add_argument("--short", action="store_true",
                        help="the CI form: 48 players, 4 tables, 160 rounds, a kill every 3-8 s")
    parser.add_argument("--write", action="store_true", help="also write the report to docs/soak.md")
    args = parser.parse_args()
    if args.short:
        args.players, args.rounds, args.kill_every = 48, 160, (3.0, 8.0)
        os.environ["SOAK_DATABASE_URL"] = SOAK_URL + "_short"
    url = os.environ.get("SOAK_DATABASE_URL", SOAK_URL)
    os.environ["DATABASE_URL"] = ENV["DATABASE_URL"] = url
    pg = pg_params(url)
    version = pg_version(pg)
    database_recreate(pg, pg["db"])

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from casino.celery import app
    from rounds.simulator import SimulationConfig, simulation_run

    call_command("migrate", verbosity=0)
    connections.close_all()
    started = time.monotonic()
    env = {**os.environ, **ENV}
    workers = [Worker(name=f"soak-{QUEUE}-{n + 1}", queue=QUEUE, env=env) for n in range(args.workers)]
    for worker in workers:
        worker.start()
    beat_log = OUTPUT / f"soak-{QUEUE}-beat.log"
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "beat", "--loglevel", "INFO",
         "--schedule", str(OUTPUT / f"soak-{QUEUE}-beat-schedule")],
        cwd=REPO, env=env, stdout=open(beat_log, "w"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )
    chaos = Chaos(workers, interval=tuple(args.kill_every), seed=args.seed)
    config = SimulationConfig(
        tables=args.tables, players=args.players, rounds=args.rounds, seed=args.seed, prefix="SK",
        settle="worker", player_threads=2, disconnect_rate=args.disconnect_rate, late_disconnect_rate=0.005,
        malfunction_rate=args.malfunction_rate, pause_rate=0.01, duplicate_task_rate=args.duplicate_rate,
        settle_timeout=240.0, habit_overrides={"cash_out": 0.05, "reload": True},
    )
    failure = None
    try:
        progress(f"soak: {args.players} players, {args.tables} tables, {args.rounds} rounds, "
                 f"{args.workers} workers (one killed every {args.kill_every[0]:.0f}-{args.kill_every[1]:.0f} s) ...")
        chaos.start()
        try:
            report = simulation_run(config, progress=progress_line, progress_every=0.2 if sys.stderr.isatty() else 15)
        finally:
            chaos.stop()
        for worker in workers:
            if not worker.alive():
                worker.start()
        progress(f"  played in {report.seconds:.0f} s; waiting for the last settlements ...")
        done = wait_all_done(timeout=150)
        progress("  verifying ...")
        results = verify(report, done=done)
        if chaos.error:
            results.append(("chaos thread", False, repr(chaos.error)))
    except BaseException as error:
        failure = error
        raise
    finally:
        chaos.stop_event.set()
        beat.terminate()
        beat.wait(timeout=30)
        for worker in workers:
            worker.stop()
        if failure is None:
            counts = worker_log_counts(workers)
        queue_purge(app, QUEUE)
        connections.close_all()
    elapsed = time.monotonic() - started
    text = soak_report(args, report, results, counts, chaos, elapsed, version)
    print(text)
    if args.write:
        (REPO / "docs" / "soak.md").write_text(text)
    database_drop(pg, pg["db"])
    return 0 if all(passed for _name, passed, _detail in results) else 1


def soak_report(args, report, results, counts, chaos: Chaos, elapsed: float, version: str) -> str:
    stats = report.stats
    rounds = stats["rounds settled"] + stats["rounds voided"]
    player_rounds = stats["player rounds"]
    voids = sum(n for name, n in stats.items() if name.startswith("malfunction voids"))
    lines = [
        f"# Soak test{' (short form, as CI runs it)' if args.short else ''}",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `bench/soak.py{' --short' if args.short else ''}` on "
        f"{machine()}, {version}, Redis; {elapsed:.0f} s in all.",
        "",
        "## What was injected",
        "",
        "| Injection | Asked for | Happened |",
        "|---|---|---|",
        f"| Celery workers competing for one queue | {args.workers} | {args.workers} (`--pool solo`), plus one beat |",
        f"| A worker killed with SIGKILL, then restarted | every {args.kill_every[0]:.0f}-{args.kill_every[1]:.0f} s "
        f"| {chaos.kills} kills ({chaos.while_settling} while a settlement or refund was pending) |",
        f"| Settle/void tasks delivered twice | {args.duplicate_rate:.0%} of rounds | "
        f"{stats['settlement tasks delivered twice']} of {rounds} rounds |",
        f"| Players disconnecting while betting is open | {args.disconnect_rate:.0%} of player rounds | "
        f"{stats['disconnects during betting (refunded)']} of {player_rounds} |",
        f"| Rounds voided as malfunctions | {args.malfunction_rate:.0%} | {voids} of {rounds} |",
        f"| Also: disconnects after betting closed, paused tables | | "
        f"{stats['disconnects after betting (played by timeout)']}, {stats['table pauses']} |",
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

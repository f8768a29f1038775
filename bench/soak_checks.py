"""What the soak verifies once play ends: every round ended (the continuations completed as at their deadline),
money to the minor unit, no bet resolved twice, no negative balance, a clean ledger audit, every settled round
replaying to what was paid; and what the workers' logs say they did."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta

from bench.common import REPO, Worker


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

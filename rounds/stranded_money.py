"""The rounds' part of the ledger audit: money held for a round that will not let it go.

The ledger can be sound (every sum right) while a stake sits in the house's in-play account for ever: a round
that settled or was refunded without resolving one of its bets, a spot voided without its refund, a round stuck
settling or waiting for its refunds. rounds.apps registers this check with wallet.audit, so `ledger_audit`
reports it and the operator dashboard shows it.
"""

from collections import defaultdict
from datetime import datetime, timedelta

from django.db.models import Count, Exists, Min, OuterRef, Q, Sum

from rounds.models import ACTIVE_STATES, Continuation, Round, RoundBet, RoundState, Spot
from wallet.audit import AuditQueries, Discrepancy
from wallet.compiled_query import CompiledQuery
from wallet.currencies import money_format
from wallet.models import BetResolution

# The recovery sweep queues a settle or a refund again after 5 seconds: one still not done after this is stuck.
STUCK_AFTER = timedelta(minutes=5)
# A round is played in minutes; stakes held in one still in play after this long are stranded.
HELD_TOO_LONG = timedelta(hours=1)


def _when(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M:%S} UTC"


def _age(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} hours"
    return f"{hours // 24} days"


def _money(totals: dict[str, int]) -> str:
    return " and ".join(money_format(amount, currency) for currency, amount in sorted(totals.items()))


def _bets(count: int) -> str:
    return f"{count} bet{'s' if count != 1 else ''}"


class _Held:
    """The unresolved stakes of one round (or one spot): per currency, how many bets, since when."""

    def __init__(self):
        self.totals: dict[str, int] = defaultdict(int)
        self.count = 0
        self.since: datetime | None = None

    def add(self, currency: str, total: int, count: int, since: datetime) -> None:
        self.totals[currency] += total
        self.count += count
        self.since = since if self.since is None else min(self.since, since)

    def text(self) -> str:
        return f"{_money(self.totals)} ({_bets(self.count)})"


# Unresolved stakes by round, spot and currency. A position in a non-live continuation keeps its stakes held after
# the live round settles, rightly, until the continuation settles: at the latest at its deadline (then the sweep has
# STUCK_AFTER to finish it). The round's state comes along (one per round), so that only the rounds a message may
# name are loaded.
_PENDING_STAKES = CompiledQuery(lambda open_after: (
    RoundBet.objects.filter(
        ~Exists(BetResolution.objects.filter(bet_id=OuterRef("wallet_bet_id"))),
        ~Exists(Continuation.objects.filter(spot_id=OuterRef("spot_id"), finished_at__isnull=True,
                                            deadline__gt=open_after)))
    .values_list("round_id", "spot_id", "spot__voided_at", "currency", "round__state")
    .annotate(total=Sum("amount"), count=Count("id"), since=Min("created_at"))
    .order_by()
), "open_after")


def _stuck(stuck_before: datetime) -> Q:
    return (Q(state=RoundState.SETTLING, settling_at__lte=stuck_before)
            | Q(state=RoundState.VOIDED, refunds_done_at__isnull=True, voided_at__lte=stuck_before))


_STUCK = CompiledQuery(lambda stuck_before: Round.objects.filter(_stuck(stuck_before)).values_list("pk"),
                       "stuck_before")


def _pending_stakes(rows: list) -> tuple[dict[int, _Held], dict[int, _Held], dict[int, str]]:
    """Unresolved stakes by round (spots not voided) and by voided spot, and each round's state, from one pass over
    the round bets."""
    by_round: dict[int, _Held] = defaultdict(_Held)
    by_voided_spot: dict[int, _Held] = defaultdict(_Held)
    states: dict[int, str] = {}
    for round_id, spot_id, spot_voided_at, currency, state, total, count, since in rows:
        target = by_voided_spot[spot_id] if spot_voided_at is not None else by_round[round_id]
        target.add(currency, total, count, since)
        states[round_id] = state
    return by_round, by_voided_spot, states


def _spot_text(spot: Spot) -> str:
    who = spot.player.get_username()
    if spot.seat is None:
        return f"{who}'s hand"
    return f"{who}'s Bet Behind on seat {spot.seat}" if spot.behind else f"{who}'s seat {spot.seat}"


def _round_ids(round: Round, **more) -> dict:
    return {"round": round.pk, "game_number": round.game_number, **more}


def stranded_money_check(*, now: datetime) -> AuditQueries:
    """Stakes still held in a round that is settled, refunded or long in play; on a voided spot; and rounds
    stuck settling or waiting for their refunds."""
    stuck_before = now - STUCK_AFTER
    pending_rows, stuck_rows = yield [_PENDING_STAKES(open_after=stuck_before), _STUCK(stuck_before=stuck_before)]
    by_round, by_voided_spot, states = _pending_stakes(pending_rows)
    stuck = {r.pk: r for r in Round.objects.filter(_stuck(stuck_before)).select_related("table")} if stuck_rows else {}
    spots = Spot.objects.select_related("player").in_bulk(list(by_voided_spot))
    # Only the rounds a message below may name are loaded: settled or voided, or in play with an old stake.
    named = {round_id for round_id, held in by_round.items() if states[round_id] in (RoundState.SETTLED, RoundState.VOIDED)
             or (states[round_id] in ACTIVE_STATES and held.since <= now - HELD_TOO_LONG)}
    rounds = Round.objects.select_related("table").in_bulk(named | {spot.round_id for spot in spots.values()})
    rounds.update(stuck)
    found = []
    for round_id, held in sorted(by_round.items()):
        if round_id not in rounds:
            continue
        round = rounds[round_id]
        message = None
        if round.state == RoundState.SETTLED:
            message = (f"Round {round.game_number} at table {round.table.code} was settled at "
                       f"{_when(round.settled_at)}, yet {held.text()} of its stakes are still held.")
        elif round.state == RoundState.VOIDED and round.refunds_done_at is not None:
            message = (f"Round {round.game_number} at table {round.table.code} was voided and its refunds marked "
                       f"done at {_when(round.refunds_done_at)}, yet {held.text()} of its stakes are still held.")
        elif round.state in ACTIVE_STATES and held.since <= now - HELD_TOO_LONG:
            # Measured from the oldest stake, not the round's start: a round paused for an hour and then bet on
            # holds nothing stranded.
            message = (f"Round {round.game_number} at table {round.table.code} is still "
                       f"{round.get_state_display().lower()}, and {held.text()} of its stakes have been held since "
                       f"{_when(held.since)} ({_age(now - held.since)}).")
        if message:
            found.append(Discrepancy("round_stakes_held", message, _round_ids(round), since=held.since))
    for spot_id, held in sorted(by_voided_spot.items()):
        spot = spots[spot_id]
        round = rounds[spot.round_id]
        found.append(Discrepancy(
            "voided_spot_stakes_held",
            f"A spot of round {round.game_number} at table {round.table.code} ({_spot_text(spot)}) was voided at "
            f"{_when(spot.voided_at)}, yet its {held.text()} was never refunded and is still held.",
            _round_ids(round, spot=spot_id), since=spot.voided_at,
        ))
    for round_id, round in sorted(stuck.items()):
        held = by_round.get(round_id)
        money = f"{held.text()} of stakes are held until it is" if held else "no stake is held in it"
        if round.state == RoundState.SETTLING:
            message = (f"Round {round.game_number} at table {round.table.code} has been settling since "
                       f"{_when(round.settling_at)} ({_age(now - round.settling_at)}) and is not settled; {money}.")
            since = round.settling_at
        else:
            money = f"{held.text()} of stakes wait for their refund" if held else "no stake is held in it"
            message = (f"Round {round.game_number} at table {round.table.code} was voided at "
                       f"{_when(round.voided_at)} ({_age(now - round.voided_at)} ago) and its refunds are not "
                       f"done; {money}.")
            since = round.voided_at
        found.append(Discrepancy("round_stuck", message, _round_ids(round, state=round.state), since=since))
    return found

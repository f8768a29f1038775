"""A player's game history: every round they held a spot in (a voided spot too), newest first, with what they
staked, got back and won or lost. The player's pages, their CSV, the staff's player page and the game client's
API all read it here, so they tell the same result.

A round's result is the settled net of the player's spots, "voided" with the stakes refunded, or "in play".
Everything reads by keyset on the round id through the index rounds_spot_player_round, never by offset.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from rounds.continuation_page import continuation_nets
from rounds.labels import bet_label
from rounds.models import Round, RoundBet, RoundState, Spot, VoidKind
from rounds.reversal import round_reversal_moves
from wallet.models import AccountKind

GAME_HISTORY_PAGE = 20
GAME_HISTORY_MAX_PAGE = 100



@dataclass(frozen=True)
class GameRow:
    round: Round
    bets: list[tuple[str, str, int]]  # (label, currency, total stake) per bet type
    staked: dict[str, int]  # currency -> total stake
    returned: dict[str, int]  # currency -> cash returned so far
    net: dict[str, int] | None  # currency -> settled net, once settled
    spot_nets: dict[str, int] | None  # spot label -> settled net, once settled (the same money, by spot)
    result: str

    def __getattr__(self, name: str) -> Any:
        # The API's serializers read the round's own fields (game_number, state...) straight from the row.
        if name == "round":
            raise AttributeError(name)
        return getattr(self.round, name)


@dataclass(frozen=True)
class GameHistoryPage:
    rows: list[GameRow]
    next_before: int | None


def game_rows(*, player, rounds: list[Round]) -> list[GameRow]:
    """The history rows of these rounds for this player: one query for their bets, one for voided spots."""
    ids = [r.pk for r in rounds]
    bets: dict[int, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    staked: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    returned: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for round_id, kind, currency, amount, cash in (
        RoundBet.objects.filter(round_id__in=ids, spot__player=player)
        .values_list("round_id", "kind", "currency", "amount", "wallet_bet__resolution__cash_return")
    ):
        bets[round_id][(bet_label(kind), currency)] += amount
        staked[round_id][currency] += amount
        returned[round_id][currency] += cash or 0
    voided_spots = set(Spot.objects.filter(round_id__in=ids, player=player, voided_at__isnull=False)
                       .values_list("round_id", flat=True))
    # Only a round whose settlement marks one of the player's spots as continued has a continuation to read.
    continued_ids = [r.pk for r in rounds if r.settlement and any(
        data.get("continuation") and data["player"] == player.pk for data in r.settlement["spots"].values())]
    continued = continuation_nets(player=player, round_ids=continued_ids) if continued_ids else {}
    rows = []
    for r in rounds:
        net = spot_nets = None
        continuing = False
        if r.state == RoundState.SETTLED and r.settlement:
            spot_nets = {label: data["net"] for label, data in r.settlement["spots"].items()
                         if data["player"] == player.pk}
            by_currency: dict[str, int] = defaultdict(int)
            for label, data in r.settlement["spots"].items():
                if label in spot_nets:
                    by_currency[data["currency"]] += data["net"]
            # The live round settled only the side bets of a position that left it; the rest is its
            # continuation's, settled apart (and not at all while the player has not finished it).
            for label, currency, amount in continued.get(r.pk, []):
                if amount is None:
                    continuing = True
                    continue
                spot_nets[label] = spot_nets.get(label, 0) + amount
                by_currency[currency] += amount
            net = None if continuing else dict(by_currency)
            spot_nets = None if continuing else spot_nets
        if r.state == RoundState.VOIDED and r.void_kind == VoidKind.REVERSAL:
            result, net = _reversed(r, player=player, returned=returned[r.pk])
        elif r.state == RoundState.VOIDED:
            result = "voided, stakes refunded" if r.refunds_done_at else "voided, refund pending"
        elif net is not None:
            total = sum(net.values())
            result = "won" if total > 0 else "lost" if total < 0 else "even"
            if not net:
                result = "bets returned" if r.pk in voided_spots else "no bet"
        elif continuing:
            result = "non-live continuation in play"
        else:
            result = "bets returned" if r.pk in voided_spots and not staked[r.pk] else "in play"
        rows.append(GameRow(
            round=r, bets=[(label, currency, amount) for (label, currency), amount in bets[r.pk].items()],
            staked=dict(staked[r.pk]), returned=dict(returned[r.pk]), net=net, spot_nets=spot_nets, result=result,
        ))
    return rows


def _reversed(round: Round, *, player, returned: dict[str, int]) -> tuple[str, dict[str, int]]:
    """A reversed round as the player lived it: settled first, then every payout taken back and every stake
    returned. `returned` becomes what the player kept (the settlement's return plus the adjustment), and the
    net what the round finally did to the balance (nothing, for cash bets)."""
    moves = round_reversal_moves(round=round, players=[player.pk])
    done = round.refunds_done_at is not None
    net: dict[str, int] = defaultdict(int)
    words = []
    for entry in moves:
        for currency, paid in entry.paid.items():
            net[currency] += paid - entry.staked.get(currency, 0)
        for (kind, currency), amount in entry.moves.items():
            if kind == AccountKind.PLAYER_CASH:
                returned[currency] = returned.get(currency, 0) + amount
            net[currency] += amount
        words.append(entry.sentence(done=done).removeprefix(f"{entry.username} "))
    state = "reversed" if done else "reversal in progress"
    return f"{state}: {'; '.join(words)}" if words else state, dict(net)


def player_rounds_query(*, player):
    """The player's rounds as a queryset, for the API's cursor pagination."""
    return Round.objects.filter(pk__in=Spot.objects.filter(player=player).values("round_id")).select_related("table")


def player_game_history(*, player, before: int | None = None, limit: int = GAME_HISTORY_PAGE,
                        since: date | None = None) -> GameHistoryPage:
    """Every round the player held a spot in, newest first, by keyset on the round id: the round ids come
    from the index rounds_spot_player_round alone, then one query loads those rounds and one their bets.
    `since` (a UTC day) stops the history at the first round opened on that day."""
    limit = max(1, min(int(limit), GAME_HISTORY_MAX_PAGE))
    spots = Spot.objects.filter(player=player)
    if before is not None:
        spots = spots.filter(round_id__lt=before)
    if since is not None:
        first = game_history_cursor_for_day(day=since - timedelta(days=1))
        spots = spots.filter(round_id__gte=first) if first is not None else spots.none()
    ids = list(spots.order_by("-round_id").values_list("round_id", flat=True).distinct()[: limit + 1])
    shown = ids[:limit]
    rounds = sorted(Round.objects.filter(pk__in=shown).select_related("table"), key=lambda r: -r.pk)
    return GameHistoryPage(rows=game_rows(player=player, rounds=rounds),
                           next_before=shown[-1] if len(ids) > limit else None)


def player_game_history_iter(*, player, chunk: int = 500, before: int | None = None,
                             since: date | None = None) -> Iterator[GameRow]:
    """The whole game history (or from `before` back to `since`), newest first, one keyset page at a time (for
    the streamed CSV and a period's totals)."""
    while True:
        page = player_game_history(player=player, before=before, limit=min(chunk, GAME_HISTORY_MAX_PAGE),
                                   since=since)
        yield from page.rows
        if page.next_before is None:
            return
        before = page.next_before


# Rounds a period's totals add up at most (a period longer than that says so instead of a wrong total).
PERIOD_TOTALS_MAX_ROUNDS = 5000


def period_totals(*, player, before: int | None, since: date | None) -> dict[str, Any] | None:
    """What the player staked, got back and won or lost over the rounds a period shows (its rows' own money, so
    the totals agree with each line, reversals included); None when more than PERIOD_TOTALS_MAX_ROUNDS."""
    staked: dict[str, int] = defaultdict(int)
    returned: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    rounds = 0
    for row in player_game_history_iter(player=player, before=before, since=since):
        rounds += 1
        if rounds > PERIOD_TOTALS_MAX_ROUNDS:
            return None
        for currency, amount in row.staked.items():
            staked[currency] += amount
        for currency, amount in row.returned.items():
            returned[currency] += amount
        for currency, amount in (row.net or {}).items():
            net[currency] += amount
    return {"rounds": rounds, "currencies": [
        {"currency": c, "staked": staked[c], "returned": returned[c], "net": net.get(c, 0)}
        for c in sorted(set(staked) | set(net))]}


def game_history_cursor_for_day(*, day: date) -> int | None:
    """The keyset cursor that starts a history at the end of `day` (UTC): the first round opened after it."""
    after = datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)
    return Round.objects.filter(opened_at__gte=after).order_by("opened_at", "id").values_list("id", flat=True).first()


def player_round(*, player, game_number: str) -> Round | None:
    """The round with this game number if the player held a spot in it; None otherwise (no hint that it exists)."""
    if not isinstance(game_number, str) or len(game_number) > 40:
        return None
    round = Round.objects.select_related("table", "shoe").filter(game_number=game_number).first()
    if round is None or not Spot.objects.filter(round=round, player=player).exists():
        return None
    return round


def player_seats(*, player, round: Round) -> set[int]:
    return set(Spot.objects.filter(round=round, player=player, seat__isnull=False).values_list("seat", flat=True))

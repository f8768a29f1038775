"""Reads of the back office: the support search, the round page, a player's pages and their game history.

Everything here reads through the indexes of migration 0001 (see there) by keyset, never by offset, so the first
page of anything costs the same with a thousand rounds or a million. The dashboard's and the RTP report's reads
live in backoffice.reports.

Decisions where the issue is silent:
- A bare number in the search box may be a player id or a transaction id: when both exist the search lists both,
  otherwise it goes to the one that exists.
- A partial game number is the table code with a date and (part of) a time: `FB01 2026-11-30 14:22`,
  `FB01-20261130-1422`, or `FB01 14:22` (today, UTC). It matches every round of that table that began in that
  minute (or hour, or day), newest first; one match opens the round.
- A player's game history lists every round they held a spot in (a voided spot too), newest first; its
  result is the settled net of their spots, "voided" with the stakes refunded, or "in play".
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Min, Q, Sum
from django.utils import timezone

from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.engine.rules import Rules
from rounds.models import (
    ACTIVE_STATES,
    CardRecord,
    CardTarget,
    Decision,
    Round,
    RoundBet,
    RoundEvent,
    RoundState,
    Spot,
)
from rounds.record import position_cards, settle_record, spot_turn
from rounds.selectors import round_record_load
from tables.models import Table
from wallet.models import Account, AccountKind, Entry, LedgerTransaction, TransactionKind

GAME_HISTORY_PAGE = 20
GAME_HISTORY_MAX_PAGE = 100
ROUND_SPOTS_PAGE = 50
ROUND_EVENTS_PAGE = 100
SEARCH_LIMIT = 50
TRANSACTION_ENTRIES_SHOWN = 200

BET_LABELS = {
    "main": "Main", "golden_chip": "Golden Chip", "bet_behind": "Bet Behind", "any_pair": "Any Pair",
    "21+3": "21+3", "hot3": "Hot 3", "perfect_pairs": "Perfect Pairs", "insurance": "Insurance",
    "double": "Double", "split": "Split",
}
OUTCOME_LABELS = {
    "win": "won", "blackjack": "blackjack", "charlie": "Charlie", "push": "push", "dealer_22": "push on dealer 22",
    "lose": "lost", "bust": "bust", "dealer_blackjack": "lost to dealer blackjack", "refund": "refunded",
}


# --- search -------------------------------------------------------------------------------------------------

@dataclass
class SearchResult:
    query: str
    # Where to go at once, when the query names exactly one thing.
    redirect_to: tuple[str, tuple] | None = None
    rounds: list[Round] = field(default_factory=list)
    players: list[Any] = field(default_factory=list)
    transactions: list[LedgerTransaction] = field(default_factory=list)
    hint: str = ""

    @property
    def empty(self) -> bool:
        return not (self.rounds or self.players or self.transactions)


GAME_NUMBER = re.compile(r"^[A-Z0-9]{2,8}-\d{8}-\d{6}(-\d+)?$")
GAME_NUMBER_PREFIX = re.compile(r"^(?P<code>[A-Z0-9]{2,8})-(?P<digits>\d{8}(-\d{0,6})?)$")
PARTIAL = re.compile(
    r"^(?P<code>[A-Z0-9]{2,8})[\s,]+(?:(?P<date>\d{4}-\d{2}-\d{2}|\d{8})[\sT,]*)?"
    r"(?P<time>\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?$"
)
ID_QUERY = re.compile(r"^(?:(?P<kind>player|user|p|u|transaction|txn|tx|t)\s*)?#?\s*(?P<id>\d{1,18})$", re.I)


def _prefix_rounds(prefix: str, *, limit: int = SEARCH_LIMIT) -> list[Round]:
    """Rounds whose game number starts with prefix (index rounds_round_game_number_prefix), newest first."""
    return list(Round.objects.filter(game_number__startswith=prefix).select_related("table")
                .order_by("-game_number")[:limit])


def _partial_prefix(code: str, day: date | None, clock: str | None, today: date) -> str | None:
    digits = re.sub(r"\D", "", clock or "")
    if clock and ":" not in clock and len(digits) in (3, 5):
        return None  # "142" is neither an hour nor an hour and minutes
    if clock and ":" in clock:
        parts = clock.split(":")
        digits = parts[0].zfill(2) + "".join(parts[1:])
    elif len(digits) in (1,):
        digits = digits.zfill(2)
    if digits and (int(digits[:2]) > 23 or (len(digits) >= 4 and int(digits[2:4]) > 59)):
        return None
    day = day or today
    return f"{code}-{day:%Y%m%d}-{digits}"


def _parse_day(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return datetime.strptime(text.replace("-", ""), "%Y%m%d").date()
    except ValueError:
        return None


def search(*, query: str, today: date | None = None) -> SearchResult:
    """What the support search box means by `query`: a game number (whole or partial), a player (id,
    username, e-mail) or a transaction id."""
    query = " ".join(str(query or "").split())[:120]
    result = SearchResult(query=query)
    if not query:
        return result
    today = today or timezone.now().astimezone(UTC).date()
    upper = query.upper()

    if GAME_NUMBER.match(upper):
        round = Round.objects.filter(game_number=upper).only("game_number").first()
        if round is not None:
            result.redirect_to = ("backoffice_round", (round.game_number,))
            return result
        result.hint = f"No round has the game number {upper}."
        return result
    prefix_match = GAME_NUMBER_PREFIX.match(upper)
    partial = PARTIAL.match(upper)
    if prefix_match or partial:
        if prefix_match:
            prefix = upper
        else:
            day = _parse_day(partial["date"])
            if partial["date"] and day is None:
                prefix = None
            else:
                prefix = _partial_prefix(partial["code"], day, partial["time"], today)
        if prefix and Table.objects.filter(code=prefix.split("-")[0]).exists():
            result.rounds = _prefix_rounds(prefix)
            if len(result.rounds) == 1:
                result.redirect_to = ("backoffice_round", (result.rounds[0].game_number,))
            elif not result.rounds:
                result.hint = f"No round of table {prefix.split('-')[0]} began at {prefix.split('-', 1)[1]}…"
            return result

    # Staff accounts are not players: the search finds people who play.
    users = get_user_model().objects.filter(groups__name="player")
    id_match = ID_QUERY.match(query)
    if id_match:
        kind = (id_match["kind"] or "").lower()
        number = int(id_match["id"])
        if kind in ("", "player", "user", "p", "u"):
            result.players = list(users.filter(pk=number))
        if kind in ("", "transaction", "txn", "tx", "t"):
            result.transactions = list(LedgerTransaction.objects.filter(pk=number))
        if len(result.players) + len(result.transactions) == 1:
            target = result.players[0] if result.players else result.transactions[0]
            name = "backoffice_player" if result.players else "backoffice_transaction"
            result.redirect_to = (name, (target.pk,))
        if not result.empty:
            return result
        if not kind or query.isdigit():
            result.hint = f"No player and no transaction has the id {number}."
            return result
        # "p123" may as well be a username: look for one below.

    if "@" in query:
        result.players = list(users.filter(email__iexact=query).order_by("pk")[:SEARCH_LIMIT])
    else:
        exact = users.filter(username__iexact=query).first()
        if exact is not None:
            result.redirect_to = ("backoffice_player", (exact.pk,))
            result.players = [exact]
            return result
        result.players = list(users.filter(username__istartswith=query).order_by("username")[:SEARCH_LIMIT])
    if len(result.players) == 1:
        result.redirect_to = ("backoffice_player", (result.players[0].pk,))
    if result.empty:
        result.hint = (f"Nothing matches “{query}”. Try a game number (FB01-20261130-142205, or FB01 2026-11-30 "
                       "14:22), a username, an e-mail address, a player id or a transaction id.")
    return result


# --- the round page -------------------------------------------------------------------------------------------

@dataclass
class HandView:
    cards: list[str]
    total: int
    soft: bool
    outcome: str = ""
    outcome_label: str = ""
    net: int | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class SpotView:
    spot: Spot
    label: str
    bets: list[dict[str, Any]]
    decisions: list[Decision]
    hands: list[HandView]
    net: int | None
    result_label: str
    staked: int
    returned: int | None


def _rules(round: Round) -> Rules:
    return Rules.from_dict(round.config["rules"])


def hole_card_hidden(round: Round) -> bool:
    """While the players act, a hole card is face down for players (staff see it)."""
    return _rules(round).has_hole_card and round.state in (
        RoundState.BETTING_CLOSED, RoundState.DEALING, RoundState.INSURANCE, RoundState.DECISIONS,
    )


def round_cards(round: Round, *, seats: set[int] | None = None) -> dict[str, Any]:
    """The cards as dealt: dealer, shared player cards and stream (common draw) or each seat; `seats` narrows
    the seats shown (a player sees only their own)."""
    rows = list(CardRecord.objects.filter(round=round).order_by("position").values(
        "position", "target", "seat", "sequence", "card", "recorded_at"))
    dealer = [r["card"] for r in rows if r["target"] == CardTarget.DEALER]
    by_seat: dict[int, list[str]] = defaultdict(list)
    for r in rows:
        if r["target"] == CardTarget.SEAT and (seats is None or r["seat"] in seats):
            by_seat[r["seat"]].append(r["card"])
    shown_rows = [r for r in rows if r["target"] != CardTarget.SEAT or seats is None or r["seat"] in seats]
    return {
        "dealer": dealer,
        "dealer_total": hand_value_text(dealer),
        "player": [r["card"] for r in rows if r["target"] == CardTarget.PLAYER],
        "stream": [r["card"] for r in rows if r["target"] == CardTarget.STREAM],
        "seats": sorted(by_seat.items()),
        "order": shown_rows,
    }


def hand_value_text(cards: list[str]) -> str:
    from rounds.engine.cards import parse_card

    if not cards:
        return ""
    try:
        total, soft = hand_value([parse_card(c) for c in cards])
    except EngineError:
        return ""
    return f"soft {total}" if soft and total <= 21 else str(total)


def _hand_view(hand, result=None) -> HandView:
    cards = [str(c) for c in hand.cards] if result is None else list(result.cards)
    from rounds.engine.cards import parse_card

    total, soft = hand_value([parse_card(c) for c in cards]) if cards else (0, False)
    view = HandView(cards=cards, total=total, soft=soft and total <= 21)
    if result is not None:
        view.outcome, view.net = result.outcome, result.net
        view.outcome_label = OUTCOME_LABELS.get(result.outcome, result.outcome)
        if result.free_stake:
            view.notes.append("free bet")
        if result.double_stake:
            view.notes.append("doubled")
    else:
        if getattr(hand, "doubled", False):
            view.notes.append("doubled")
        if getattr(hand, "free", 0):
            view.notes.append("free bet")
    return view


def _spot_views(round: Round, spots: list[Spot]) -> list[SpotView]:
    """Bets with their wallet outcome, decisions with their times, and the hands the engine makes of them."""
    if not spots:
        return []
    ids = [s.pk for s in spots]
    bets: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for bet in (RoundBet.objects.filter(spot_id__in=ids).select_related("wallet_bet__resolution")
                .order_by("id")):
        resolution = getattr(bet.wallet_bet, "resolution", None)
        bets[bet.spot_id].append({
            "id": bet.pk, "kind": bet.kind, "label": BET_LABELS.get(bet.kind, bet.kind), "hand": bet.hand_index,
            "amount": bet.amount, "currency": bet.currency, "funding": bet.funding, "wallet_bet": bet.wallet_bet_id,
            "hold_transaction": bet.wallet_bet.hold_transaction_id,
            "outcome": resolution.get_outcome_display() if resolution else "",
            "cash_return": resolution.cash_return if resolution else None,
            "chips_return": resolution.chips_return if resolution else None,
            "resolution_transaction": resolution.transaction_id if resolution else None,
        })
    decisions: dict[int, list[Decision]] = defaultdict(list)
    for decision in Decision.objects.filter(spot_id__in=ids).select_related("actor").order_by("spot_id", "sequence"):
        decisions[decision.spot_id].append(decision)

    # The engine's view of these spots: a common draw needs only their own entries; a seat needs the whole
    # (small) round, because a Bet Behind follows its seat.
    record = round_record_load(round, spot_ids=ids if round.common_draw else None)
    results = None
    if round.state == RoundState.SETTLED:
        try:
            results = settle_record(record)
        except EngineError:
            results = None
    settlement = (round.settlement or {}).get("spots", {})
    views = []
    for spot in spots:
        spot_record = next((s for s in record.spots if s.id == spot.pk), None)
        hands: list[HandView] = []
        if spot_record is not None and results is not None and spot.pk in results:
            hands = [_result_hand(hand) for hand in results[spot.pk].hands]
        elif spot_record is not None and not spot.behind and spot.voided_at is None:
            first, _stream = position_cards(record, spot.seat)
            if len(first) == 2 and record.bets_of(spot.pk):
                try:
                    hands = [_hand_view(hand) for hand in spot_turn(record, spot_record).hands]
                except EngineError:
                    hands = []
        spot_bets = bets.get(spot.pk, [])
        settled = settlement.get(spot.label)
        net = settled["net"] if settled else None
        returned = None
        if spot_bets and all(b["cash_return"] is not None for b in spot_bets):
            returned = sum(b["cash_return"] for b in spot_bets)
        views.append(SpotView(
            spot=spot, label=spot.label, bets=spot_bets, decisions=decisions.get(spot.pk, []), hands=hands,
            net=net, result_label=_result_label(round, spot, net), staked=sum(b["amount"] for b in spot_bets),
            returned=returned,
        ))
    return views


def _result_hand(result) -> HandView:
    return _hand_view(None, result)


def _result_label(round: Round, spot: Spot, net: int | None) -> str:
    if spot.voided_at is not None:
        return "spot voided, stakes refunded"
    if round.state == RoundState.VOIDED:
        return "round voided, stakes refunded" if round.refunds_done_at else "round voided, refund pending"
    if net is None:
        return "in play" if round.state != RoundState.SETTLED else "no bet"
    return "won" if net > 0 else "lost" if net < 0 else "even"


def round_spots_page(*, round: Round, after: int | None = None, player=None,
                     limit: int = ROUND_SPOTS_PAGE) -> tuple[list[SpotView], int | None]:
    """The round's spots by id (keyset), with their bets, decisions and hands; (views, next `after`)."""
    spots = Spot.objects.filter(round=round).select_related("player").order_by("id")
    if player is not None:
        spots = spots.filter(player=player)
    if after is not None:
        spots = spots.filter(id__gt=after)
    page = list(spots[: limit + 1])
    shown = page[:limit]
    return _spot_views(round, shown), (shown[-1].pk if len(page) > limit else None)


def round_events_page(*, round: Round, after: int | None = None,
                      limit: int = ROUND_EVENTS_PAGE) -> tuple[list[RoundEvent], int | None]:
    events = RoundEvent.objects.filter(round=round).select_related("actor").order_by("id")
    if after is not None:
        events = events.filter(id__gt=after)
    page = list(events[: limit + 1])
    shown = page[:limit]
    return shown, (shown[-1].pk if len(page) > limit else None)


def round_transactions(*, round: Round) -> list[dict[str, Any]]:
    """Every ledger transaction of the round: bet holds, doubles, payouts, refunds and reversal adjustments
    (all carry the game number as their reference), with how many entries and the money moved to players."""
    rows = (LedgerTransaction.objects.filter(reference=round.game_number).select_related("actor")
            .annotate(entries_count=Count("entries"),
                      to_players=Sum("entries__amount", filter=Q(entries__account__player__isnull=False)),
                      currency=Min("entries__account__currency"))
            .order_by("id"))
    return [{"txn": txn, "entries": txn.entries_count, "to_players": txn.to_players or 0,
             "currency": txn.currency} for txn in rows]


def round_config_summary(round: Round) -> dict[str, Any]:
    config = round.config
    rules = _rules(round)
    return {
        "name": config.get("name", ""), "code": config.get("code", ""), "profile": config.get("profile", ""),
        "version": round.config_version, "rules": rules, "rules_name": rules.name, "decks": rules.decks,
        "dealing": rules.dealing, "seats": config.get("seats"), "common_draw": config.get("common_draw"),
        "side_bets": config.get("side_bets", []), "paytables": config.get("paytables", {}),
        "limits": config.get("limits", {}), "features": [k for k, v in config.get("features", {}).items() if v],
        "timers": config.get("timers", {}), "currencies": config.get("currencies", []),
    }


def round_void_progress(*, round: Round) -> dict[str, Any]:
    """How far the refunds of a voided round are: bets refunded out of those held."""
    total = RoundBet.objects.filter(round=round).count()
    refunded = RoundBet.objects.filter(round=round, wallet_bet__resolution__outcome="voided").count()
    return {"total": total, "refunded": refunded, "done": round.refunds_done_at is not None,
            "percent": int(100 * refunded / total) if total else 100}


def round_void_preview(*, round: Round) -> dict[str, Any]:
    """What voiding (or reversing) the round would give back, per currency, and to how many players."""
    stakes = (RoundBet.objects.filter(round=round).values("currency")
              .annotate(total=Sum("amount"), players=Count("spot__player", distinct=True)).order_by("currency"))
    return {"stakes": list(stakes), "bets": RoundBet.objects.filter(round=round).count()}


# --- one player ------------------------------------------------------------------------------------------

def player_get(*, user_id) -> Any | None:
    """A user who plays (holds the play role); staff accounts are not players and are not found here."""
    try:
        user_id = int(user_id)
    except (TypeError, ValueError):
        return None
    return get_user_model().objects.filter(pk=user_id, groups__name="player").first()


def player_open_rounds(*, player) -> list[Round]:
    """Rounds the player holds a live spot in that are not yet settled or voided."""
    round_ids = Spot.objects.filter(player=player, voided_at__isnull=True).values("round_id")
    return list(Round.objects.filter(pk__in=round_ids, state__in=(*ACTIVE_STATES, RoundState.SETTLING))
                .select_related("table").order_by("-id")[:50])


def player_golden_chip_grants(*, player, limit: int = 50) -> list[dict[str, Any]]:
    accounts = Account.objects.filter(player=player, kind=AccountKind.PLAYER_GOLDEN_CHIPS)
    entries = (Entry.objects.filter(account__in=accounts, transaction__kind=TransactionKind.GOLDEN_CHIP_GRANT)
               .select_related("transaction__actor", "account").order_by("-id")[:limit])
    return [{"txn": e.transaction, "amount": e.amount, "currency": e.account.currency, "at": e.created_at,
             "by": e.transaction.actor, "reason": e.transaction.reason} for e in entries]


def transaction_detail(*, transaction_id) -> dict[str, Any] | None:
    try:
        transaction_id = int(transaction_id)
    except (TypeError, ValueError):
        return None
    txn = LedgerTransaction.objects.select_related("actor").filter(pk=transaction_id).first()
    if txn is None:
        return None
    entries = list(Entry.objects.filter(transaction=txn).select_related("account__player")
                   .order_by("id")[: TRANSACTION_ENTRIES_SHOWN + 1])
    round = Round.objects.filter(game_number=txn.reference).only("game_number").first() if txn.reference else None
    return {"txn": txn, "entries": entries[:TRANSACTION_ENTRIES_SHOWN],
            "more_entries": len(entries) > TRANSACTION_ENTRIES_SHOWN, "round": round}


# --- a player's game history -------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameRow:
    round: Round
    bets: list[tuple[str, str, int]]  # (label, currency, total stake) per bet type
    staked: dict[str, int]
    returned: dict[str, int]
    net: dict[str, int] | None  # currency -> settled net, once settled
    result: str

    @property
    def game_number(self) -> str:
        return self.round.game_number


@dataclass(frozen=True)
class GameHistoryPage:
    rows: list[GameRow]
    next_before: int | None


def _game_rows(player, rounds: list[Round]) -> list[GameRow]:
    ids = [r.pk for r in rounds]
    bets: dict[int, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    staked: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    returned: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for round_id, kind, currency, amount, cash in (
        RoundBet.objects.filter(round_id__in=ids, spot__player=player)
        .values_list("round_id", "kind", "currency", "amount", "wallet_bet__resolution__cash_return")
    ):
        bets[round_id][(BET_LABELS.get(kind, kind), currency)] += amount
        staked[round_id][currency] += amount
        returned[round_id][currency] += cash or 0
    voided_spots = set(Spot.objects.filter(round_id__in=ids, player=player, voided_at__isnull=False)
                       .values_list("round_id", flat=True))
    rows = []
    for r in rounds:
        net = None
        if r.state == RoundState.SETTLED and r.settlement:
            net = defaultdict(int)
            for data in r.settlement["spots"].values():
                if data["player"] == player.pk:
                    net[data["currency"]] += data["net"]
            net = dict(net)
        if r.state == RoundState.VOIDED:
            result = "voided, stakes refunded" if r.refunds_done_at else "voided, refund pending"
        elif net is not None:
            total = sum(net.values())
            result = "won" if total > 0 else "lost" if total < 0 else "even"
            if not net:
                result = "spot voided" if r.pk in voided_spots else "no bet"
        else:
            result = "spot voided" if r.pk in voided_spots and not staked[r.pk] else "in play"
        rows.append(GameRow(
            round=r, bets=[(label, currency, amount) for (label, currency), amount in bets[r.pk].items()],
            staked=dict(staked[r.pk]), returned=dict(returned[r.pk]), net=net, result=result,
        ))
    return rows


def player_game_history(*, player, before: int | None = None, limit: int = GAME_HISTORY_PAGE) -> GameHistoryPage:
    """Every round the player held a spot in, newest first, by keyset on the round id: the round ids come
    from the index rounds_spot_player_round alone, then one query loads those rounds and one their bets."""
    limit = max(1, min(int(limit), GAME_HISTORY_MAX_PAGE))
    spots = Spot.objects.filter(player=player)
    if before is not None:
        spots = spots.filter(round_id__lt=before)
    ids = list(spots.order_by("-round_id").values_list("round_id", flat=True).distinct()[: limit + 1])
    shown = ids[:limit]
    rounds = sorted(Round.objects.filter(pk__in=shown).select_related("table"), key=lambda r: -r.pk)
    return GameHistoryPage(rows=_game_rows(player, rounds), next_before=shown[-1] if len(ids) > limit else None)


def player_game_history_iter(*, player, chunk: int = 500) -> Iterator[GameRow]:
    """The whole game history, newest first, one keyset page at a time (for the streamed CSV)."""
    before = None
    while True:
        page = player_game_history(player=player, before=before, limit=min(chunk, GAME_HISTORY_MAX_PAGE))
        yield from page.rows
        if page.next_before is None:
            return
        before = page.next_before


def game_history_cursor_for_day(*, day: date) -> int | None:
    """The keyset cursor that starts a history at the end of `day` (UTC): the first round opened after it."""
    after = datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)
    first = Round.objects.filter(opened_at__gte=after).order_by("opened_at", "id").values_list("id", flat=True).first()
    if first is None:
        return None
    return first


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

"""A round as its pages show it, to staff and to the player who played it: the cards as dealt, and each spot with
its bets (and their wallet outcome), decisions and the hands the engine makes of them. The support desk's round
page, its player page and the player's own game page read it here."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from rounds.continuation_page import ContinuationView, continuation_views
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.engine_adapter import position_cards, settle_record, spot_turn
from rounds.labels import bet_label, bet_outcome_label, hand_title, outcome_label
from rounds.models import CardRecord, CardTarget, Decision, Round, RoundBet, RoundState, Spot
from rounds.selectors import round_record_load

ROUND_SPOTS_PAGE = 50


@dataclass
class HandView:
    cards: list[str]
    total: int
    soft: bool
    outcome: str = ""
    outcome_label: str = ""
    net: int | None = None
    notes: list[str] = field(default_factory=list)
    split: bool = False  # one of the hands of a split: two cards of 21 there are not a blackjack

    @property
    def title(self) -> str:
        """"Blackjack", "soft 17", "20": what the hand's heading says of it."""
        return hand_title(cards=self.cards, total=self.total, soft=self.soft, split=self.split)


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
    # The position left the live round (non_live): its own cards, decisions and result; `hands` above are then
    # the live seat's, played on by the timeout rule.
    continuation: ContinuationView | None = None


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
    return hand_title(cards=cards, total=total, soft=soft and total <= 21)


def _hand_view(hand, result=None) -> HandView:
    cards = [str(c) for c in hand.cards] if result is None else list(result.cards)
    from rounds.engine.cards import parse_card

    total, soft = hand_value([parse_card(c) for c in cards]) if cards else (0, False)
    view = HandView(cards=cards, total=total, soft=soft and total <= 21)
    if result is not None:
        view.outcome, view.net = result.outcome, result.net
        view.outcome_label = outcome_label(result.outcome)
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
            "id": bet.pk, "kind": bet.kind, "label": bet_label(bet.kind), "hand": bet.hand_index,
            "amount": bet.amount, "currency": bet.currency, "funding": bet.funding, "wallet_bet": bet.wallet_bet_id,
            "hold_transaction": bet.wallet_bet.hold_transaction_id,
            "outcome": bet_outcome_label(resolution.outcome) if resolution else "",
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
    continued = continuation_views(round, ids)
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
        for hand in hands:
            hand.split = len(hands) > 1
        spot_bets = bets.get(spot.pk, [])
        settled = settlement.get(spot.label)
        net = settled["net"] if settled else None
        continuation = continued.get(spot.pk)
        if continuation is not None and round.state != RoundState.VOIDED:
            # The live round settled only the side bets; the rest is the continuation's, once it settles.
            net = None if net is None or continuation.net is None else net + continuation.net
        returned = None
        if spot_bets and all(b["cash_return"] is not None for b in spot_bets):
            returned = sum(b["cash_return"] for b in spot_bets)
        views.append(SpotView(
            spot=spot, label=spot.label, bets=spot_bets, decisions=decisions.get(spot.pk, []), hands=hands,
            net=net, result_label=_result_label(round, spot, net, continuation),
            staked=sum(b["amount"] for b in spot_bets),
            returned=returned, continuation=continuation,
        ))
    return views


def _result_hand(result) -> HandView:
    return _hand_view(None, result)


def _result_label(round: Round, spot: Spot, net: int | None, continuation: ContinuationView | None = None) -> str:
    if spot.voided_at is not None:
        return "bets returned to the player, stakes refunded"
    if round.state == RoundState.VOIDED:
        return "round voided, stakes refunded" if round.refunds_done_at else "round voided, refund pending"
    if net is None and continuation is not None and round.state == RoundState.SETTLED:
        return "non-live continuation in play"
    if net is None:
        return "in play" if round.state != RoundState.SETTLED else "no bet"
    return "won" if net > 0 else "lost" if net < 0 else "even"


def round_spots_page(*, round: Round, after: int | None = None, player=None,
                     limit: int = ROUND_SPOTS_PAGE) -> tuple[list[SpotView], int | None]:
    """The round's spots in seat order (each seat, then the Bet Behinds on it; a common draw by arrival), with
    their bets, decisions and hands, by keyset on (seat, behind, id): (views, the last spot's id as `after`)."""
    from django.db.models import Q

    spots = Spot.objects.filter(round=round).select_related("player").order_by("seat", "behind", "id")
    if player is not None:
        spots = spots.filter(player=player)
    if after is not None:
        last = Spot.objects.filter(round=round, pk=after).values("seat", "behind").first()
        if last is None or last["seat"] is None:
            spots = spots.filter(id__gt=after)
        else:
            seat, behind = last["seat"], last["behind"]
            spots = spots.filter(Q(seat__gt=seat) | Q(seat=seat, behind__gt=behind)
                                 | Q(seat=seat, behind=behind, id__gt=after))
    page = list(spots[: limit + 1])
    shown = page[:limit]
    return _spot_views(round, shown), (shown[-1].pk if len(page) > limit else None)


SHOE_HISTORY = 10


def shoe_history(*, round: Round) -> list[dict[str, Any]]:
    """The table's shoes up to this round's (newest first, a few): rounds dealt from each, the burn, the round
    the cut card came out in and the shoe's last round, and which set of cards was in it."""
    from django.db.models import Count

    from rounds.models import Shoe

    shoes = (Shoe.objects.filter(table_id=round.table_id, number__lte=round.shoe.number)
             .annotate(round_count=Count("rounds")).select_related("cut_card_round", "last_round")
             .order_by("-number")[:SHOE_HISTORY])
    return [{
        "shoe": shoe, "current": shoe.pk == round.shoe_id, "rounds": shoe.round_count,
        "burn": (f"{shoe.burn_card} shown, {shoe.burned} burned" if shoe.burn_card else "no burn"),
        "cut_card": shoe.cut_card_round.game_number if shoe.cut_card_round else "",
        "last_round": shoe.last_round.game_number if shoe.last_round else "",
        "this_is_last": shoe.last_round_id == round.pk,
        "this_is_cut": shoe.cut_card_round_id == round.pk,
    } for shoe in shoes]

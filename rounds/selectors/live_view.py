"""What the studio or a game client sees of a round now (round_view), the hole-card rule, and the offers a
player's position has (rounds.visibility cuts the view down to one player's)."""

from __future__ import annotations

from typing import Any

from rounds import table_now, visibility
from rounds.confirmation_view import confirmation_for
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.engine_adapter import RoundRecord, SpotRecord, position_cards, spot_entry, spot_turn
from rounds.models import CardTarget, Round, RoundState, Spot
from rounds.selectors.lookup import round_rules
from rounds.selectors.record import round_record_load
from rounds.shoe_news import shoe_news
from wallet import selectors as wallet_selectors


def hole_card_hidden(round: Round) -> bool:
    """While the players act, the dealer's hole card is face down for players (staff see it)."""
    return round_rules(round).has_hole_card and round.state in (
        RoundState.BETTING_CLOSED, RoundState.DEALING, RoundState.INSURANCE, RoundState.DECISIONS,
    )


def dealer_cards_shown(cards: list[str], *, hidden: bool) -> list[str]:
    """The dealer's cards as a player sees them: "??" for a hole card still face down."""
    return [cards[0], "??", *cards[2:]] if hidden and len(cards) >= 2 else list(cards)


def _describe_hand(hand) -> dict[str, Any]:
    total, soft = hand_value(hand.cards) if hand.cards else (0, False)
    return {
        "cards": [str(card) for card in hand.cards], "total": total, "soft": soft,
        "stake": hand.stake, "golden": hand.golden, "double": hand.double, "free": hand.free,
        "bust": total > 21, "blackjack": hand.blackjack,
    }


def spot_view(record: RoundRecord, spot: SpotRecord, round: Round, *, turn: bool) -> dict[str, Any]:
    entry = spot_entry(record, spot)
    view: dict[str, Any] = {
        "id": spot.id, "label": spot.label, "seat": spot.seat, "behind": spot.behind, "currency": spot.currency,
        "player": spot.player_id, "voided": spot.voided,
        "bets": [{"id": b.id, "kind": b.kind, "hand": b.hand_index, "amount": b.amount, "funding": b.funding}
                 for b in record.bets_of(spot.id)],
        "hands": [], "decision": None,
    }
    first, _stream = position_cards(record, spot.seat)
    if spot.voided or len(first) < 2 or not entry.unit or spot.behind:
        return view
    try:
        play = spot_turn(record, spot)
    except EngineError:
        return view
    view["hands"] = [_describe_hand(hand) for hand in play.hands]
    point = play.decision() if round.state == RoundState.DECISIONS and turn else None
    if point is not None:
        cash = offer_cash(spot, paid=point.double == "paid" or point.split == "paid")
        view["decision"] = {
            "hand": point.hand_index, "actions": list(point.actions), "double": point.double,
            "split": point.split, "double_cost": point.double_cost, "split_cost": point.split_cost,
            "double_funded": offer_funded(point.double, point.double_funded, point.double_cost, cash),
            "split_funded": offer_funded(point.split, point.split_funded, point.split_cost, cash),
            "timeout_action": point.timeout_action,
        }
    return view


def offer_cash(spot: SpotRecord, *, paid: bool) -> int | None:
    """The cash a paid double or split would be held from now (the wallet's own read), when one is offered.

    Cash, at a Golden Chip position too: its doubles and splits are paid in cash (docs/rules.md), so its Golden
    Chip balance never funds them. Insurance bought earlier is already out of this balance."""
    return wallet_selectors.player_balance(player=spot.player_id, currency=spot.currency) if paid else None


def offer_funded(offer: str | None, engine_funded: bool, cost: int, cash: int | None) -> bool:
    """Whether taking this offer now would be played as offered: a free one always, a paid one only if the
    round's earlier fallback allows it (the engine says) and the cash covers its cost now."""
    if offer != "paid":
        return engine_funded
    return engine_funded and cash is not None and cash >= cost


def round_view(*, round: Round, viewer=None, staff: bool = False) -> dict[str, Any]:
    """What the studio (everything) or a game client sees of a round now: rounds.visibility says what a player
    may see."""
    rules = round_rules(round)
    record = round_record_load(round)
    dealer = dealer_cards_shown([str(card) for card in record.dealer_cards],
                                hidden=not staff and hole_card_hidden(round))
    spots = {s.id: s for s in Spot.objects.filter(round=round).only("id", "status", "insurance", "confirmed_at",
                                                                   "deal_now_at")}
    view_spots = []
    for spot in record.spots:
        mine = viewer is not None and spot.player_id == getattr(viewer, "pk", None)
        # A common draw may hold thousands of anonymous players: a client sees its own spot only.
        if not (mine or staff) and (spot.voided or round.common_draw):
            continue
        turn = round.common_draw or spot.seat == round.turn_seat
        shown = spot_view(record, spot, round, turn=turn and (mine or staff))
        shown["mine"] = mine
        shown["status"] = spots[spot.id].status
        shown["insurance"] = spots[spot.id].insurance
        shown["confirmed"] = spots[spot.id].confirmed_at is not None
        shown["deal_now"] = spots[spot.id].deal_now_at is not None
        if not (mine or staff):
            shown["decision"] = None
        view_spots.append(shown)
    cards = {
        "dealer": dealer,
        "player": [str(c) for c in record.cards_of(CardTarget.PLAYER)],
        "stream": [str(c) for c in record.cards_of(CardTarget.STREAM)],
        "seats": {str(seat): cards for (target, seat), cards in sorted(record.cards.items()) if target == "seat"},
    }
    view = {
        "game_number": round.game_number,
        "table": round.table.code,
        "profile": round.config["profile"],
        "rules": rules.name,
        "common_draw": round.common_draw,
        "state": round.state,
        "deadline": round.deadline,
        "turn_seat": round.turn_seat,
        "opened_at": round.opened_at,
        "settled_at": round.settled_at,
        "voided_at": round.voided_at,
        "void_reason": round.void_reason if round.state == RoundState.VOIDED else "",
        "cards": cards,
        "spots": view_spots,
        "seats_taken": sorted({spot.seat for spot in record.spots
                               if spot.seat is not None and not spot.behind and not spot.voided}),
        "settlement": _settlement_for(round, viewer, staff),
        "shoe": shoe_news(round=round),
        "paused": table_now.pause_notice(table=round.table, round=round),
        "confirmation": None if staff else confirmation_for(round=round, viewer=viewer),
    }
    return view if staff else visibility.round_view_for_player(view=view, player_id=getattr(viewer, "pk", None))


def _settlement_for(round: Round, viewer, staff: bool) -> dict[str, Any] | None:
    if not round.settlement:
        return None
    if staff:
        return round.settlement
    player_id = getattr(viewer, "pk", None)
    return {
        "dealer": round.settlement["dealer"],
        "spots": {label: data for label, data in round.settlement["spots"].items() if data["player"] == player_id},
    }

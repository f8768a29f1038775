"""The audit trail in words: each RoundEvent as the line a support agent reads aloud ("alice_plays (seat 3)
placed Main 10.00 EUR", "Card 9♣ to the dealer", "Settled: alice_plays +10.00 EUR"). Money in its currency,
codes by their names (rounds.labels), spots by seat and player. The stored payload stays the record; the
round page folds it away under each line for engineers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casino.money import format_minor
from rounds.labels import action_label, bet_label, return_reason_text, staff_name
from rounds.models import RoundEvent, RoundState, Spot

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
# Players named one by one in a settlement's line; a common draw's thousands are on the players' section.
SETTLED_NAMED = 20


@dataclass(frozen=True)
class EventLine:
    event: RoundEvent
    title: str  # "Bets placed"
    text: str  # the sentence
    by: str  # "alice_plays (player)", "the dealer", "the system", "maria (support)"


def card_text(card: str) -> str:
    """"9c" -> "9♣", "Th" -> "10♥"."""
    if len(card) != 2:
        return card
    rank = "10" if card[0] == "T" else card[0]
    return f"{rank}{SUITS.get(card[1], card[1])}"


def _money(amount: int | None, currency: str) -> str:
    return "" if amount is None else format_minor(int(amount), currency)


def _signed(amount: int, currency: str) -> str:
    return ("+" if amount > 0 else "") + format_minor(int(amount), currency)


def _state(code: str) -> str:
    try:
        return str(RoundState(code).label).lower()
    except ValueError:
        return code


class _Spots:
    """The spots the events name, by id, each named "alice_plays (seat 3)"."""

    def __init__(self, round_id: int, ids: set[int]):
        self.by_id: dict[int, str] = {}
        self.currency: dict[int, str] = {}
        for spot in Spot.objects.filter(round_id=round_id, pk__in=ids).select_related("player"):
            where = (f"Bet Behind on seat {spot.seat}" if spot.behind else f"seat {spot.seat}") if spot.seat else ""
            name = spot.player.get_username() + (f" ({where})" if where else "")
            self.by_id[spot.pk] = name
            self.currency[spot.pk] = spot.currency

    def name(self, spot_id) -> str:
        return self.by_id.get(spot_id, f"spot {spot_id}")


def _bets(bets: list[dict[str, Any]], currency: str) -> str:
    return ", ".join(f"{bet_label(b.get('kind', ''))} {_money(b.get('amount'), currency)}"
                     + (" in Golden Chips" if b.get("funding") == "golden_chips" else "") for b in bets)


def _sentence(event: RoundEvent, spots: _Spots) -> str:
    p: dict[str, Any] = event.payload or {}
    kind = event.kind
    if kind == "opened":
        last = " It is the last round of this shoe." if p.get("last_of_shoe") else ""
        return f"Round opened at table {p.get('table', '')}, shoe {p.get('shoe', '')}.{last}"
    if kind == "bets_placed":
        spot = p.get("spot", {})
        return f"{spots.name(spot.get('id'))} placed {_bets(p.get('bets', []), spot.get('currency', ''))}."
    if kind == "confirmed":
        return "The player pressed Deal Now." if p.get("deal_now") else "The player confirmed their bets."
    if kind == "bets_confirmed":
        count = len(p.get("bets", []))
        return f"The player confirmed {count} bet{'s' if count != 1 else ''}."
    if kind == "bets_returned":
        count = len(p.get("bets", []))
        why = return_reason_text(p.get("reason", ""))
        names = ", ".join(spots.name(s) for s in p.get("spots", []))
        return f"{names}: {count} bet{'s' if count != 1 else ''} given back ({why})."
    if kind == "unconfirmed_returned":
        count = len(p.get("returned", []))
        return (f"Betting closed with {count} unconfirmed bet{'s' if count != 1 else ''} of "
                f"{len(p.get('players', []))} player(s): given back.")
    if kind == "spot_moved":
        return f"{spots.name(p.get('spot'))} moved from seat {p.get('from_seat')} to seat {p.get('to_seat')}."
    if kind == "state":
        reason = f" ({p['reason']})" if p.get("reason") else ""
        return f"From {_state(p.get('from', ''))} to {_state(p.get('to', ''))}{reason}."
    if kind == "card":
        target = p.get("target")
        to = {"dealer": "the dealer", "player": "the players' shared cards", "stream": "the stream"}.get(
            target, f"seat {p.get('seat')}")
        return f"{card_text(p.get('card', ''))} to {to} (card {p.get('sequence')} there)."
    if kind == "decision":
        asked, taken = p.get("action", ""), p.get("effective", "")
        cost = p.get("cost")
        currency = spots.currency.get(p.get("spot"), "")
        said = action_label(asked) if asked == taken or not taken else (
            f"{action_label(asked)}, which the rules made {action_label(taken)}")
        paid = f", {_money(cost, currency)} more staked" if cost else ""
        unfunded = " (not enough money: not taken)" if p.get("funded") is False else ""
        return f"{spots.name(p.get('spot'))}, hand {int(p.get('hand') or 0) + 1}: {said}{paid}{unfunded}."
    if kind == "timeout":
        names = ", ".join(spots.name(s) for s in p.get("spots", []))
        return f"Time ran out for {names}: the timeout rule decided." if names else "Time ran out."
    if kind == "disconnected":
        return f"A player disconnected while the round was {_state(p.get('state', ''))}."
    if kind == "settled":
        p = p.get("settlement") or p
        results = list((p.get("spots") or {}).values())
        parts = [f"{spots.name(data.get('spot'))} {_signed(data.get('net', 0), data.get('currency', ''))}"
                 for data in results[:SETTLED_NAMED]]
        if len(results) > SETTLED_NAMED:
            parts.append(f"and {len(results) - SETTLED_NAMED} more (the players' section lists every one)")
        dealer = p.get("dealer") or {}
        cards = " ".join(card_text(c) for c in dealer.get("cards", []))
        head = f"Dealer {cards} ({dealer.get('total')}). " if cards else ""
        return head + ("Results: " + "; ".join(parts) + "." if parts else "No bets to settle.")
    if kind in ("voided", "malfunction", "paused", "attention_needed", "reversed"):
        reason = p.get("reason", "")
        return {"voided": f"Round voided: {reason}", "malfunction": f"Malfunction found: {reason}",
                "paused": f"Table paused: {reason}", "attention_needed": f"The worker gave up: {reason}",
                "reversed": f"Reversal of the settled round: {reason}"}[kind].rstrip(": ") + "."
    if kind == "attention_retried":
        return f"Staff retried it: {p.get('reason', '')}."
    if kind == "resumed":
        return "Table resumed; the timer restarted."
    if kind == "refunded":
        if "adjustments" in p:
            return (f"Compensating adjustments for {p.get('players', 0)} player(s)"
                    f"{'; all done' if p.get('done') else ''}.")
        count = len(p.get("bets", []))
        return (f"{count} stake{'s' if count != 1 else ''} refunded to {p.get('players', 0)} player(s)"
                f"{'; all done' if p.get('done') else ''}.")
    if kind == "spot_voided":
        return f"{spots.name(p.get('spot'))}: bets returned ({p.get('reason', '')})."
    if kind == "cut_card":
        return f"The cut card came out of shoe {p.get('shoe')}: the cards will be replaced in the following round."
    if kind == "continuation_started":
        return f"{spots.name(p.get('spot'))} left the live round: the position continues apart (non-live)."
    if kind == "continuation_cards":
        cards = ", ".join(f"{card_text(c['card'])} to {'the dealer' if c['to'] == 'dealer' else 'the hand'}"
                          for c in p.get("cards", []))
        return f"{spots.name(p.get('spot'))}'s continuation: {cards}."
    if kind == "continuation_decision":
        return (f"{spots.name(p.get('spot'))}'s continuation, hand {int(p.get('hand') or 0) + 1}: "
                f"{action_label(p.get('action', ''))}.")
    if kind == "continuation_bet":
        bet = p.get("bet", {})
        return f"{spots.name(p.get('spot'))}'s continuation staked {bet_label(bet.get('kind', ''))}."
    if kind == "continuation_settled":
        net = (p.get("settlement") or {}).get("net")
        currency = spots.currency.get(p.get("spot"), "")
        money = f" {_signed(net, currency)}" if net is not None and currency else ""
        return f"{spots.name(p.get('spot'))}'s continuation settled{money}."
    if kind == "continuation_reconnected":
        return "The player came back to finish their continuation."
    return ""


def _spot_ids(event: RoundEvent) -> list[int]:
    p = event.payload or {}
    if event.kind == "settled":
        p = p.get("settlement") or p
        return [data["spot"] for data in list((p.get("spots") or {}).values())[:SETTLED_NAMED] if "spot" in data]
    spot = p.get("spot")
    ids = [spot.get("id")] if isinstance(spot, dict) else [spot]
    ids += list(p.get("spots") or []) if isinstance(p.get("spots"), list) else []
    return [i for i in ids if isinstance(i, int)]


def _by(event: RoundEvent) -> str:
    if event.actor_kind == "staff" or (event.actor_id and event.actor_kind not in ("player", "dealer")):
        return staff_name(event.actor)
    if event.actor_kind == "player":
        return f"{event.actor.get_username()} (player)" if event.actor_id else "the player"
    if event.actor_kind == "dealer":
        return f"the dealer ({event.actor.get_username()})" if event.actor_id else "the dealer"
    return "the system"


def event_lines(*, round_id: int, events: list[RoundEvent]) -> list[EventLine]:
    """The events (actor selected) as lines; one query for the round's spots."""
    from rounds.labels import event_label

    spots = _Spots(round_id, {spot_id for e in events for spot_id in _spot_ids(e)})
    return [EventLine(event=e, title=event_label(e.kind), text=_sentence(e, spots), by=_by(e)) for e in events]

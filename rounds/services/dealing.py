"""Betting close, recording cards and the initial deal.

A round with no live bet when betting closes has nothing to deal: it goes straight to settling (and settles to
nothing), so the table can open the next round. The studio posts cards without saying where they go: the
server knows the next target (the deal order, `_deal_order`, then whoever waits for a card, then the dealer);
an explicit target must match it. An unknown card ("Zz") is bad input and is refused; a real card
that cannot be there (a copy more than the shoe holds, counting the shoe's earlier non-void rounds) or a dealer
card drawn on 17 or more is recorded as a fact and voids the round as a malfunction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction

from rounds import selectors
from rounds.audit import actor_user, event_add
from rounds.engine.cards import parse_card
from rounds.engine.dealer import dealer_needs_card
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_total
from rounds.engine_adapter import RoundRecord, active_seats, dealer_outlook
from rounds.errors import CardRefused, InvalidCard, InvalidRoundRequest
from rounds.locks import round_lock
from rounds.models import ActorKind, CardTarget, Round, RoundState, Spot, SpotStatus, VoidKind
from rounds.services._common import _label, _now, _queue, _seconds, _studio_check, _table_playing, _transition
from rounds.services.insurance import _after_insurance, _insurable
from rounds.services.play import _card_to_players, _progress
from rounds.services.returns import unconfirmed_at_close
from rounds.services.voids import _spots_void, _void


def _betting_close(round: Round, *, now: datetime, actor_kind: str, actor=None, reason: str) -> None:
    _transition(round, RoundState.BETTING_CLOSED, now=now, actor_kind=actor_kind, actor=actor, reason=reason,
                betting_closed_at=now, deadline=None)
    # First the bets nobody confirmed go back, so a seat left without a bet returns its Bet Behinds below.
    unconfirmed_at_close(round, now=now)
    live = Spot.objects.filter(round=round, voided_at__isnull=True)
    seated = set(live.filter(behind=False, seat__isnull=False).values_list("seat", flat=True))
    orphans = list(live.filter(behind=True).exclude(seat__in=seated).order_by("id"))
    _spots_void(round, orphans, reason="the seat player placed no bet", now=now, actor_kind=ActorKind.SYSTEM)
    if not live.exists():
        _transition(round, RoundState.SETTLING, now=now, actor_kind=ActorKind.SYSTEM, reason="no bets",
                    settling_at=now)
        _queue("round_settle", round.pk)


def round_betting_close(*, round_id: int, actor=None, now: datetime | None = None) -> Round:
    """The studio (or the betting timer) closes betting."""
    _studio_check(actor)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        _table_playing(round)
        _betting_close(round, now=now, actor_kind=ActorKind.DEALER if actor else ActorKind.SYSTEM, actor=actor,
                       reason="betting closed by the studio" if actor else "betting time over")
    return round


def _deal_order(round: Round, record: RoundRecord) -> list[tuple[CardTarget, int]]:
    hole = [(CardTarget.DEALER, 0)] if record.rules.has_hole_card else []
    if round.common_draw:
        return [(CardTarget.PLAYER, 0), (CardTarget.DEALER, 0), (CardTarget.PLAYER, 0)] + hole
    # rules.md, Seated deal order: one card to each seat in turn, the dealer's up card, a second card to each seat.
    seats = [(CardTarget.SEAT, seat) for seat in active_seats(record)]
    return seats + [(CardTarget.DEALER, 0)] + seats + hole


def _cards_recorded(record: RoundRecord) -> int:
    return sum(len(cards) for cards in record.cards.values())


def _expected_card(round: Round, record: RoundRecord, *,
                   statuses: dict[str, int] | None = None) -> tuple[CardTarget, int]:
    """Where the next card goes, or a clear refusal saying what the round waits for. `statuses` are the play
    statuses already counted under this lock (_progress), if they were."""
    state = round.state
    if state in (RoundState.BETTING_CLOSED, RoundState.DEALING):
        order = _deal_order(round, record)
        dealt = _cards_recorded(record)
        if dealt < len(order):
            return order[dealt]
        raise CardRefused(f"The initial deal of round {round.game_number} is complete.")
    if state == RoundState.DECISIONS:
        if round.common_draw:
            if statuses is None:
                statuses = selectors.spot_statuses(round=round)
            if statuses.get(SpotStatus.DECIDING):
                raise CardRefused(
                    f"{statuses[SpotStatus.DECIDING]} player(s) are still deciding; the next stream card comes "
                    "when every player has decided or the decision timer ends."
                )
            stream = len(record.cards.get((CardTarget.STREAM, 0), []))
            if Spot.objects.filter(round=round, status=SpotStatus.NEEDS_CARD, need_index=stream,
                                   voided_at__isnull=True).exists():
                return CardTarget.STREAM, 0
            raise CardRefused("No player is waiting for a card.")
        spot = Spot.objects.filter(round=round, seat=round.turn_seat, behind=False, voided_at__isnull=True).first()
        if spot is not None and spot.seat is not None and spot.status == SpotStatus.NEEDS_CARD:
            return CardTarget.SEAT, spot.seat
        raise CardRefused(f"Seat {round.turn_seat} is deciding; its next card comes after its decision.")
    if state == RoundState.DEALER:
        dealer = record.dealer_cards
        if len(dealer) >= 2 and hand_total(dealer) >= 17:
            # Recorded anyway: a dealer drawing on 17 is a malfunction, not a typo to refuse.
            return CardTarget.DEALER, 0
        any_live, needs_second = dealer_outlook(record)
        if len(dealer) >= 2 and not any_live:
            raise CardRefused("No hand is live: the dealer draws no further card. Complete the dealer's hand.")
        if len(dealer) < 2 and not dealer_needs_card(record.rules, dealer, any_live_hand=any_live,
                                                     needs_second=needs_second):
            raise CardRefused("The dealer's second card is not needed: complete the dealer's hand.")
        return CardTarget.DEALER, 0
    if state == RoundState.INSURANCE:
        raise CardRefused(f"Round {round.game_number} waits for the players' insurance answers.")
    raise CardRefused(f"No card is expected while round {round.game_number} is {_label(state)}.")


# The shoe and the copies of the card it has given, in one read: the earlier non-void rounds of the shoe and this
# round, before this card is written.
_SHOE_COPIES_SQL = (
    "SELECT s.decks, s.number, s.burn_card, (SELECT COUNT(*) FROM rounds_cardrecord c JOIN rounds_round r "
    "ON r.id = c.round_id WHERE r.shoe_id = s.id AND c.card = %s AND r.state <> %s) FROM rounds_shoe s "
    "WHERE s.id = %s"
)
_CARD_INSERT_SQL = (
    "INSERT INTO rounds_cardrecord (round_id, position, target, seat, sequence, card, recorded_at, recorded_by_id) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)


def _malfunction(round: Round, *, card: str, record: RoundRecord, target: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(_SHOE_COPIES_SQL, [card, RoundState.VOIDED, round.shoe_id])
        decks, number, burn_card, earlier = cursor.fetchone()
    # Counted before this card is written: the earlier non-void rounds of the shoe, this round, the burn card.
    copies = earlier + (1 if burn_card == card else 0) + 1
    if copies > decks:
        return f"card {card} appears {copies} times in shoe {number}, but {decks} decks hold {decks}"
    if target == CardTarget.DEALER:
        before = record.dealer_cards
        if len(before) >= 2 and hand_total(before) >= 17:
            return f"the dealer drew {card} on {hand_total(before)}, but stands on 17 or more"
    return None


def _card_insert(round: Round, *, position: int, where: tuple[str, int], sequence: int, card: str, at: datetime,
                 actor) -> None:
    """The card's row as SQL written once (a card is the dealer's most frequent write; the ORM's insert compiled
    on each)."""
    with connection.cursor() as cursor:
        cursor.execute(_CARD_INSERT_SQL, [round.pk, position, where[0], where[1], sequence, card,
                                          connection.ops.adapt_datetimefield_value(at),
                                          getattr(actor_user(actor), "pk", None)])


def card_record(*, round_id: int, card: str, actor=None, target: str | None = None, seat: int | None = None,
                now: datetime | None = None) -> dict[str, Any]:
    """Record the next card from the table. Returns {"target", "seat", "state", "malfunction"}."""
    _studio_check(actor)
    now = _now(now)
    try:
        parsed = parse_card(card)
    except EngineError as error:
        raise InvalidCard(f"{error}: cards are a rank of A23456789TJQK and a suit of shdc, e.g. Ah.") from None
    if target is not None and target not in CardTarget.values:
        raise InvalidRoundRequest(f"target must be one of {', '.join(CardTarget.values)}, not {target!r}.")
    actor_kind = ActorKind.DEALER if actor else ActorKind.SYSTEM
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        _table_playing(round)
        statuses = _progress(round, now=now, new_step=False)
        record = selectors.round_record_load(round)
        where = _expected_card(round, record, statuses=statuses)
        if target is not None and (target, seat if target == CardTarget.SEAT else 0) != where:
            raise CardRefused(f"The next card goes to {_where(where)}, not to {_where((target, seat or 0))}.")
        text = str(parsed)
        malfunction = _malfunction(round, card=text, record=record, target=where[0])
        sequence = len(record.cards.get(where, [])) + 1
        _card_insert(round, position=_cards_recorded(record) + 1, where=where, sequence=sequence, card=text,
                     at=now, actor=actor)
        record.cards.setdefault(where, []).append(text)
        event_add(round, "card", actor_kind=actor_kind, actor=actor, at=now, payload={
            "target": where[0], "seat": where[1], "sequence": sequence, "card": text,
        })
        if malfunction:
            event_add(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": malfunction})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {malfunction}", actor=None, now=now)
        elif round.state == RoundState.BETTING_CLOSED or round.state == RoundState.DEALING:
            if round.state == RoundState.BETTING_CLOSED:
                _transition(round, RoundState.DEALING, now=now, actor_kind=actor_kind, actor=actor)
            if _cards_recorded(record) == len(_deal_order(round, record)):
                _after_deal(round, record, now=now)
        elif round.state == RoundState.DECISIONS:
            _card_to_players(round, record, where, now=now)
    return {"target": where[0], "seat": where[1] or None, "card": text, "state": round.state,
            "malfunction": malfunction or ""}


def _where(where: tuple[str, int]) -> str:
    target, seat = where
    return f"seat {seat}" if target == CardTarget.SEAT else {"dealer": "the dealer", "player": "the players",
                                                              "stream": "the stream"}.get(target, target)


def _after_deal(round: Round, record: RoundRecord, *, now: datetime) -> None:
    rules = record.rules
    up = record.dealer_cards[0]
    if rules.insurance and up.is_ace and _insurable(record):
        _transition(round, RoundState.INSURANCE, now=now, actor_kind=ActorKind.SYSTEM,
                    deadline=now + timedelta(seconds=_seconds(round, "decision_seconds")))
        return
    _after_insurance(round, record, now=now)

"""The dealer's hand: peeking, and checking that recorded dealer cards obey the drawing rule.

The dealer's cards are facts recorded from the table. A record that breaks the drawing rule is a malfunction,
never a result, so it raises EngineError.

Decision the rules contract left open (docs/rules.md writes it down): when no player hand on the position is
live, the dealer "draws no further card", but the contract's vectors (tests/vectors) record complete dealer
hands there too (F06, F34), and in a seated game the other seats decide whether the dealer draws. So with no
live hand the record may stop after the second card or complete correctly; a partial draw (stopping below 17
after drawing) is still a malfunction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import EngineError
from .hands import hand_value
from .rules import Rules

DEALER_STANDS_ON = 17


@dataclass(frozen=True, slots=True)
class DealerHand:
    cards: tuple[Card, ...]
    total: int
    blackjack: bool
    peeked: bool  # the blackjack was found by the peek before the action round, which ended the round

    @property
    def up(self) -> Card:
        return self.cards[0]

    @property
    def bust(self) -> bool:
        return self.total > 21


def dealer_has_blackjack(cards: Sequence[Card]) -> bool:
    return len(cards) >= 2 and hand_value(cards[:2])[0] == 21


def peeked_blackjack(rules: Rules, cards: Sequence[Card]) -> bool:
    """True when the dealer peeks (rules and up card say so) and finds a blackjack, ending the round at once."""
    if not cards or not rules.peeks(cards[0].points):
        return False
    if len(cards) < 2:
        raise EngineError("the dealer's hole card is missing")
    return dealer_has_blackjack(cards)


def dealer_must_draw(cards: Sequence[Card]) -> bool:
    """The dealer draws to 16 and stands on all 17s, soft 17 included."""
    return hand_value(cards)[0] < DEALER_STANDS_ON


def dealer_needs_card(
    rules: Rules, cards: Sequence[Card], *, any_live_hand: bool, needs_second: bool
) -> bool:
    """Live play, after the action round: should the dealer be dealt another card now?

    The second card comes when the rules deal a hole card, a hand is live, or insurance or a blackjack must be
    settled; after that the dealer draws only while below 17 and only if some hand is live.
    """
    if len(cards) < 2:
        return rules.has_hole_card or any_live_hand or needs_second
    if peeked_blackjack(rules, cards):
        return False
    return any_live_hand and dealer_must_draw(cards)


def check_dealer_cards(
    rules: Rules, cards: Sequence[Card], *, must_complete: bool, needs_second: bool
) -> None:
    """Raise EngineError unless the recorded dealer cards are a correct dealer hand for this round.

    must_complete: some player hand is live, so the dealer must draw to 17 or more.
    needs_second: the second card must be shown (hole card dealt, insurance or a blackjack to settle).
    """
    if not cards:
        raise EngineError("the dealer has no card")
    if (needs_second or rules.has_hole_card or must_complete) and len(cards) < 2:
        raise EngineError("the dealer's second card is missing")
    for index in range(2, len(cards)):
        total = hand_value(cards[:index])[0]
        if total >= DEALER_STANDS_ON:
            raise EngineError(f"the dealer drew {cards[index]} on {total}, but stands on 17 or more")
    final = hand_value(cards)[0]
    if (must_complete or len(cards) > 2) and final < DEALER_STANDS_ON:
        raise EngineError(f"a dealer card is missing: the dealer stopped on {final}")


def dealer_hand(rules: Rules, cards: Sequence[Card]) -> DealerHand:
    blackjack = dealer_has_blackjack(cards)
    return DealerHand(
        cards=tuple(cards),
        total=hand_value(cards)[0],
        blackjack=blackjack,
        peeked=blackjack and rules.peeks(cards[0].points),
    )

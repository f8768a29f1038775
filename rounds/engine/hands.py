"""Hand values and the state of one hand while it is played.

A hand carries its stakes by kind, because each kind settles differently: cash `stake` on the base bet,
`golden` chips on the base bet (classic Golden Chips), a paid `double` (always cash) and a `free` bet
(free double or free split hand 2, no money behind it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import Card


def hand_value(cards: Sequence[Card]) -> tuple[int, bool]:
    """(best total, soft): an ace counts 11 unless that busts the hand; soft while an ace counts 11."""
    hard = 0
    has_ace = False
    for card in cards:
        hard += card.points
        has_ace = has_ace or card.points == 1
    if has_ace and hard <= 11:
        return hard + 10, True
    return hard, False


def hand_total(cards: Sequence[Card]) -> int:
    return hand_value(cards)[0]


def is_blackjack(cards: Sequence[Card], from_split: bool = False) -> bool:
    """First two cards of an unsplit hand totalling 21 (A+10 after a split is only 21)."""
    return not from_split and len(cards) == 2 and hand_value(cards)[0] == 21


def is_splittable_pair(cards: Sequence[Card]) -> bool:
    """Splitting needs two cards of equal value: K-Q splits."""
    return len(cards) == 2 and cards[0].points == cards[1].points


def is_hard(cards: Sequence[Card]) -> bool:
    """No ace at all: the free double speaks of a hard 9, 10 or 11 (A-8 is not one)."""
    return all(card.points != 1 for card in cards)


@dataclass(slots=True)
class Hand:
    cards: list[Card]
    stake: int = 0
    golden: int = 0
    free: int = 0
    double: int = 0
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    free_double: bool = False
    hit_and_stand: bool = False
    stood: bool = False
    charlie_cards: int | None = field(default=None, repr=False)

    @property
    def total(self) -> int:
        return hand_value(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_value(self.cards)[1]

    @property
    def bust(self) -> bool:
        return self.total > 21

    @property
    def blackjack(self) -> bool:
        return is_blackjack(self.cards, self.from_split)

    @property
    def charlie(self) -> bool:
        return self.charlie_cards is not None and len(self.cards) >= self.charlie_cards and not self.bust

    @property
    def finished(self) -> bool:
        """No decision is offered: stood, busted, 21 (auto-stand), Charlie, doubled or a completed split ace."""
        if self.stood or len(self.cards) < 2:
            return self.stood
        total = self.total
        return (
            total >= 21
            or self.doubled
            or self.hit_and_stand
            or self.split_aces
            or (self.charlie_cards is not None and len(self.cards) >= self.charlie_cards)
        )

    @property
    def live(self) -> bool:
        """Still needs the dealer's hand to settle: not busted, not a blackjack, not a Charlie."""
        return not (self.bust or self.blackjack or self.charlie)

    @property
    def real_stake(self) -> int:
        """Cash at risk on the hand (base plus paid double); golden chips are counted apart."""
        return self.stake + self.double

    def describe(self) -> str:
        return " ".join(str(card) for card in self.cards) + f" = {self.total}"

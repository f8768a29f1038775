"""Cards, shoes and card-record validation.

Cards are interned: `parse_card` returns the same immutable `Card` object for the same text, so comparisons and
dictionary look-ups in the hot settlement path are cheap.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from random import Random

from .errors import EngineError

RANKS = "A23456789TJQK"
SUITS = "shdc"
RED_SUITS = frozenset("hd")
DEFAULT_DECKS = 8
_POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card: `rank` in RANKS, `suit` in SUITS; `points` counts an ace as 1 and tens as 10."""

    rank: str
    suit: str
    points: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.rank not in _POINTS or len(self.suit) != 1 or self.suit not in SUITS:
            raise EngineError(f"unknown card {self.rank + self.suit!r}")
        object.__setattr__(self, "points", _POINTS[self.rank])

    def __str__(self) -> str:
        return self.rank + self.suit

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    @property
    def is_ten(self) -> bool:
        """A 10-value card: T, J, Q or K."""
        return self.points == 10

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS


ALL_CARDS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
_BY_TEXT: dict[str, Card] = {str(card): card for card in ALL_CARDS}


def parse_card(text: object) -> Card:
    """`"Ah"` -> the ace of hearts. Raises EngineError for anything that is not one of the 52 cards."""
    card = _BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        raise EngineError(f"unknown card {text!r}")
    return card


def parse_cards(texts: object) -> list[Card]:
    if not isinstance(texts, list):
        raise EngineError(f"expected a list of cards, got {texts!r}")
    return [parse_card(text) for text in texts]


def new_shoe(decks: int = DEFAULT_DECKS, rng: Random | None = None) -> list[Card]:
    """A freshly shuffled shoe of `decks` full decks (cryptographic shuffle unless an rng is given, for tests)."""
    if decks < 1:
        raise EngineError(f"a shoe needs at least one deck, not {decks}")
    shoe = list(ALL_CARDS) * decks
    (rng or secrets.SystemRandom()).shuffle(shoe)
    return shoe


def burn_count(shown: Card) -> int:
    """New-shoe burn: the first card is shown and as many cards are burned as its value (ace 1, tens 10)."""
    return shown.points


def burn_new_shoe(shoe: list[Card]) -> tuple[Card, list[Card], list[Card]]:
    """Apply the new-shoe burn: returns (shown card, burned cards, the cards left to deal)."""
    if not shoe:
        raise EngineError("cannot burn from an empty shoe")
    shown = shoe[0]
    burned_end = 1 + burn_count(shown)
    return shown, shoe[1:burned_end], shoe[burned_end:]


def cut_card_index(decks: int = DEFAULT_DECKS, penetration: float = 0.75, rng: Random | None = None) -> int:
    """Where the cut card goes: around `penetration` of the shoe, +/- half a deck, so the end is not predictable."""
    if not 0.0 < penetration < 1.0:
        raise EngineError(f"penetration must be between 0 and 1, not {penetration}")
    size = 52 * decks
    spread = 26
    centre = round(size * penetration)
    low, high = max(1, centre - spread), min(size - 1, centre + spread)
    return (rng or secrets.SystemRandom()).randint(low, high)


@dataclass
class Shoe:
    """A dealing shoe with its cut card: once dealing passes the cut card the round completes and the shoe is changed."""

    cards: list[Card]
    cut_index: int
    position: int = 0

    @classmethod
    def shuffled(cls, decks: int = DEFAULT_DECKS, rng: Random | None = None, burn: bool = False) -> Shoe:
        cards = new_shoe(decks, rng)
        shoe = cls(cards=cards, cut_index=cut_card_index(decks, rng=rng))
        if burn:
            _shown, burned, _rest = burn_new_shoe(cards)
            shoe.position = 1 + len(burned)
        return shoe

    def draw(self) -> Card:
        if self.position >= len(self.cards):
            raise EngineError("the shoe is empty")
        card = self.cards[self.position]
        self.position += 1
        return card

    @property
    def cut_card_reached(self) -> bool:
        return self.position >= self.cut_index


def validate_card_counts(cards: Iterable[Card], decks: int = DEFAULT_DECKS) -> None:
    """A card record can hold no more copies of a card than the shoe: a ninth copy in 8 decks is a malfunction."""
    for card, count in Counter(cards).items():
        if count > decks:
            raise EngineError(f"card {card} appears {count} times but {decks} decks hold only {decks}")

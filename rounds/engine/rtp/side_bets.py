"""Exact side-bet RTPs for any paytable and deck count, from the engine's own classifier.

Every distinct (rank, suit) triple — player card 1, player card 2, dealer up card — is classified by
``rounds.engine.sidebets.side_bet_outcome``, the function that settles real bets, so the published RTP and
the settlement cannot disagree. A triple of specific cards occurs n*n*n times in an n-deck shoe when the
three cards differ, n*n*(n-1) times when two are the same card and n*(n-1)*(n-2) times when all three are;
so each category is kept as three counts and any deck count is a polynomial away.

Speed: the classification depends on suits only through "same suit" and "same colour" (true of every bet
in docs/rules.md), so suit triples are enumerated up to the 8 suit permutations that keep colours together, each
representative weighted by its orbit size: 10 suit patterns instead of 64. A test checks this against the
full enumeration of all 52**3 triples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product

from ..cards import RANKS, RED_SUITS, SUITS, Card, parse_card
from ..sidebets import DEFAULT_PAYTABLES, SIDE_BETS, side_bet_outcome

INSURANCE = "insurance"
INSURANCE_WIN = "dealer_blackjack"
# Insurance costs half the main bet and pays 2:1; its RTP is per unit staked on the insurance itself.
INSURANCE_PAYTABLE: dict[str, int] = {INSURANCE_WIN: 2}
LOSE = "lose"
ALL_SIDE_BETS: tuple[str, ...] = (*SIDE_BETS, INSURANCE)

# Counts of ordered card triples per category, split by identity pattern:
# (three different cards, exactly two identical cards, three identical cards).
PatternCounts = tuple[int, int, int]


def _colour_preserving_suit_maps() -> list[dict[str, str]]:
    """The suit permutations under which "same suit" and "same colour" are unchanged (a group of 8)."""
    maps = []
    for image in permutations(SUITS):
        mapping = dict(zip(SUITS, image, strict=True))
        if all(
            ((a in RED_SUITS) == (b in RED_SUITS)) == ((mapping[a] in RED_SUITS) == (mapping[b] in RED_SUITS))
            for a in SUITS
            for b in SUITS
        ):
            maps.append(mapping)
    return maps


@lru_cache(maxsize=1)
def suit_pattern_orbits() -> tuple[tuple[tuple[str, str, str], int], ...]:
    """One representative suit triple per orbit, with the orbit's size (sizes sum to 64)."""
    maps = _colour_preserving_suit_maps()
    orbits: dict[tuple[str, str, str], int] = {}
    for first, second, third in product(SUITS, repeat=3):
        representative = min((m[first], m[second], m[third]) for m in maps)
        orbits[representative] = orbits.get(representative, 0) + 1
    return tuple(sorted(orbits.items()))


def _identity_pattern(ranks: Sequence[str], suits: Sequence[str]) -> int:
    cards = set(zip(ranks, suits, strict=True))
    return {3: 0, 2: 1, 1: 2}[len(cards)]


def _add_counts(table: dict[str | None, list[int]], category: str | None, pattern: int, weight: int) -> None:
    table.setdefault(category, [0, 0, 0])[pattern] += weight


@lru_cache(maxsize=1)
def representative_triples() -> tuple[tuple[Card, Card, Card, int, int], ...]:
    """Every rank triple with each suit-pattern representative, as the cards the classifier takes, with its
    identity pattern and orbit size. The same for every bet, so each bet's counts only classify: parsing the
    cards and finding the pattern once, not once per bet, is most of the enumeration's cost."""
    triples = []
    for ranks in product(RANKS, repeat=3):
        for suits, orbit_size in suit_pattern_orbits():
            first, second, up = (parse_card(rank + suit) for rank, suit in zip(ranks, suits, strict=True))
            triples.append((first, second, up, _identity_pattern(ranks, suits), orbit_size))
    return tuple(triples)


@lru_cache(maxsize=len(SIDE_BETS))
def category_pattern_counts(bet: str) -> dict[str | None, PatternCounts]:
    """Ordered triples per category (None: the bet loses), by identity pattern; independent of decks."""
    _check_bet(bet, allow_insurance=False)
    table: dict[str | None, list[int]] = {}
    for first, second, up, pattern, orbit_size in representative_triples():
        _add_counts(table, side_bet_outcome(bet, (first, second), up), pattern, orbit_size)
    return {category: (c[0], c[1], c[2]) for category, c in table.items()}


def category_pattern_counts_full(bet: str) -> dict[str | None, PatternCounts]:
    """The same counts from all 52**3 triples, without the suit symmetry (slow; for verification)."""
    _check_bet(bet, allow_insurance=False)
    table: dict[str | None, list[int]] = {}
    cards = [rank + suit for rank in RANKS for suit in SUITS]
    for texts in product(cards, repeat=3):
        first, second, up = (parse_card(text) for text in texts)
        category = side_bet_outcome(bet, (first, second), up)
        pattern = {3: 0, 2: 1, 1: 2}[len(set(texts))]
        _add_counts(table, category, pattern, 1)
    return {category: (c[0], c[1], c[2]) for category, c in table.items()}


def _check_bet(bet: str, *, allow_insurance: bool = True) -> None:
    known = ALL_SIDE_BETS if allow_insurance else SIDE_BETS
    if bet not in known:
        raise ValueError(f"unknown side bet {bet!r}; expected one of {', '.join(known)}")


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ValueError(f"decks must be a positive whole number, not {decks!r}")


def side_bet_breakdown(bet: str, decks: int = 8) -> dict[str, Fraction]:
    """Exact probability of each paytable category of ``bet`` (and of ``"lose"``) in an n-deck shoe.

    Insurance is offered on an ace up with the player's cards unknown: only the ace has left the shoe.
    """
    _check_bet(bet)
    _check_decks(decks)
    return dict(_breakdown(bet, decks))


@lru_cache(maxsize=256)
def _breakdown(bet: str, decks: int) -> tuple[tuple[str, Fraction], ...]:
    if bet == INSURANCE:
        p_win = Fraction(16 * decks, 52 * decks - 1)
        return ((INSURANCE_WIN, p_win), (LOSE, 1 - p_win))
    ways = (decks**3, decks * decks * (decks - 1), decks * (decks - 1) * (decks - 2))
    shoe = 52 * decks
    all_triples = shoe * (shoe - 1) * (shoe - 2)
    breakdown = {category: Fraction(0) for category in DEFAULT_PAYTABLES[bet]}
    breakdown[LOSE] = Fraction(0)
    for category, counts in category_pattern_counts(bet).items():
        dealt = sum(count * way for count, way in zip(counts, ways, strict=True))
        breakdown[category or LOSE] += Fraction(dealt, all_triples)
    return tuple(breakdown.items())


def side_bet_rtp(bet: str, paytable: Mapping[str, int], decks: int = 8) -> Fraction:
    """Exact return to player per unit staked: the sum over categories of P(category) * (1 + pays).

    ``paytable`` needs exactly the keys of ``DEFAULT_PAYTABLES[bet]`` (``{"dealer_blackjack": 2}`` for
    insurance), each a whole "to 1" pay of zero or more.
    """
    breakdown = side_bet_breakdown(bet, decks)
    expected_keys = set(breakdown) - {LOSE}
    if set(paytable) != expected_keys:
        missing = ", ".join(sorted(expected_keys - set(paytable))) or "none"
        unknown = ", ".join(sorted(set(paytable) - expected_keys)) or "none"
        raise ValueError(
            f"paytable for {bet} must have the lines {sorted(expected_keys)}: missing {missing}, "
            f"unknown {unknown}"
        )
    for line, pays in paytable.items():
        if isinstance(pays, bool) or not isinstance(pays, int) or pays < 0:
            raise ValueError(f"paytable line {bet}.{line} must pay a whole number >= 0, not {pays!r}")
    return sum(
        (probability * (1 + paytable[line]) for line, probability in breakdown.items() if line != LOSE),
        Fraction(0),
    )


def default_paytable(bet: str) -> dict[str, int]:
    _check_bet(bet)
    return dict(INSURANCE_PAYTABLE if bet == INSURANCE else DEFAULT_PAYTABLES[bet])


def side_bet_variance(bet: str, paytable: Mapping[str, int], decks: int = 8) -> Fraction:
    """Exact variance of one unit's net result (``pays`` on a winning line, -1 on a loss), per bet."""
    mean = side_bet_rtp(bet, paytable, decks) - 1
    breakdown = side_bet_breakdown(bet, decks)
    second = sum(
        (p * (paytable[line] ** 2 if line != LOSE else 1) for line, p in breakdown.items()), Fraction(0)
    )
    return second - mean * mean

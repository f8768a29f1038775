from fractions import Fraction
from itertools import product

import pytest

from rounds.engine.cards import ALL_CARDS, Card, parse_card
from rounds.engine.sidebets import DEFAULT_PAYTABLES, side_bet_net, side_bet_outcome


def cards(text: str) -> tuple[tuple[Card, Card], Card]:
    first, second, up = (parse_card(card) for card in text.split())
    return (first, second), up


@pytest.mark.parametrize(
    ("hand", "outcome"),
    [
        ("Qh Kh Ah", "straight_flush"),  # Q-K-A counts, ace high
        ("Qh Kd Ah", "straight"),
        ("Ah 2d 3c", "straight"),  # A-2-3 counts, ace low
        ("Ah 2h 3h", "straight_flush"),
        ("Kh Ad 2c", None),  # K-A-2 does not wrap
        ("Kh Ah 2h", "flush"),
        ("5h 5h 9h", "flush"),  # a suited pair with a third card of its suit is a flush
        ("5h 5h 9s", None),
        ("7d 7d 7d", "suited_trips"),
        ("7d 7h 7d", "three_of_a_kind"),
        ("9c Tc Jc", "straight_flush"),
        ("Jc 9d Tc", "straight"),
        ("2c 4c 3c", "straight_flush"),
    ],
)
def test_21_plus_3(hand: str, outcome: str | None) -> None:
    assert side_bet_outcome("21+3", *cards(hand)) == outcome


@pytest.mark.parametrize(
    ("hand", "outcome"),
    [
        ("7h 7d 7c", "777"),
        ("7s 7s 7s", "777"),  # 7-7-7 pays its own line once, even all suited
        ("As Ks Qs", "suited_21"),
        ("9d 2d Td", "suited_21"),
        ("Qs Kd Ah", "21"),
        ("As Ad 9h", "21"),  # 11 + 1 + 9
        ("Ac 9d Ts", "20"),  # ace counts 1 here
        ("5h 5h 9h", "19"),
        ("Kh Ad 2c", None),  # 13
        ("Th Td 5d", None),  # bust
    ],
)
def test_hot3(hand: str, outcome: str | None) -> None:
    assert side_bet_outcome("hot3", *cards(hand)) == outcome


@pytest.mark.parametrize(
    ("hand", "any_pair", "perfect_pairs"),
    [
        ("8s 8s 2c", "suited_pair", "perfect"),
        ("8h 8d 2c", "pair", "coloured"),
        ("8s 8c 2c", "pair", "coloured"),
        ("8h 8s 2c", "pair", "mixed"),
        ("Kh Qh 2c", None, None),  # equal value is not equal rank
    ],
)
def test_pairs(hand: str, any_pair: str | None, perfect_pairs: str | None) -> None:
    assert side_bet_outcome("any_pair", *cards(hand)) == any_pair
    assert side_bet_outcome("perfect_pairs", *cards(hand)) == perfect_pairs


def test_net_uses_the_paytable() -> None:
    assert side_bet_net("hot3", 100, *cards("7h 7d 7c")) == 10_000
    assert side_bet_net("hot3", 100, *cards("Kh Ad 2c")) == -100
    assert side_bet_net("any_pair", 100, *cards("8h 8d 2c"), paytable={"suited_pair": 30, "pair": 10}) == 1000


def _exact_rtp(bet: str, decks: int = 8) -> Fraction:
    size = 52 * decks
    paid = 0
    for first, second, third in product(ALL_CARDS, repeat=3):
        ways = decks * (decks - (second == first)) * (decks - (third == first) - (third == second))
        outcome = side_bet_outcome(bet, (first, second), third)
        if outcome is not None:
            paid += ways * (DEFAULT_PAYTABLES[bet][outcome] + 1)
    return Fraction(paid, size * (size - 1) * (size - 2))


@pytest.mark.parametrize(
    ("bet", "rtp"),
    [
        ("any_pair", Fraction(398, 415)),
        ("21+3", Fraction(119489, 124085)),
        ("hot3", Fraction(70427, 74451)),
        ("perfect_pairs", Fraction(398, 415)),
    ],
)
def test_exact_8_deck_rtp(bet: str, rtp: Fraction) -> None:
    assert _exact_rtp(bet) == rtp

"""Exact side-bet RTPs: the published figures, any paytable, any deck count."""

from fractions import Fraction

import pytest

from rounds.engine.rtp import ALL_SIDE_BETS, INSURANCE, default_paytable, side_bet_breakdown, side_bet_rtp
from rounds.engine.rtp.side_bets import (
    LOSE,
    category_pattern_counts,
    category_pattern_counts_full,
    suit_pattern_orbits,
)
from rounds.engine.sidebets import DEFAULT_PAYTABLES, SIDE_BETS

PUBLISHED_8_DECKS = {
    "any_pair": (Fraction(398, 415), "95.9036"),
    "21+3": (Fraction(119489, 124085), "96.2961"),
    "hot3": (Fraction(70427, 74451), "94.5951"),
    "perfect_pairs": (Fraction(398, 415), "95.9036"),
    INSURANCE: (Fraction(384, 415), "92.5301"),
}


def percent(rtp: Fraction) -> str:
    return f"{float(rtp) * 100:.4f}"


@pytest.mark.parametrize("bet", sorted(PUBLISHED_8_DECKS))
def test_default_paytable_gives_published_rtp_exactly(bet):
    exact, shown = PUBLISHED_8_DECKS[bet]
    rtp = side_bet_rtp(bet, default_paytable(bet))
    assert rtp == exact
    assert percent(rtp) == shown


def test_insurance_rounds_to_the_published_two_decimals():
    assert f"{float(side_bet_rtp(INSURANCE, {'dealer_blackjack': 2})) * 100:.2f}" == "92.53"


def test_paytable_keys_are_the_engines():
    for bet in SIDE_BETS:
        assert set(side_bet_breakdown(bet)) - {LOSE} == set(DEFAULT_PAYTABLES[bet])


def test_generous_perfect_pairs_paytable_is_over_100_percent():
    rtp = side_bet_rtp("perfect_pairs", {"perfect": 30, "coloured": 12, "mixed": 6})
    assert rtp >= 1
    assert f"{float(rtp) * 100:.2f}" == "104.34"


def test_rtp_is_the_dot_product_of_breakdown_and_paytable():
    paytable = {"777": 200, "suited_21": 15, "21": 3, "20": 2, "19": 0}
    breakdown = side_bet_breakdown("hot3", 6)
    expected = sum(breakdown[line] * (1 + pays) for line, pays in paytable.items())
    assert side_bet_rtp("hot3", paytable, 6) == expected


@pytest.mark.parametrize("bet", ALL_SIDE_BETS)
@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_breakdown_is_a_probability_distribution(bet, decks):
    breakdown = side_bet_breakdown(bet, decks)
    assert sum(breakdown.values()) == 1
    assert all(p >= 0 for p in breakdown.values())


def test_deck_count_changes_the_figures_plausibly():
    pair_1, pair_6, pair_8 = (side_bet_rtp("any_pair", default_paytable("any_pair"), d) for d in (1, 6, 8))
    # With one deck a pair needs a second copy of a rank that has lost a card: far rarer, far worse.
    assert pair_1 < pair_6 < pair_8 < 1
    assert Fraction(1, 2) < pair_1
    # One deck has no identical cards, so no suited pair at all.
    assert side_bet_breakdown("any_pair", 1)["suited_pair"] == 0
    assert side_bet_breakdown("21+3", 1)["suited_trips"] == 0
    three_6 = side_bet_rtp("21+3", default_paytable("21+3"), 6)
    assert three_6 != side_bet_rtp("21+3", default_paytable("21+3"), 8)
    assert Fraction(9, 10) < three_6 < 1


def test_a_single_deck_pair_has_its_textbook_probability():
    # 3 cards of the first card's rank among the other 51.
    breakdown = side_bet_breakdown("perfect_pairs", 1)
    assert 1 - breakdown[LOSE] == Fraction(3, 51)
    assert breakdown["coloured"] == Fraction(1, 51)
    assert breakdown["mixed"] == Fraction(2, 51)


def test_insurance_depends_only_on_the_ace_leaving_the_shoe():
    assert side_bet_breakdown(INSURANCE, 1)["dealer_blackjack"] == Fraction(16, 51)


def test_suit_symmetry_orbits_cover_every_suit_triple():
    orbits = suit_pattern_orbits()
    assert len(orbits) == 10
    assert sum(size for _, size in orbits) == 4**3


@pytest.mark.parametrize("bet", ["perfect_pairs", "21+3"])
def test_symmetric_enumeration_equals_the_full_one(bet):
    # perfect_pairs depends on colour and 21+3 on suits: the two ways the symmetry could be wrong.
    assert category_pattern_counts(bet) == category_pattern_counts_full(bet)


@pytest.mark.parametrize(
    ("bet", "paytable", "message"),
    [
        ("any_pair", {"pair": 8}, "missing suited_pair"),
        ("any_pair", {"suited_pair": 25, "pair": 8, "trips": 1}, "unknown trips"),
        ("any_pair", {"suited_pair": 25, "pair": -1}, "whole number"),
        ("any_pair", {"suited_pair": 25, "pair": 1.5}, "whole number"),
        ("baccarat", {}, "unknown side bet"),
    ],
)
def test_bad_paytables_are_refused(bet, paytable, message):
    with pytest.raises(ValueError, match=message):
        side_bet_rtp(bet, paytable)


@pytest.mark.parametrize("decks", [0, -1, True, 2.0])
def test_bad_deck_counts_are_refused(decks):
    with pytest.raises(ValueError, match="decks"):
        side_bet_rtp("any_pair", default_paytable("any_pair"), decks)


def test_breakdown_cannot_be_corrupted_through_the_cache():
    side_bet_breakdown("any_pair")["pair"] = Fraction(1)
    assert side_bet_rtp("any_pair", default_paytable("any_pair")) == Fraction(398, 415)


def test_side_bet_variance_from_first_principles():
    from fractions import Fraction

    from rounds.engine.rtp.side_bets import side_bet_variance

    # Insurance, 8 decks: wins 2 with p = 128/415, loses 1 otherwise.
    p = Fraction(128, 415)
    mean = 2 * p - (1 - p)
    expected = 4 * p + (1 - p) - mean * mean
    assert side_bet_variance("insurance", {"dealer_blackjack": 2}, 8) == expected
    # Paying 0 to 1 returns the stake on a pair: the result is 0 or -1, a Bernoulli variance q(1 - q).
    from rounds.engine.rtp.side_bets import side_bet_breakdown

    q = 1 - side_bet_breakdown("any_pair", 8)["lose"]
    assert side_bet_variance("any_pair", {"suited_pair": 0, "pair": 0}, 8) == q * (1 - q)

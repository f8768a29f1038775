"""The exact combinatorial analysis of the first hand of a fresh shoe, against published figures, the project's
simulation, the infinite-deck solution and well-known house edges of standard blackjack."""

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from rounds.engine.rtp import main_game_rtp, rtp_rules_for, simulate_first_hand_rtp
from rounds.engine.rtp.exact import _solve, fresh_shoe_counts
from rounds.engine.rtp.exact_dealer import ACE, HARD_POINTS, OUTCOMES, RANKS, TEN, dealer_distributions
from rounds.engine.rtp.strategy import strategy_tables

# The tests sharing the module's `profiles` (every profile solved, the costliest fixture of the suite) run on one
# xdist worker: make test's loadgroup would otherwise solve them in each.
pytestmark = pytest.mark.xdist_group("exact-rtp-profiles")

# paytables.md: 8 decks, first hand of the shoe, optimal strategy.
PUBLISHED = {"free_bet": 0.9845, "free_bet_seated": 0.9826, "classic_eu": 0.9949}
ALL_PROFILES = (
    "free_bet",
    "free_bet_seated",
    "classic_eu",
    "classic_us_peek_before",
    "classic_us_peek_after",
)


def solve(rules):
    # Through _solve, not the memoised entry point: every test computes its figure afresh.
    return _solve(rules, strategy_tables(rules))


@pytest.fixture(scope="module")
def profiles():
    return {name: solve(rtp_rules_for(name)) for name in ALL_PROFILES}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_figures_to_a_hundredth_of_a_point(profiles, name):
    result = profiles[name]
    assert abs(result.total_dependent.rtp - PUBLISHED[name]) < 0.0001
    assert abs(result.composition_dependent.rtp - PUBLISHED[name]) < 0.0001


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_PROFILES)
def test_more_knowledge_never_returns_less(profiles, name):
    # The infinite-deck strategy is one total-dependent strategy; composition-dependent play can copy TD.
    result = profiles[name]
    assert result.infinite_deck_strategy.rtp <= result.total_dependent.rtp + 1e-12
    assert result.total_dependent.rtp <= result.composition_dependent.rtp + 1e-12
    assert result.composition_dependent.rtp - result.infinite_deck_strategy.rtp < 0.0005


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_PROFILES)
def test_simulation_agrees_within_three_standard_errors(profiles, name):
    # The simulator plays the infinite-deck strategy; the analysis values that same strategy exactly.
    exact = profiles[name].infinite_deck_strategy
    simulated = simulate_first_hand_rtp(rtp_rules_for(name), 1_500_000, seed=99)
    assert abs(simulated.estimate - exact.rtp) < 3 * simulated.standard_error
    simulated_variance = simulated.standard_error**2 * simulated.hands
    assert simulated_variance == pytest.approx(exact.variance, rel=0.01)


@pytest.mark.slow
def test_many_decks_approach_the_infinite_deck_solution():
    rules = rtp_rules_for("free_bet")
    infinite = main_game_rtp(rules)
    gaps = [solve(replace(rules, decks=decks)).total_dependent.rtp - infinite for decks in (4, 16)]
    # The first hand of a fresh shoe gains over an infinite shoe, by about 1/decks.
    assert 0 < gaps[1] < gaps[0]
    assert gaps[0] == pytest.approx(4 * gaps[1], rel=0.25)


def _classic(decks=8, **flags):
    return replace(rtp_rules_for("classic_us_peek_before", {"charlie": None, **flags}), decks=decks)


@pytest.mark.slow
def test_single_deck_vegas_rules_are_about_even():
    # S17, double on any two cards, no double after split, one split, no surrender, peek, 3:2: the classic
    # "single deck is an even game" (published basic-strategy edges within a few hundredths of 0).
    result = solve(_classic(decks=1, double_after_split=False))
    assert abs(1 - result.total_dependent.rtp) < 0.0003


@pytest.mark.slow
def test_eight_deck_shoe_house_edge():
    # 8 decks S17 DAS, no resplit, no surrender, peek, 3:2: about 0.49 % (0.43 % with resplits to four
    # hands in the published calculators, a resplit being worth about 0.05 % in a shoe game).
    result = solve(_classic())
    assert 1 - result.total_dependent.rtp == pytest.approx(0.0049, abs=0.0003)


@pytest.mark.slow
def test_no_hole_card_losing_all_costs_about_a_tenth():
    # European no-hole-card, doubles and splits lost to a dealer blackjack: about 0.11 % more than peek.
    peek = solve(_classic()).total_dependent.rtp
    enhc = replace(
        _classic(), peek_up_cards=frozenset(), hole_card=False, late_ten_blackjack_returns_doubles=False
    )
    assert peek - solve(enhc).total_dependent.rtp == pytest.approx(0.0011, abs=0.0002)


@pytest.mark.slow
def test_six_to_five_costs_exactly_the_blackjack_premium():
    # Only a player blackjack that the dealer does not match changes: it pays 1.2 instead of 1.5.
    rules = _classic()
    cost = solve(rules).total_dependent.rtp - solve(replace(rules, blackjack_pays=1.2)).total_dependent.rtp
    shoe = [int(c) for c in fresh_shoe_counts(8)]
    size = sum(shoe)
    unmatched = Fraction(0)
    for up in range(RANKS):
        rest = list(shoe)
        rest[up] -= 1
        p_blackjack = Fraction(2 * rest[ACE] * rest[TEN], (size - 1) * (size - 2))
        left = {ACE: rest[ACE] - 1, TEN: rest[TEN] - 1}
        p_dealer = Fraction(left.get({ACE: TEN, TEN: ACE}.get(up, -1), 0), size - 3)
        unmatched += Fraction(shoe[up], size) * p_blackjack * (1 - p_dealer)
    assert cost == pytest.approx(float(Fraction(3, 10) * unmatched), abs=1e-12)


def _dealer_by_recursion(shoe: list[int], up: int) -> list[float]:
    """The dealer's outcomes by plain recursion over draws without replacement (an independent check)."""
    out = [0.0] * OUTCOMES

    def draw(hard, aces, cards, chance):
        total = hard + 10 if aces and hard + 10 <= 21 else hard
        if cards >= 2 and total >= 17:
            slot = (
                7 if (total == 21 and cards == 2) else total - 17 if total <= 21 else 5 if total == 22 else 6
            )
            out[slot] += chance
            return
        size = sum(shoe)
        for rank in range(RANKS):
            if shoe[rank]:
                p = shoe[rank] / size
                shoe[rank] -= 1
                draw(hard + HARD_POINTS[rank], aces + (rank == ACE), cards + 1, chance * p)
                shoe[rank] += 1

    draw(HARD_POINTS[up], int(up == ACE), 1, 1.0)
    return out


@pytest.mark.parametrize("up", [0, 4, 8, 9])
def test_dealer_distribution_matches_a_plain_recursion(up):
    shoe = [3, 2, 4, 1, 3, 2, 2, 3, 9, 2]  # a small, uneven shoe: card removal matters a lot
    fast = dealer_distributions(np.array([shoe]), up)[0]
    assert fast.sum() == pytest.approx(1.0, abs=1e-12)
    assert list(fast) == pytest.approx(_dealer_by_recursion(list(shoe), up), abs=1e-12)

"""Infinite-deck main-game EV and the optimal strategy chart."""

import pytest

from rounds.engine.rtp import (
    main_game_ev,
    main_game_rtp,
    rtp_rules_for,
    rtp_rules_from_engine,
    strategy_chart,
)
from rounds.engine.rtp.infinite_deck import (
    D22,
    DBJ,
    DBUST,
    UP_CARD_LABELS,
    UP_CARD_VALUE,
    dealer_outcome_distribution,
)
from rounds.engine.rtp.main_game import REAL_HAND, up_card_solvers
from rounds.engine.rules import rules_for

# Published dealer bust chances, infinite deck, dealer stands on soft 17 (blackjacks included in the total).
DEALER_BUSTS = {"2": 0.3536, "6": 0.4232, "T": 0.2121, "A": 0.1153}


@pytest.mark.parametrize("up", UP_CARD_LABELS)
def test_dealer_distribution_sums_to_one(up):
    for peeked in (False, True):
        assert sum(dealer_outcome_distribution(UP_CARD_VALUE[up], peeked)) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("up", "bust"), sorted(DEALER_BUSTS.items()))
def test_dealer_bust_chance_matches_published_tables(up, bust):
    outcome = dealer_outcome_distribution(UP_CARD_VALUE[up], False)
    assert outcome[D22] + outcome[DBUST] == pytest.approx(bust, abs=5e-5)


def test_peeked_distribution_has_no_blackjack():
    assert dealer_outcome_distribution(11, True)[DBJ] == 0
    assert dealer_outcome_distribution(11, False)[DBJ] == pytest.approx(4 / 13)


def test_well_known_close_decision_16_against_10():
    # Infinite deck, dealer peeked: stand -0.5404, hit -0.5398 (hit is a hair better).
    solver = up_card_solvers(rtp_rules_for("classic_us_peek_before"))["T"]
    options = solver.two_card_options(16, False, REAL_HAND, may_double=True)
    assert options["S"] == pytest.approx(-0.5404, abs=1e-4)
    assert options["H"] == pytest.approx(-0.5398, abs=1e-4)


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        # Infinite-deck figures sit a little below the 8-deck first-hand ones in docs/paytables.md.
        ("free_bet", 0.9830, 0.9850),
        ("free_bet_seated", 0.9810, 0.9830),
        ("classic_eu", 0.9930, 0.9950),
        ("classic_us_peek_before", 0.9935, 0.9955),
    ],
)
def test_infinite_deck_rtp_is_in_the_known_ballpark(name, low, high):
    assert low < main_game_rtp(rules_for(name)) < high


def test_rtp_is_one_plus_ev():
    rules = rules_for("classic_eu")
    assert main_game_rtp(rules) == 1 + main_game_ev(rules)


def test_engine_rules_and_rtp_rules_give_the_same_figure():
    assert main_game_ev(rules_for("free_bet")) == main_game_ev(rtp_rules_for("free_bet"))


def test_six_card_charlie_is_worth_about_two_tenths_of_a_percent():
    with_charlie = main_game_ev(rules_for("free_bet"))
    without = main_game_ev(rules_for("free_bet", {"six_card_charlie": False}))
    assert 0.001 < with_charlie - without < 0.003
    # Without Charlie the common-draw game plays exactly like the seated one.
    assert without == pytest.approx(main_game_ev(rules_for("free_bet_seated")), abs=1e-15)


def test_checking_after_the_action_settles_like_eu():
    assert main_game_ev(rules_for("classic_us_peek_after")) == pytest.approx(
        main_game_ev(rules_for("classic_eu")), abs=1e-15
    )


def test_peeking_before_the_action_helps_the_player():
    assert main_game_ev(rules_for("classic_us_peek_before")) > main_game_ev(rules_for("classic_eu"))


def test_eu_returning_doubles_under_a_ten_helps_the_player():
    harsher = rtp_rules_for("classic_eu", {"ten_up_blackjack_returns_double": False})
    assert main_game_ev(rules_for("classic_eu")) > main_game_ev(harsher)


def test_dealer_22_push_costs_the_player_several_percent():
    cost = main_game_ev(rules_for("classic_eu")) - main_game_ev(
        rules_for("classic_eu", {"dealer_22_push": True})
    )
    assert 0.05 < cost < 0.09


def test_free_bets_more_than_pay_for_dealer_22():
    no_free = rules_for("free_bet", {"free_double": False, "free_split": False})
    assert main_game_ev(rules_for("free_bet")) - main_game_ev(no_free) > 0.05


def test_rtp_rules_mapping_reads_the_engine_flags():
    mapped = rtp_rules_from_engine(
        rules_for("classic_us_peek_before", {"ten_card_charlie": False, "das": False})
    )
    assert mapped.peek_up_cards == frozenset({"A", "T"})
    assert mapped.charlie_cards is None
    assert mapped.double_after_split is False
    assert mapped.hole_card is True
    assert rtp_rules_from_engine(rules_for("classic_eu")).hole_card is False
    assert rtp_rules_from_engine(rules_for("free_bet")).free_double_totals == (9, 10, 11)


def test_mapping_refuses_other_objects():
    with pytest.raises(TypeError):
        rtp_rules_from_engine("free_bet")


UPS = list(UP_CARD_LABELS)


@pytest.mark.parametrize("name", ["free_bet", "free_bet_seated", "classic_eu", "classic_us_peek_before"])
def test_chart_shape(name):
    chart = strategy_chart(rules_for(name))
    assert list(chart["hard"]) == list(range(4, 22))
    assert list(chart["soft"]) == list(range(12, 22))
    assert list(chart["pairs"]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    for section in ("hard", "soft", "pairs"):
        for row in chart[section].values():
            assert list(row) == UPS
            assert set(row.values()) <= {"H", "S", "D", "Ds", "FD", "FDs", "P", "FP"}
    assert all(action == "S" for action in chart["hard"][21].values())
    assert all(action == "S" for action in chart["soft"][21].values())
    assert ("free_split_hand" in chart) == name.startswith("free_bet")


def test_free_bet_chart_takes_every_free_offer():
    chart = strategy_chart(rules_for("free_bet"))
    for total in (9, 10, 11):
        assert set(chart["hard"][total].values()) == {"FD"}
    for pair in "A2346789":
        assert set(chart["pairs"][pair].values()) == {"FP"}
    assert set(chart["pairs"]["5"].values()) == {"FD"}  # 5-5 is a hard 10: the free double beats the split
    assert set(chart["pairs"]["T"].values()) == {"S"}  # tens split only with real money: never worth it


def test_free_split_hand_is_played_for_the_win():
    # A free hand cannot lose money, so it hits stiff totals a real hand would stand on.
    free_hand = strategy_chart(rules_for("free_bet"))["free_split_hand"]["hard"]
    assert free_hand[17]["A"] == "H"
    assert strategy_chart(rules_for("free_bet"))["hard"][17]["A"] == "S"


def test_classic_chart_has_the_textbook_cells():
    chart = strategy_chart(rules_for("classic_us_peek_before"))
    assert chart["hard"][11]["T"] == "D"
    assert chart["hard"][16]["T"] == "H"
    assert chart["hard"][12]["4"] == "S"
    assert chart["soft"][18]["6"] == "Ds"
    assert chart["pairs"]["8"]["A"] == "P"
    assert chart["pairs"]["9"]["7"] == "S"


def test_eu_chart_avoids_putting_more_money_against_a_possible_blackjack():
    chart = strategy_chart(rules_for("classic_eu"))
    assert chart["pairs"]["8"]["T"] == "H"  # split stakes are lost to a 10-up blackjack
    assert chart["pairs"]["A"]["A"] == "H"
    assert chart["hard"][11]["A"] == "H"
    assert chart["hard"][11]["T"] == "D"  # the doubled portion comes back under a 10


def test_charlie_exceptions_list_the_hits_that_chase_a_charlie():
    chart = strategy_chart(rules_for("free_bet"))
    # Five cards on a soft 20: no card can bust it, so hitting makes a sure Six Card Charlie.
    assert set(chart["charlie_exceptions"][5]["soft"][20].values()) == {"H"}
    assert chart["charlie_exceptions"][5]["hard"][16]["2"] == "H"
    assert "charlie_exceptions" not in strategy_chart(rules_for("free_bet_seated"))
    assert max(strategy_chart(rules_for("classic_eu"))["charlie_exceptions"]) == 9


def test_chart_is_a_fresh_copy_each_time():
    chart = strategy_chart(rules_for("classic_eu"))
    chart["hard"][16]["T"] = "S"
    assert strategy_chart(rules_for("classic_eu"))["hard"][16]["T"] == "H"

import json

import pytest

from rounds.engine.errors import EngineError
from rounds.engine.rules import PROFILE_DEFAULTS, SCRIPT_RULE_NAMES, Rules, rules_for


def test_profiles_follow_rules_md() -> None:
    free, seated, classic = (rules_for(name) for name in ("free_bet", "free_bet_seated", "classic"))
    assert (free.common_draw, free.max_seats, free.charlie, free.bet_behind) == (True, None, 6, False)
    assert free.side_bets == ("any_pair", "21+3", "hot3")
    assert (seated.common_draw, seated.max_seats, seated.charlie, seated.bet_behind) == (False, 7, None, True)
    assert seated.side_bets == ("perfect_pairs", "21+3")
    for rules in (free, seated):
        assert rules.free_double and rules.free_split and rules.dealer_22_push
        assert (
            not rules.double_after_split and rules.timeout == "hit_11_or_less" and rules.dealing == "ace_peek"
        )
    assert (classic.dealing, classic.charlie, classic.timeout) == ("eu", 10, "stand")
    assert classic.double_after_split and not classic.free_double and not classic.dealer_22_push
    assert classic.golden_chips and classic.ten_up_blackjack_returns_double


@pytest.mark.parametrize(
    ("name", "dealing", "peek_ace", "peek_ten", "hole"),
    [
        ("free_bet", "ace_peek", True, False, True),
        ("classic", "eu", False, False, False),
        ("classic_eu", "eu", False, False, False),
        ("classic_us_peek_before", "us_peek_before", True, True, True),
        ("classic_us_peek_after", "us_peek_after", False, False, True),
    ],
)
def test_dealing_modes(name: str, dealing: str, peek_ace: bool, peek_ten: bool, hole: bool) -> None:
    rules = rules_for(name)
    assert rules.dealing == dealing
    assert (rules.peeks(1), rules.peeks(10), rules.peeks(9), rules.has_hole_card) == (
        peek_ace,
        peek_ten,
        False,
        hole,
    )


@pytest.mark.parametrize("name", sorted(SCRIPT_RULE_NAMES))
def test_snapshot_round_trips_through_json(name: str) -> None:
    rules = rules_for(name, {"decks": 6, "paytables": {"hot3": {"777": 90}}})
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert rules.paytable("hot3")["777"] == 90 and rules.paytable("hot3")["21"] == 4


def test_overrides_and_aliases() -> None:
    assert rules_for("free_bet", {"six_card_charlie": False}).charlie is None
    assert rules_for("classic", {"ten_card_charlie": False}).charlie is None
    assert rules_for("classic", {"das": False}).double_after_split is False
    assert rules_for("free_bet_seated", {"dealer_22": False}).dealer_22_push is False
    assert rules_for("classic", {"dealing": "us_peek_before"}).name == "classic_us_peek_before"
    assert rules_for("free_bet", {"side_bets": ["21+3"]}).side_bets == ("21+3",)
    assert rules_for("free_bet", {}) == PROFILE_DEFAULTS["free_bet"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"colour": "red"}, "unknown table flag 'colour'"),
        ({"dealing": "asian"}, "flag dealing must be one of"),
        ({"timeout": "hit"}, "flag timeout must be one of"),
        ({"charlie": 2}, "flag charlie must be"),
        ({"dealer_22_push": "yes"}, "must be true or false"),
        ({"decks": 0}, "flag decks"),
        ({"side_bets": ["lucky_ladies"]}, "flag side_bets"),
        ({"paytables": {"hot3": {"888": 5}}}, "bad paytable line"),
        ({"six_card_charlie": 1}, "must be true or false"),
    ],
)
def test_bad_overrides_are_refused_clearly(overrides: dict, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        rules_for("free_bet", overrides)


def test_unknown_profile() -> None:
    with pytest.raises(EngineError, match="unknown rules 'blackjack_switch'"):
        rules_for("blackjack_switch")
    with pytest.raises(EngineError, match="profile"):
        Rules.from_dict({"profile": "nope"})


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("classic_eu", {"dealing": "us_peek_before"}),
        ("classic_us_peek_after", {"dealing": "eu"}),
        ("free_bet", {"dealing": "eu"}),
        ("free_bet_seated", {"dealing": "us_peek_before"}),
        ("classic", {"dealing": "ace_peek"}),
    ],
)
def test_an_override_that_contradicts_the_named_dealing_is_refused(name: str, overrides: dict) -> None:
    # docs/round-script.md: classic_* fixes the dealing; an override that contradicts it makes a script invalid.
    with pytest.raises(EngineError, match="deal"):
        rules_for(name, overrides)


def test_an_override_that_repeats_the_named_dealing_is_accepted() -> None:
    assert rules_for("classic_us_peek_after", {"dealing": "us_peek_after"}).dealing == "us_peek_after"
    assert rules_for("free_bet", {"dealing": "ace_peek"}).dealing == "ace_peek"

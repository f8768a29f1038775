"""`manage.py rtp --rules PROFILE --set FLAG=VALUE --json`: every exact figure of a configuration, no database."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def run(*args):
    out = StringIO()
    call_command("rtp", *args, stdout=out)
    return json.loads(out.getvalue())


def test_profile_figures_without_a_database():
    figures = run("--rules", "classic_eu", "--json")
    main = figures["main_game"]
    assert abs(main["rtp"] - 0.9949) < 0.0001
    assert main["rtp_infinite_deck"] < main["rtp"] <= main["rtp_composition_dependent"]
    assert 1.2 < main["variance"] < 1.45
    assert set(figures["side_bets"]) == {"perfect_pairs", "21+3", "insurance"}
    assert figures["side_bets"]["perfect_pairs"]["rtp"]["exact"] == "398/415"


@pytest.mark.slow
def test_flags_change_the_configuration():
    six_to_five = run(
        "--rules", "classic_eu", "--set", "blackjack_pays=6:5", "--set", "charlie=null", "--json"
    )
    three_to_two = run("--rules", "classic_eu", "--set", "charlie=null", "--json")
    assert six_to_five["configuration"]["blackjack_pays"] == "6:5"
    assert 0.012 < three_to_two["main_game"]["rtp"] - six_to_five["main_game"]["rtp"] < 0.015


@pytest.mark.parametrize(
    "flag", ["decks=9", "blackjack_pays=7:5", "dealing=sideways", "no_such_flag=1", "decks"]
)
def test_bad_flags_are_refused_with_a_clear_message(flag):
    with pytest.raises(CommandError):
        run("--rules", "free_bet", "--set", flag, "--json")

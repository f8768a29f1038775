import re
from fractions import Fraction
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tables import rtp
from tests.factories import TableFactory

# docs/paytables.md: main game, optimal strategy, first hand of an 8-deck shoe, given to two decimals.
PUBLISHED_MAIN_RTP = {"free_bet": 0.9845, "free_bet_seated": 0.9826, "classic": 0.9949}
SIMULATED_HANDS = 4_000_000


def test_percentages_round_half_up_from_exact_fractions():
    assert rtp.percent(Fraction(398, 415)) == "95.9036"
    assert rtp.percent(Fraction(1, 8), 2) == "12.50"
    assert rtp.percent(Fraction(123456785, 10**11)) == "0.1235"  # exactly half way: rounds up
    assert rtp.percent(Fraction(1)) == "100.0000"


def _rtp_output(code: str, *extra) -> str:
    out = StringIO()
    call_command("rtp", "--table", code, *extra, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("profile", "side_bets", "infinite"),
    [
        ("free_bet", {"Any Pair": "95.9036 %  = 398/415", "21+3": "96.2961 %  = 119489/124085",
                      "Hot 3": "94.5951 %  = 70427/74451"}, "98.4283 %"),
        ("free_bet_seated", {"Perfect Pairs": "95.9036 %  = 398/415", "21+3": "96.2961 %  = 119489/124085"},
         "98.2320 %"),
        ("classic", {"Perfect Pairs": "95.9036 %  = 398/415", "21+3": "96.2961 %  = 119489/124085"},
         "99.3992 %"),
    ],
)
def test_rtp_command_prints_exact_side_bets_and_the_main_game_within_its_error(roles, profile, side_bets,
                                                                               infinite):
    TableFactory(code="RT01", profile=profile)
    output = _rtp_output("RT01", "--simulate", str(SIMULATED_HANDS), "--seed", "11")
    lines = output.splitlines()
    for label, figure in side_bets.items():
        assert any(line.strip().startswith(label) and figure in line for line in lines), (label, output)
    assert re.search(r"Insurance +92\.5301 %  = 384/415", output)
    assert f"infinite deck, optimal total-dependent strategy (exact): {infinite}" in output
    simulated = next(line for line in lines if "simulated" in line)
    estimate, error = (float(part.split("%")[0]) / 100 for part in simulated.split(": ")[-1].split(" ± "))
    assert f"{SIMULATED_HANDS} hands" in simulated and 0 < error < 0.001
    # Three standard errors, plus half a unit of the published figure's last digit.
    assert abs(estimate - PUBLISHED_MAIN_RTP[profile]) <= 3 * error + 0.00005, simulated


@pytest.mark.slow
@pytest.mark.django_db
def test_rtp_command_follows_the_table_paytable_and_decks(operator):
    from tables import services

    table = TableFactory(code="RT02", profile="classic", decks=6)
    services.paytable_set(actor=operator, reason="test change", table=table, side_bet="perfect_pairs",
                          paytable={"perfect": 25, "coloured": 10, "mixed": 5})
    output = _rtp_output("RT02")
    assert "Side bets (exact, 6 decks)" in output
    assert re.search(rf"Perfect Pairs +{rtp.percent(Fraction(5 * 26 + 6 * 11 + 12 * 6, 311))} %  = 268/311", output)
    assert "simulated" not in output


@pytest.mark.django_db
def test_rtp_command_refuses_an_unknown_table():
    with pytest.raises(CommandError, match="No table with code 'NOPE'"):
        _rtp_output("NOPE")


@pytest.mark.django_db
@pytest.mark.parametrize(("profile", "exact"), [("free_bet", "98.4467"), ("classic", "99.4838")])
def test_table_page_shows_the_exact_first_hand_figure_as_theoretical(client_for, operator, profile, exact):
    from django.urls import reverse

    TableFactory(code="RT02", profile=profile)
    page = client_for(operator).get(reverse("table_detail", args=["RT02"])).content.decode()
    assert re.search(rf'data-rtp="main-exact">{exact} %', page), page
    assert "Theoretical RTP: first hand of a fresh 8-deck shoe" in page
    assert "Cross-check: infinite deck" in page

"""Stranded money is visible: stakes a round holds but will never let go are reported by `ledger_audit` and shown
on the operator dashboard, in plain words (what, which round, how much, since when). Each case writes the state
the bug that strands money leaves behind, on rounds played through the services."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from rounds import services
from rounds.models import Round, RoundState, Spot
from rounds.stranded_money import HELD_TOO_LONG, STUCK_AFTER
from tests.factories import new_key
from wallet.audit import STRANDED_MONEY, ledger_audit_run


def audit_fails_with(capsys, *parts: str) -> str:
    capsys.readouterr()
    with pytest.raises(CommandError, match="ledger audit found 1 discrepancies"):
        call_command("ledger_audit")
    err = capsys.readouterr().err
    for part in parts:
        assert part in err, (part, err)
    return err


def dashboard_shows(client_for, operator, *parts: str) -> str:
    page = client_for(operator).get(reverse("backoffice_dashboard"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Money is stuck: 1 problem the ledger audit found" in text
    for part in parts:
        assert part in text, part
    return text


def held_round(play, table, player, *, stake=1000):
    r = play(table)
    r.bet(player, {"main": stake})
    return r


def dealt_to_settling(play, table, player):
    """A common-draw round the dealer finished: settling, its settle task not run."""
    r = held_round(play, table, player)
    r.close()
    r.cards("Th", "9c", "Kd", "7s")  # player 20; dealer 9 and a hole card
    r.decide(player, "stand")
    r.cards("2s")  # dealer 18
    r.complete()
    assert r.refresh().state == RoundState.SETTLING
    return r


pytestmark = [pytest.mark.django_db, pytest.mark.no_audit]


def test_a_hold_left_pending_in_a_voided_and_refunded_round_is_reported(
        capsys, client_for, operator, play, free_bet_table, funded):
    player = funded()
    r = held_round(play, free_bet_table, player)
    services.round_void(round_id=r.id, actor=operator, reason="camera failure")
    # The bug: the refunds are marked done, yet the stake was never refunded.
    Round.objects.filter(pk=r.id).update(refunds_done_at=timezone.now())
    game = r.refresh().game_number
    audit_fails_with(capsys, "[round_stakes_held]", f"Round {game} at table FB01 was voided and its refunds marked "
                     "done", "10.00 EUR (1 bet) of its stakes are still held", f"game_number={game}")
    dashboard_shows(client_for, operator, game, "10.00 EUR (1 bet)",
                    reverse("backoffice_round", args=[game]))


def test_a_hold_left_pending_in_a_settled_round_is_reported(capsys, client_for, operator, play, free_bet_table,
                                                            funded):
    player = funded()
    r = held_round(play, free_bet_table, player, stake=2500)
    # The bug: the round says settled, its stake was never resolved.
    Round.objects.filter(pk=r.id).update(state=RoundState.SETTLED, settled_at=timezone.now(), settlement={},
                                         deadline=None)
    game = r.refresh().game_number
    audit_fails_with(capsys, f"Round {game} at table FB01 was settled at", "25.00 EUR (1 bet)")
    dashboard_shows(client_for, operator, game, "was settled at", "25.00 EUR (1 bet)")


def test_stakes_held_in_a_round_in_play_for_too_long_are_reported(capsys, client_for, operator, play,
                                                                  free_bet_table, funded):
    player = funded()
    placed = timezone.now() - HELD_TOO_LONG - timedelta(minutes=10)
    r = play(free_bet_table, now=placed)
    services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                        idempotency_key=new_key(), now=placed)
    game = r.refresh().game_number
    audit_fails_with(capsys, f"Round {game} at table FB01 is still betting open, and 10.00 EUR (1 bet) of its "
                     f"stakes have been held since {placed:%Y-%m-%d %H:%M:%S} UTC (70 minutes)")
    dashboard_shows(client_for, operator, game, "is still betting open")


def test_a_stake_on_a_voided_spot_whose_hold_is_pending_is_reported(capsys, client_for, operator, play,
                                                                   seated_table, funded):
    player = funded(username="vera_voided")
    r = play(seated_table)
    r.bet(player, {"main": 1000}, seat=3)
    # The bug: the spot is voided, its stake not refunded.
    voided_at = timezone.now()
    Spot.objects.filter(round_id=r.id).update(voided_at=voided_at, void_reason="left")
    game = r.refresh().game_number
    audit_fails_with(capsys, "[voided_spot_stakes_held]", f"A spot of round {game} at table FS01 (vera_voided's "
                     f"seat 3) was voided at {voided_at:%Y-%m-%d %H:%M:%S} UTC", "10.00 EUR (1 bet) was never refunded")
    dashboard_shows(client_for, operator, game, "vera_voided&#x27;s seat 3")


def test_a_round_stuck_settling_is_reported_with_the_money_it_holds(capsys, client_for, operator, play,
                                                                    free_bet_table, funded):
    player = funded()
    r = dealt_to_settling(play, free_bet_table, player)
    since = timezone.now() - STUCK_AFTER - timedelta(minutes=7)
    Round.objects.filter(pk=r.id).update(settling_at=since)
    game = r.refresh().game_number
    audit_fails_with(capsys, "[round_stuck]", f"has been settling since {since:%Y-%m-%d %H:%M:%S} UTC (12 minutes)",
                     "10.00 EUR (1 bet) of stakes are held until it is")
    dashboard_shows(client_for, operator, game, "has been settling since", "(12 minutes)")
    # The settle runs at last: nothing is stuck any more.
    assert services.round_settle(round_id=r.id)
    assert ledger_audit_run() == []


def test_a_voided_round_whose_refunds_never_ran_is_reported(capsys, client_for, operator, play, free_bet_table,
                                                            funded):
    player = funded()
    r = held_round(play, free_bet_table, player)
    services.round_void(round_id=r.id, actor=operator, reason="camera failure")
    assert ledger_audit_run(groups=[STRANDED_MONEY]) == []  # just voided: its refund task is on its way
    since = timezone.now() - STUCK_AFTER - timedelta(minutes=1)
    Round.objects.filter(pk=r.id).update(voided_at=since)
    game = r.refresh().game_number
    audit_fails_with(capsys, f"was voided at {since:%Y-%m-%d %H:%M:%S} UTC (6 minutes ago) and its refunds are "
                     "not done; 10.00 EUR (1 bet) of stakes wait for their refund")
    dashboard_shows(client_for, operator, game, "its refunds are not done")
    assert services.round_void_refunds(round_id=r.id)
    assert ledger_audit_run() == []


def test_a_clean_ledger_reports_nothing_and_the_dashboard_shows_no_alert(capsys, client_for, operator, play,
                                                                         free_bet_table, funded):
    player = funded()
    settled = dealt_to_settling(play, free_bet_table, player)
    services.round_settle(round_id=settled.id)
    voided = held_round(play, free_bet_table, player)
    services.round_void(round_id=voided.id, actor=operator, reason="camera failure")
    services.round_void_refunds(round_id=voided.id)
    held_round(play, free_bet_table, player)  # a round in play holds its stakes, as it should
    capsys.readouterr()
    call_command("ledger_audit")
    assert "Ledger sound" in capsys.readouterr().out
    text = client_for(operator).get(reverse("backoffice_dashboard")).content.decode()
    assert "Money is stuck" not in text and "stuck money problems" in text

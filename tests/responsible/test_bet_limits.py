"""The bet path: a loss limit, a time-out or self-exclusion, a session time limit and an unanswered reality check
each refuse the bet with a clear message, and nothing moves (no hold, no round bet, no spot)."""

import threading
from datetime import timedelta

import pytest
import time_machine
from django.db import connections
from django.utils import timezone

from responsible import services as rg
from responsible.checks import bet_allowed
from responsible.errors import Excluded, LimitReached, RealityCheckDue
from rounds.models import RoundBet, Spot
from tests.factories import RoundTableFactory, new_key
from wallet import selectors, services
from wallet.models import Bet


def _nothing_moved(player, balance):
    assert selectors.player_balance(player=player, currency="EUR") == balance
    assert not Bet.objects.filter(account__player=player).exists()
    assert not RoundBet.objects.filter(spot__player=player).exists()
    assert not Spot.objects.filter(player=player).exists()


@pytest.mark.django_db
def test_a_bet_past_the_daily_loss_limit_is_refused_and_nothing_moves(play, free_bet_table, funded):
    player = funded(cash=500_00)
    rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=20_00)
    r = play(free_bet_table)
    with pytest.raises(LimitReached) as refused:
        r.bet(player, {"main": 25_00})
    assert "daily loss limit" in refused.value.message and "resets at" in refused.value.message
    _nothing_moved(player, 500_00)
    r.bet(player, {"main": 20_00})  # up to the limit: allowed


@pytest.mark.django_db
def test_the_loss_limit_counts_open_stakes_as_lost_and_returns_back(play, free_bet_table, funded):
    player = funded(cash=500_00)
    rg.limit_set(player=player, kind="loss", period="week", currency="EUR", value=30_00)
    r = play(free_bet_table)
    r.bet(player, {"main": 20_00})
    with pytest.raises(LimitReached, match="weekly loss limit"):
        r.bet(player, {"main": 11_00})


@pytest.mark.django_db
def test_a_time_out_refuses_bets_and_deposits_but_not_withdrawals(play, free_bet_table, funded):
    player = funded(cash=100_00)
    rg.exclusion_start(player=player, kind="time_out", days=7)
    r = play(free_bet_table)
    with pytest.raises(Excluded, match="time-out"):
        r.bet(player, {"main": 10_00})
    _nothing_moved(player, 100_00)
    with pytest.raises(Excluded, match="withdraw"):
        services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    services.withdraw(player=player, currency="EUR", amount=100_00, idempotency_key=new_key())
    assert selectors.player_balance(player=player, currency="EUR") == 0


@pytest.mark.django_db
def test_an_open_round_settles_normally_after_a_self_exclusion_starts(play, free_bet_table, funded):
    player = funded(cash=100_00)
    r = play(free_bet_table)
    r.bet(player, {"main": 10_00})
    rg.exclusion_start(player=player, kind="self_exclusion", days=None)
    r.close()
    r.cards("8h", "9s", "8d", "7c")
    r.decide(player, "stand")
    r.cards("Tc")
    r.complete()
    assert r.settle().state == "settled"


def _hold(player, amount=1_00):
    return services.bet_hold(player=player, holds=[services.BetHoldSpec(amount, "EUR")], idempotency_key=new_key())


@pytest.mark.django_db
def test_a_session_past_its_time_limit_refuses_the_next_bet_until_a_break(play, free_bet_table, funded):
    player = funded(cash=500_00)
    rg.limit_set(player=player, kind="session", value=60)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for minutes in (0, 20, 40, 60):  # bet after bet: one continuous session of an hour
            clock.move_to(start + timedelta(minutes=minutes))
            _hold(player)
        r = play(free_bet_table)
        with pytest.raises(LimitReached, match="session time limit of 60 minutes") as refused:
            r.bet(player, {"main": 1_00})
        assert "break of 30 minutes" in refused.value.message
        clock.move_to(start + timedelta(minutes=95))  # half an hour without play: a new session
        bet_allowed(player=player, currency="EUR", cash_amount=1_00, now=timezone.now())


@pytest.mark.django_db
def test_a_reality_check_due_refuses_bets_until_the_player_answers(play, free_bet_table, funded):
    player = funded(cash=500_00)
    rg.reality_check_set(player=player, minutes=30)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        _hold(player)
        clock.move_to(start + timedelta(minutes=20))
        _hold(player)
        clock.move_to(start + timedelta(minutes=31))
        r = play(free_bet_table)
        with pytest.raises(RealityCheckDue, match="played for 31 minutes"):
            r.bet(player, {"main": 1_00})
        rg.reality_check_answer(player=player, choice="continue")
        r.bet(player, {"main": 1_00})


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_bets_at_two_tables_that_together_pass_the_loss_limit_one_is_refused(play, funded):
    player = funded(cash=500_00)
    rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=100_00)
    rounds = [play(RoundTableFactory(profile="free_bet", code=code)) for code in ("FB01", "FB02")]
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(i):
        try:
            barrier.wait()
            results[i] = rounds[i].bet(player, {"main": 60_00})
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(type(r).__name__ for r in results) == ["LimitReached", "dict"], results
    assert selectors.player_balance(player=player, currency="EUR") == 440_00

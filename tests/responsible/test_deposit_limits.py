"""Deposit limits in the cashier's service: a deposit that would pass one is refused, says which limit and when it
resets, and moves nothing; two concurrent deposits that pass it together are ordered by the account lock."""

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from responsible import services as rg
from responsible.errors import DepositLimitRequired, LimitReached
from tests.factories import new_key
from wallet import selectors, services
from wallet.models import LedgerTransaction


def _deposit(player, amount, key=None):
    return services.deposit(player=player, currency="EUR", amount=amount, idempotency_key=key or new_key())


@pytest.mark.django_db
def test_a_deposit_past_the_daily_limit_is_refused_naming_the_limit_and_its_reset(player):
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=100_00)
    _deposit(player, 80_00)
    before = LedgerTransaction.objects.count()
    with pytest.raises(LimitReached) as refused:
        _deposit(player, 30_00)
    message = refused.value.message
    assert "daily deposit limit" in message and "100.00" in message and "20.00" in message
    assert "resets at" in message and "00:00" in message
    assert LedgerTransaction.objects.count() == before
    assert selectors.player_balance(player=player, currency="EUR") == 80_00
    _deposit(player, 20_00)  # exactly up to the limit is allowed


@pytest.mark.django_db
def test_the_weekly_and_monthly_limits_count_too_and_other_currencies_not(player):
    rg.limit_set(player=player, kind="deposit", period="month", currency="EUR", value=50_00)
    services.deposit(player=player, currency="USD", amount=500_00, idempotency_key=new_key())
    _deposit(player, 50_00)
    with pytest.raises(LimitReached, match="monthly deposit limit"):
        _deposit(player, 1_00)


@pytest.mark.django_db
def test_a_replayed_deposit_is_returned_not_refused_by_the_limit_it_used_up(player):
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=100_00)
    first = _deposit(player, 100_00, key="same")
    again = _deposit(player, 100_00, key="same")
    assert again.pk == first.pk and again.replayed


@pytest.mark.django_db
def test_a_raised_limit_only_counts_after_its_cooling_off(player):
    now = timezone.now()
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=10_00, now=now)
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=1000_00, now=now)
    with pytest.raises(LimitReached):
        _deposit(player, 20_00)


@pytest.mark.django_db
def test_sweden_needs_a_deposit_limit_before_the_first_deposit(player, swedish):
    swedish(player)
    with pytest.raises(DepositLimitRequired, match="set a deposit limit"):
        _deposit(player, 10_00)
    assert not LedgerTransaction.objects.filter(entries__account__player=player).exists()
    rg.limit_set(player=player, kind="deposit", period="week", currency="EUR", value=100_00)
    _deposit(player, 10_00)


@pytest.mark.django_db
def test_a_withdrawal_does_not_give_the_deposit_limit_back(player):
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=100_00)
    _deposit(player, 100_00)
    services.withdraw(player=player, currency="EUR", amount=100_00, idempotency_key=new_key())
    with pytest.raises(LimitReached):
        _deposit(player, 1_00)


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_deposits_that_together_pass_the_limit_one_is_refused(player):
    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR",
                 value=100_00, now=timezone.now() - timedelta(seconds=1))
    _deposit(player, 1_00)  # the account exists, so both threads queue on its row lock
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(i):
        try:
            barrier.wait()
            results[i] = _deposit(player, 60_00)
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    refused = [r for r in results if isinstance(r, LimitReached)]
    done = [r for r in results if isinstance(r, LedgerTransaction)]
    assert (len(done), len(refused)) == (1, 1), results
    assert selectors.player_balance(player=player, currency="EUR") == 61_00

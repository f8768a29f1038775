"""A player's bets from one account are held in one statement on PostgreSQL (wallet.sql hold_one_account):
refusals leave nothing behind, a first bet in a currency still opens the house's account, and the result is the
general path's."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.factories import DepositFactory, PlayerFactory, new_key
from wallet import errors, selectors, services
from wallet.models import Account, AccountKind, Bet, Entry, LedgerTransaction
from wallet.services import BetHoldSpec

pytestmark = pytest.mark.django_db


def counts():
    return LedgerTransaction.objects.count(), Entry.objects.count(), Bet.objects.count()


def test_a_first_bet_in_a_currency_opens_the_house_account_then_later_bets_take_one_statement(roles):
    player = PlayerFactory()
    DepositFactory(player=player, currency="SEK", amount=500_00)
    assert not Account.objects.filter(player=None, kind=AccountKind.HOUSE_BETS_IN_PLAY, currency="SEK").exists()
    services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "SEK")], idempotency_key=new_key())
    with CaptureQueriesContext(connection) as queries:
        bets = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "SEK", kind=k) for k in ("main", "hot3")],
                                 idempotency_key=new_key())
    assert len(queries) == 3  # SAVEPOINT, the hold, RELEASE (BEGIN, the hold, COMMIT outside a test)
    assert [b.kind for b in bets] == ["main", "hot3"] and bets[0].pk < bets[1].pk
    assert bets[0].account.balance == selectors.player_balance(player=player, currency="SEK") == 470_00
    entries = Entry.objects.filter(transaction=bets[0].hold_transaction).select_related("account")
    assert sorted((e.account.kind, e.amount, e.balance_after) for e in entries) == [
        (AccountKind.HOUSE_BETS_IN_PLAY, 20_00, None), (AccountKind.PLAYER_CASH, -20_00, 470_00)]


@pytest.mark.parametrize("durable", [True, False])
def test_a_short_hold_is_refused_with_nothing_written(roles, durable):
    player = PlayerFactory()
    DepositFactory(player=player, amount=15_00)
    services.bet_hold(player=player, holds=[BetHoldSpec(1_00, "EUR")], idempotency_key=new_key())
    before = counts()
    with pytest.raises(errors.InsufficientFunds, match=r"holds 14\.00 EUR but 20\.00 EUR is needed\.$"):
        if durable:
            services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")] * 2, idempotency_key=new_key())
        else:
            with transaction.atomic():
                services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")] * 2, idempotency_key=new_key(),
                                  durable=False)
    assert counts() == before
    assert selectors.player_balance(player=player, currency="EUR") == 14_00


def test_a_hold_from_an_account_the_player_does_not_have_is_refused(roles):
    player = PlayerFactory()
    DepositFactory(player=player, amount=15_00)
    services.bet_hold(player=player, holds=[BetHoldSpec(1_00, "EUR")], idempotency_key=new_key())
    before = counts()
    with pytest.raises(errors.UnknownAccount):
        services.bet_hold(player=player, holds=[BetHoldSpec(1_00, "EUR", funding="golden_chips")],
                          idempotency_key=new_key())
    with pytest.raises(errors.CurrencyMismatch):
        services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "SEK")], idempotency_key=new_key())
    assert counts() == before


def test_a_repeated_hold_is_replayed_and_moves_nothing(roles):
    player = PlayerFactory()
    DepositFactory(player=player, amount=50_00)
    first = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")], idempotency_key="same")
    again = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")], idempotency_key="same")
    assert [b.pk for b in again] == [b.pk for b in first]
    assert selectors.player_balance(player=player, currency="EUR") == 40_00


def test_the_database_runs_the_hold_function_text_of_wallet_sql():
    from wallet.sql import HOLD_FUNCTION_SQL

    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = 'wallet_bet_hold_one_account'")
        [(source,)] = cursor.fetchall()
    # The migrations freeze the text they ran; the module is what the code calls. They differ when the module
    # changed without a migration running the new text.
    assert source.strip() in HOLD_FUNCTION_SQL, (
        "the database's wallet_bet_hold_one_account is not wallet.sql.HOLD_FUNCTION_SQL: write a new migration "
        "that replaces the function (CREATE OR REPLACE with a frozen copy of the module's text)")

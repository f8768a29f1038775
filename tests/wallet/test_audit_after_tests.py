"""The suite audits the ledger after a test only when the tables the audit reads hold a row
(tests/fixtures/ledger.py): those must be every table a check reads, and any money or round a test leaves must
make them non-empty, or a test that unbalances the ledger would pass unaudited."""

import pytest
from django.db import connection

from tests.factories import BetFactory, DepositFactory, PlayerFactory, RoundFactory
from tests.fixtures.ledger import audited_tables, audited_tables_empty
from wallet.audit import ledger_audit_run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("roles")]


def test_the_audited_tables_are_the_wallets_and_the_rounds():
    from django.apps import apps

    expected = {model._meta.db_table for label in ("wallet", "rounds")
                for model in apps.get_app_config(label).get_models()}
    assert set(audited_tables()) == expected
    assert {"wallet_account", "wallet_entry", "wallet_ledgertransaction", "wallet_bet", "wallet_betresolution",
            "rounds_round", "rounds_spot"} <= expected


def test_a_test_that_makes_only_users_leaves_them_empty():
    PlayerFactory()
    assert audited_tables_empty() is True


@pytest.mark.parametrize("make", [DepositFactory, BetFactory, RoundFactory], ids=["deposit", "bet", "round"])
def test_money_or_a_round_leaves_them_non_empty(make):
    make()
    assert audited_tables_empty() is False


@pytest.mark.no_audit
def test_an_unbalanced_ledger_is_never_empty_so_it_is_audited():
    DepositFactory()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE wallet_account SET balance = balance + 1 WHERE player_id IS NOT NULL")
    assert audited_tables_empty() is False
    assert ledger_audit_run() != []

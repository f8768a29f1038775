"""How the accounts table is stored: a balance update stays on its page (a HOT update, no index written), and
every lookup by player is still served by an index (wallet 0009)."""

import pytest
from django.db import connection

from tests.factories import FundedPlayerFactory, new_key
from wallet import services
from wallet.models import Account

pytestmark = pytest.mark.django_db

PLAYERS = 60  # at the default fill factor a page holds 54 of their accounts in two versions each


def _updates() -> tuple[int, int]:
    """(updates, of which HOT) of wallet_account in this transaction so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_get_xact_tuples_updated('wallet_account'::regclass), "
                       "pg_stat_get_xact_tuples_hot_updated('wallet_account'::regclass)")
        return cursor.fetchone()


def test_a_balance_update_stays_on_the_page_of_its_account(roles):
    # The table is empty when a test starts, but its pages keep the room of earlier tests' rolled-back rows, so
    # an update would find room whatever the fill factor. Truncated in this transaction (and restored with its
    # rollback), the pages fill from nothing as a live database's do.
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE wallet_account CASCADE")
    players = [FundedPlayerFactory(cash=10_00) for _ in range(PLAYERS)]
    # Every account now has two versions on its page (opened, then funded), none of them prunable while this
    # transaction runs. A third fits only where the pages were left room for new versions.
    updated, hot = _updates()
    for player in players:
        services.deposit(player=player, currency="EUR", amount=5_00, idempotency_key=new_key())
    after_updated, after_hot = _updates()
    assert after_updated - updated == PLAYERS
    assert after_hot - hot >= PLAYERS * 0.9, f"{after_hot - hot} of {PLAYERS} balance updates were HOT"


def test_a_players_accounts_are_found_through_an_index(roles):
    player = FundedPlayerFactory()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a near-empty table would be scanned whatever the indexes
        plan = Account.objects.filter(player=player).explain()
    assert "wallet_account_one_per_player_kind_currency" in plan, plan

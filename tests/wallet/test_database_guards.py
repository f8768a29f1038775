"""What PostgreSQL itself refuses, whatever code (ours or a hurried hand in psql) tries to write."""

import pytest
from django.db import IntegrityError, connection, transaction

from tests.factories import BetFactory, DepositFactory, new_key
from wallet import services
from wallet.audit import ledger_audit_run
from wallet.models import Account, AccountKind, Bet, BetResolution, Entry, LedgerTransaction
from wallet.services import BetResolutionSpec


@pytest.fixture
def settled_bet(player):
    bet = BetFactory(player=player, amount=10_00)
    services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key=new_key())
    return bet


APPEND_ONLY = {
    "entry": lambda bet: Entry.objects.filter(transaction=bet.hold_transaction),
    "transaction": lambda bet: LedgerTransaction.objects.filter(pk=bet.hold_transaction_id),
    "bet": lambda bet: Bet.objects.filter(pk=bet.pk),
    "resolution": lambda bet: BetResolution.objects.filter(bet=bet),
}


@pytest.mark.django_db
@pytest.mark.parametrize("table", APPEND_ONLY)
def test_ledger_rows_cannot_be_updated(settled_bet, table):
    rows = APPEND_ONLY[table](settled_bet)
    field = {"entry": "created_at", "transaction": "reason", "bet": "kind", "resolution": "outcome"}[table]
    value = rows.values_list(field, flat=True).first()
    with pytest.raises(IntegrityError, match="append-only: UPDATE refused"), transaction.atomic():
        rows.update(**{field: value})


@pytest.mark.django_db
@pytest.mark.parametrize("table", APPEND_ONLY)
def test_ledger_rows_cannot_be_deleted(settled_bet, table):
    rows = APPEND_ONLY[table](settled_bet)
    # Raw SQL, as a hand in psql would: the ORM's own PROTECT checks would stop it before the database does.
    sql, params = rows.values("pk").query.sql_with_params()
    with pytest.raises(IntegrityError, match="append-only: DELETE refused"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {rows.model._meta.db_table} WHERE {rows.model._meta.pk.column} IN ({sql})",
                           params)
    assert ledger_audit_run() == []


@pytest.mark.django_db
def test_an_account_keeps_its_currency_but_its_balance_may_move(player):
    DepositFactory(player=player, amount=10_00)
    account = Account.objects.get(player=player)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(currency="USD")
    with pytest.raises(IntegrityError, match="wallet_account_player_balance_not_negative"), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(balance=-1)


@pytest.mark.django_db
def test_a_second_resolution_row_for_a_bet_is_refused_by_the_database(settled_bet):
    first = BetResolution.objects.get(bet=settled_bet)
    with pytest.raises(IntegrityError), transaction.atomic():
        BetResolution.objects.bulk_create([BetResolution(bet=settled_bet, outcome="lost", cash_return=0,
                                                         transaction=first.transaction)])


@pytest.mark.django_db
def test_an_entry_of_zero_is_refused(settled_bet):
    with pytest.raises(IntegrityError, match="wallet_entry_amount_not_zero"), transaction.atomic():
        Entry.objects.create(transaction=settled_bet.hold_transaction, account=settled_bet.account, amount=0)


@pytest.mark.django_db(transaction=True)
def test_a_transaction_that_does_not_sum_to_zero_fails_at_commit(player):
    account = services.account_for_player(player, "EUR")
    house = Account.objects.create(kind=AccountKind.HOUSE_CASHIER, currency="EUR")
    reached_commit = False
    with pytest.raises(IntegrityError, match="does not sum to zero: its EUR entries total 5"):
        with transaction.atomic():
            txn = LedgerTransaction.objects.create(kind="adjustment", idempotency_key="lopsided", fingerprint="-")
            Entry.objects.create(transaction=txn, account=account, amount=10, balance_after=10)
            Entry.objects.create(transaction=txn, account=house, amount=-5)
            Account.objects.filter(pk=account.pk).update(balance=10)
            reached_commit = True  # every statement was accepted: only the commit can refuse it
    assert reached_commit
    assert not LedgerTransaction.objects.exists() and not Entry.objects.exists()
    # Balanced by its second statement: the check waits for the commit, so the first one's imbalance is fine.
    with transaction.atomic():
        txn = LedgerTransaction.objects.create(kind="adjustment", idempotency_key="balanced", fingerprint="-")
        Entry.objects.create(transaction=txn, account=account, amount=10, balance_after=10)
        Entry.objects.create(transaction=txn, account=house, amount=-10)
        Account.objects.filter(pk=account.pk).update(balance=10)
    assert ledger_audit_run() == []


@pytest.mark.django_db(transaction=True)
def test_entries_added_later_to_a_committed_transaction_must_balance_it_again(player):
    txn = services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    account = Account.objects.get(player=player)
    with pytest.raises(IntegrityError, match=f"ledger transaction {txn.pk} does not sum to zero"):
        with transaction.atomic():
            bankroll = Account.objects.create(kind=AccountKind.HOUSE_BANKROLL, currency="EUR")
            Entry.objects.create(transaction=txn, account=bankroll, amount=5)
    assert Entry.objects.filter(transaction=txn).count() == 2 and account.balance == 10_00


MISSING = 10**15  # no row has this id


@pytest.mark.django_db
@pytest.mark.parametrize("column", ["resolution.bet", "resolution.transaction", "entry.transaction", "entry.account"])
def test_a_ledger_row_must_reference_a_bet_and_transaction_that_exist(settled_bet, column):
    """Checked once per INSERT statement (migrations 0006 and 0010) rather than by a foreign key per row, and at
    once: a statement of many rows with one bad reference is refused whole, naming it."""
    txn = BetResolution.objects.get(bet=settled_bet).transaction_id
    other = BetFactory(player=settled_bet.account.player, amount=5_00)
    table, field = column.split(".")
    with connection.cursor() as cursor:
        if table == "resolution":
            bets = [other.pk, MISSING] if field == "bet" else [other.pk]
            sql = ("INSERT INTO wallet_betresolution (bet_id, outcome, cash_return, chips_return, transaction_id, "
                   "created_at) SELECT b, 'lost', 0, 0, %s, now() FROM unnest(%s::bigint[]) b")
            params = [MISSING if field == "transaction" else txn, bets]
            want = f"{field}_id {MISSING} is not in wallet_{'bet' if field == 'bet' else 'ledgertransaction'}"
        else:
            sql = ("INSERT INTO wallet_entry (transaction_id, account_id, amount, created_at) "
                   "VALUES (%s, %s, 1, now()), (%s, %s, -1, now())")
            house = Account.objects.filter(player__isnull=True).values_list("pk", flat=True).first()
            if field == "transaction":
                params = [MISSING, settled_bet.account_id, MISSING, house]
                want = f"transaction_id {MISSING} is not in wallet_ledgertransaction"
            else:
                # A good row (another player's account, with no entry in txn) beside the bad one.
                params = [txn, BetFactory(amount=5_00).account_id, txn, MISSING]
                want = f"account_id {MISSING} is not in wallet_account"
        with pytest.raises(IntegrityError, match=want), transaction.atomic():
            cursor.execute(sql, params)
    assert not BetResolution.objects.filter(bet=other).exists()


@pytest.mark.django_db
def test_an_account_its_entries_name_can_be_neither_deleted_nor_renumbered(settled_bet):
    """What the entries' foreign key to their account guaranteed, now that a statement trigger checks the
    account when an entry is inserted (migration 0010): the account stays, under the same id."""
    account = settled_bet.account
    with pytest.raises(IntegrityError, match=f"delete from wallet_account refused: account {account.pk} has "
                                              "entries"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM wallet_account WHERE id = %s", [account.pk])
    with pytest.raises(IntegrityError, match="wallet_account is append-only: UPDATE refused"), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(id=MISSING)
    account.refresh_from_db()
    assert Entry.objects.filter(account=account).exists()

"""Many threads, each with its own PostgreSQL connection, against the same balances: nothing overdraws,
nothing is paid twice and nothing deadlocks."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import OperationalError, connection, connections, transaction

from tests.factories import DepositFactory, PlayerFactory, new_key
from tests.helpers import wait_for
from wallet import errors, locks, selectors, services
from wallet.audit import ledger_audit_run
from wallet.models import Account, LedgerTransaction
from wallet.services import BetHoldSpec, BetResolutionSpec
from wallet.sql import LedgerStatements

pytestmark = pytest.mark.django_db(transaction=True)


def in_threads(count: int, work):
    """Run work(i) in `count` threads started together; each closes its own connection when done."""
    barrier = threading.Barrier(count)

    def run(i):
        try:
            barrier.wait()
            return work(i)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def test_concurrent_bets_against_one_balance_never_overdraw_it(player):
    DepositFactory(player=player, amount=50_00)

    def bet_until_refused(i):
        held = 0
        for _ in range(8):
            try:
                services.bet_hold(player=player, holds=[BetHoldSpec(1_00, "EUR")], idempotency_key=new_key())
                held += 1
            except errors.InsufficientFunds:
                pass
        return held

    held = in_threads(12, bet_until_refused)  # 96 attempts at 1.00 on a 50.00 balance
    assert sum(held) == 50
    assert selectors.player_balance(player=player, currency="EUR") == 0
    assert ledger_audit_run() == []


def test_first_deposits_from_many_threads_open_the_account_once_and_each_is_credited(player):
    # No account yet: every thread finds none, opens it (ON CONFLICT waits for the first to commit and skips)
    # and locks the one row.
    in_threads(8, lambda i: services.deposit(player=player, currency="EUR", amount=1_00, idempotency_key=new_key()))
    assert Account.objects.filter(player=player).count() == 1
    assert selectors.player_balance(player=player, currency="EUR") == 8_00
    assert ledger_audit_run() == []


def test_one_idempotency_key_sent_from_many_threads_moves_money_once(player):
    DepositFactory(player=player, amount=50_00)

    def withdraw(i):
        return services.withdraw(player=player, currency="EUR", amount=20_00, idempotency_key="one-withdrawal")

    results = in_threads(8, withdraw)
    assert len({txn.pk for txn in results}) == 1
    assert sum(not txn.replayed for txn in results) == 1
    assert LedgerTransaction.objects.filter(kind="withdrawal").count() == 1
    assert selectors.player_balance(player=player, currency="EUR") == 30_00


def test_one_bet_settled_from_many_threads_is_paid_once(player):
    DepositFactory(player=player, amount=50_00)
    [bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")], idempotency_key=new_key())

    def settle(i):
        try:
            services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key=f"settle-{i}")
            return "paid"
        except errors.BetAlreadyResolved:
            return "refused"

    assert sorted(in_threads(6, settle)) == ["paid"] + ["refused"] * 5
    assert selectors.player_balance(player=player, currency="EUR") == 60_00
    assert ledger_audit_run() == []


def _two_funded_players():
    first, second = PlayerFactory(), PlayerFactory()
    for player in (first, second):
        DepositFactory(player=player, amount=1000_00)
    low, high = sorted([first, second], key=lambda p: Account.objects.get(player=p).pk)
    return low, high


def test_accounts_are_locked_in_primary_key_order_whatever_order_the_call_names_them(roles):
    """A holds the lower account and waits; B names the accounts high-first. If B locked in the order given,
    it would hold the higher row while waiting for the lower, and our lock on the higher would time out."""
    low, high = _two_funded_players()
    low_account, high_account = (Account.objects.get(player=p).pk for p in (low, high))
    b_pid, b_result = [], []

    def b():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                b_pid.append(cursor.fetchone()[0])
            b_result.append(services.bet_hold_many(
                holds_by_player=[(high, [BetHoldSpec(1_00, "EUR")]), (low, [BetHoldSpec(1_00, "EUR")])],
                idempotency_key=new_key(),
            ))
        finally:
            connection.close()

    with transaction.atomic(), LedgerStatements() as db:
        locks.player_accounts_lock(db, account_ids=[low_account])
        thread = threading.Thread(target=b)
        thread.start()
        wait_for(lambda: b_pid, what="B's connection")

        def b_waits_for_a_lock():
            with connection.cursor() as cursor:
                cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [b_pid[0]])
                row = cursor.fetchone()
            return row and row[0] == "Lock"

        wait_for(b_waits_for_a_lock, what="B to wait on the lower account")
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '3s'")
        try:
            locks.player_accounts_lock(db, account_ids=[high_account])
        except OperationalError as exc:  # pragma: no cover - only on a broken lock order
            pytest.fail(f"B took the higher account before the lower one: {exc}")
        assert not b_result, "B must still be waiting for the lower account"
    thread.join(timeout=10)
    assert len(b_result) == 1 and len(b_result[0]) == 2


def test_transfers_in_opposite_directions_all_finish(roles):
    low, high = _two_funded_players()

    def hold_then_settle(i):
        order = [(low, [BetHoldSpec(1_00, "EUR")]), (high, [BetHoldSpec(1_00, "EUR")])]
        for _ in range(15):
            bets = services.bet_hold_many(holds_by_player=order if i % 2 else order[::-1],
                                          idempotency_key=new_key())
            specs = [BetResolutionSpec(bet.pk, 2_00) for bet in bets]
            services.bet_resolve(resolutions=specs if i % 2 else specs[::-1], idempotency_key=new_key())
        return True

    started = time.monotonic()
    assert in_threads(4, hold_then_settle) == [True] * 4
    assert time.monotonic() - started < 30
    # 60 rounds per player, each a 1.00 stake paid back 2.00.
    assert [selectors.player_balance(player=p, currency="EUR") for p in (low, high)] == [1060_00, 1060_00]
    assert ledger_audit_run() == []

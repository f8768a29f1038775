"""The ledger's functions keep their plans for a session (PL/pgSQL); made while the tables were small, a plan
that scans a table whole would scan it on every insert as the table grows (wallet migration 0011). A fresh
session plans the checks on a tiny ledger, the ledger grows by tens of thousands of rows, and the plans its next
insert runs (auto_explain, nested statements) must still be look-ups by index."""

import re

import psycopg
import pytest
from django.db import connection

from wallet.sql import POINT_LOOKUPS

pytestmark = pytest.mark.django_db

GROWTH = 20_000
FUNCTIONS = ["wallet_entry_references_check", "wallet_betresolution_references_check", "wallet_zero_sum_queue",
             "wallet_zero_sum_check", "wallet_bet_hold_one_account", "rounds_bet_place"]


def _settings(text: str) -> list[str]:
    return sorted(f"{name}={value}" for name, value in re.findall(r"SET (\w+) = (\w+)", text))


def test_every_ledger_function_runs_with_point_lookup_plans():
    assert _settings(POINT_LOOKUPS) == ["enable_hashjoin=off", "enable_mergejoin=off", "enable_seqscan=off"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT proname, proconfig FROM pg_proc WHERE proname = ANY(%s)", [FUNCTIONS])
        found = dict(cursor.fetchall())
    assert sorted(found) == sorted(FUNCTIONS)
    for name, config in found.items():
        assert sorted(config or []) == _settings(POINT_LOOKUPS), name


def _ledger_transaction(cursor, key: str) -> int:
    cursor.execute(
        "INSERT INTO wallet_ledgertransaction (kind, reference, idempotency_key, fingerprint, reason, meta, "
        "created_at) VALUES ('adjustment', '', %s, '', '', '{}', now()) RETURNING id", [key])
    return cursor.fetchone()[0]


def test_the_checks_of_a_session_stay_index_lookups_as_the_ledger_grows():
    params = connection.get_connection_params()
    # Its own session, so that no earlier test's plans are in it, and its own transaction, rolled back.
    with psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"}) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        cursor = conn.cursor()
        cursor.execute("INSERT INTO wallet_account (kind, currency, balance, created_at) VALUES "
                       "('house_cashier', 'XTS', 0, now()), ('house_bankroll', 'XTS', 0, now()) RETURNING id")
        a, b = (row[0] for row in cursor.fetchall())

        def entries(transaction_id: int) -> None:
            cursor.execute("INSERT INTO wallet_entry (transaction_id, account_id, amount, created_at) "
                           "VALUES (%s, %s, 100, now()), (%s, %s, -100, now())", [transaction_id, a, transaction_id, b])

        entries(_ledger_transaction(cursor, "plans-first"))  # the checks' plans made on a tiny ledger
        cursor.execute(
            "WITH t AS (INSERT INTO wallet_ledgertransaction (kind, reference, idempotency_key, fingerprint, reason, "
            "meta, created_at) SELECT 'adjustment', '', 'plans-' || n, '', '', '{}', now() "
            "FROM generate_series(1, %s) n RETURNING id) "
            "INSERT INTO wallet_entry (transaction_id, account_id, amount, created_at) "
            "SELECT t.id, x.account, x.amount, now() FROM t CROSS JOIN (VALUES (%s, 100), (%s, -100)) x(account, amount)",
            [GROWTH, a, b])
        for statement in ("LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
                          "SET auto_explain.log_nested_statements = on", "SET auto_explain.log_level = notice"):
            cursor.execute(statement)
        notices.clear()
        entries(_ledger_transaction(cursor, "plans-last"))
        conn.rollback()
    checks = [plan for plan in notices if "new_rows" in plan or "new_entries" in plan]
    assert len(checks) >= 3, notices  # the transaction's and the account's references, the zero-sum queue
    for plan in checks:
        assert not re.search(r"Seq Scan on wallet_|Hash Join|Hash Semi Join|Hash Anti Join|Merge", plan), plan

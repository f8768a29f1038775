"""The ledger's hot-path statements, written as SQL once instead of compiled by the ORM on every call.

Two reasons. Batch work stays at a fixed number of statements whatever its size: PostgreSQL gets one array per
column, SQLite (the embedded default) one JSON document, so neither comes near its limit on bound parameters.
And a single bet hold, the busiest call of all, spends its time in the database rather than in Python: the
ORM's query compilation and the driver's adaptation of Python lists cost more than the database's work
(docs/benchmarks.md). Arrays therefore travel as PostgreSQL array literals built with plain string joins.
"""

import json
from collections.abc import Sequence

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.expressions import RawSQL

from wallet.models import LedgerTransaction

_ACCOUNT_COLUMNS = "id, player_id, kind, currency, balance"


def _array_item(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def pg_array(values) -> str:
    """A PostgreSQL array literal ('{1,2,NULL}', '{"a","b \\"c\\""}') for a parameter cast with ::type[]."""
    return "{" + ",".join(map(_array_item, values)) + "}"


def ids_subquery(ids) -> RawSQL:
    """For `field__in=ids_subquery(ids)` in ORM queries: a list of any length as one bound parameter."""
    values = sorted({int(v) for v in ids})
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        return RawSQL("SELECT unnest(%s::bigint[])", (pg_array(values),))
    return RawSQL("SELECT value FROM json_each(%s)", (json.dumps(values),))


class LedgerStatements:
    """The statements of one service call, on one cursor (`with LedgerStatements() as db:`)."""

    def __init__(self):
        self.connection = connections[DEFAULT_DB_ALIAS]
        self.postgres = self.connection.vendor == "postgresql"
        self._created_at = LedgerTransaction._meta.get_field("created_at")
        self._meta = LedgerTransaction._meta.get_field("meta")

    def __enter__(self):
        self.cursor = self.connection.cursor()
        return self

    def __exit__(self, *exc):
        self.cursor.close()

    def _execute(self, sql: str, params) -> None:
        self.cursor.execute(sql, params)

    def _datetime(self, value):
        return self._created_at.get_db_prep_value(value, self.connection)

    def _in(self, column: str, values, cast: str = "bigint") -> tuple[str, str]:
        """`column` is one of `values`, as SQL and its single parameter."""
        values = sorted(set(values))
        if self.postgres:
            return f"{column} = ANY(%s::{cast}[])", pg_array(values)
        return f"{column} IN (SELECT value FROM json_each(%s))", json.dumps(values)

    def _rows(self, rows: Sequence[tuple], casts: tuple[str, ...]) -> tuple[str, list[str]]:
        """A FROM item yielding `rows` as columns r.c0, r.c1, ...: one parameter per column on PostgreSQL."""
        names = ", ".join(f"c{i}" for i in range(len(casts)))
        if self.postgres:
            columns = list(zip(*rows, strict=True)) if rows else [() for _ in casts]
            placeholders = ", ".join(f"%s::{cast}[]" for cast in casts)
            return f"unnest({placeholders}) AS r({names})", [pg_array(column) for column in columns]
        extract = ", ".join(f"json_extract(value, '$[{i}]') AS c{i}" for i in range(len(casts)))
        return f"(SELECT {extract} FROM json_each(%s)) AS r", [json.dumps(rows)]

    def transaction_insert(self, *, kind: str, idempotency_key: str, fingerprint: str, created_at, reference: str,
                           actor_id: int | None, reason: str, meta: dict, house_kinds, house_currencies,
                           ) -> tuple[int, list[tuple]]:
        """Insert the transaction row, first of all (a key already taken raises IntegrityError here), and read
        the house accounts it will move, in one round trip on PostgreSQL."""
        insert = (
            "INSERT INTO wallet_ledgertransaction "
            "(kind, reference, actor_id, idempotency_key, fingerprint, reason, meta, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id"
        )
        params = [kind, reference, actor_id, idempotency_key, fingerprint, reason,
                  self._meta.get_db_prep_value(meta, self.connection), self._datetime(created_at)]
        if not self.postgres:
            self._execute(insert, params)
            return self.cursor.fetchone()[0], self.house_accounts_select(kinds=house_kinds,
                                                                         currencies=house_currencies)
        kind_sql, kind_param = self._in("a.kind", house_kinds, "text")
        currency_sql, currency_param = self._in("a.currency", house_currencies, "text")
        self._execute(
            f"WITH t AS ({insert}) SELECT t.id, a.id, a.player_id, a.kind, a.currency, a.balance FROM t "
            f"LEFT JOIN wallet_account a ON a.player_id IS NULL AND {kind_sql} AND {currency_sql}",
            [*params, kind_param, currency_param],
        )
        rows = self.cursor.fetchall()
        return rows[0][0], [row[1:] for row in rows if row[1] is not None]

    def house_accounts_select(self, *, kinds, currencies) -> list[tuple]:
        kind_sql, kind_param = self._in("kind", kinds, "text")
        currency_sql, currency_param = self._in("currency", currencies, "text")
        self._execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM wallet_account "
            f"WHERE player_id IS NULL AND {kind_sql} AND {currency_sql}",
            [kind_param, currency_param],
        )
        return self.cursor.fetchall()

    def player_accounts_lock(self, *, account_ids=(), player_ids=(), kinds=(), currencies=()) -> list[tuple]:
        """SELECT ... ORDER BY id FOR UPDATE: PostgreSQL locks the rows in the order it returns them."""
        conditions, params = [], []
        if account_ids:
            sql, param = self._in("id", account_ids)
            conditions.append(sql)
            params.append(param)
        if player_ids:
            parts = [self._in("player_id", player_ids), self._in("kind", kinds, "text"),
                     self._in("currency", currencies, "text")]
            conditions.append("(" + " AND ".join(sql for sql, _ in parts) + ")")
            params.extend(param for _, param in parts)
        if not conditions:
            return []
        # SQLite has no row locks: its IMMEDIATE transactions already serialise every writer.
        lock = " FOR UPDATE" if self.postgres else ""
        self._execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM wallet_account "
            f"WHERE player_id IS NOT NULL AND ({' OR '.join(conditions)}) ORDER BY id{lock}",
            params,
        )
        return self.cursor.fetchall()

    def player_accounts_insert(self, *, keys: Sequence[tuple[int, str, str]], created_at) -> None:
        """Open player accounts (player_id, kind, currency) with a zero balance. One a concurrent twin opens
        meanwhile is skipped: ON CONFLICT waits for the twin's transaction, then does nothing."""
        source, params = self._rows(list(keys), ("bigint", "text", "text"))
        # WHERE true: without it SQLite would read ON CONFLICT as the join's ON.
        self._execute(
            "INSERT INTO wallet_account (player_id, kind, currency, balance, created_at) "
            f"SELECT r.c0, r.c1, r.c2, 0, %s FROM {source} WHERE true ON CONFLICT DO NOTHING",
            [self._datetime(created_at), *params],
        )

    def ledger_write(self, *, transaction_id: int, created_at, deltas: dict[int, int],
                     entries: list[tuple[int, int]], bets: Sequence[tuple] = (), resolutions: Sequence[tuple] = (),
                     ) -> tuple[dict[int, int], list[int]]:
        """Everything a movement writes after its checks, in one statement on PostgreSQL:

        - `deltas` added to the running balances of the (already locked) player accounts;
        - `entries` (account_id, amount), each player entry with its account's new balance;
        - `bets` (account_id, amount, kind, reference, meta) or `resolutions` (bet_id, outcome, cash_return,
          chips_return), if any.

        Returns the new balances and the new bet ids (in the order of `bets`). The rows must be locked in
        primary-key order first: an UPDATE locks in whatever order its join produces.
        """
        when = self._datetime(created_at)
        bets = [(account, amount, kind, reference, json.dumps(meta)) for account, amount, kind, reference, meta in bets]
        delta_source, delta_params = self._rows(list(deltas.items()), ("bigint", "bigint"))
        update = (
            f"UPDATE wallet_account SET balance = wallet_account.balance + r.c1 FROM {delta_source} "
            f"WHERE wallet_account.id = r.c0 RETURNING wallet_account.id, wallet_account.balance"
        )
        entry_source, entry_params = self._rows(entries, ("bigint", "bigint"))
        bet_source, bet_params = self._rows(bets, ("bigint", "bigint", "text", "text", "text"))
        insert_bets = (
            "INSERT INTO wallet_bet (account_id, hold_transaction_id, amount, kind, reference, meta, created_at) "
            f"SELECT r.c0, %s, r.c1, r.c2, r.c3, {'r.c4::jsonb' if self.postgres else 'r.c4'}, %s "
            f"FROM {bet_source} RETURNING id"
        )
        resolution_source, resolution_params = self._rows(resolutions, ("bigint", "text", "bigint", "bigint"))
        insert_resolutions = (
            "INSERT INTO wallet_betresolution "
            "(bet_id, outcome, cash_return, chips_return, transaction_id, created_at) "
            f"SELECT r.c0, r.c1, r.c2, r.c3, %s, %s FROM {resolution_source}"
        )
        if self.postgres:
            parts = [
                f"u AS ({update})",
                "e AS (INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at) "
                f"SELECT %s, r.c0, r.c1, u.balance, %s FROM {entry_source} LEFT JOIN u ON u.id = r.c0)",
            ]
            params = [*delta_params, transaction_id, when, *entry_params]
            if bets:
                parts.append(f"b AS ({insert_bets})")
                params += [transaction_id, when, *bet_params]
            if resolutions:
                parts.append(f"s AS ({insert_resolutions})")
                params += [transaction_id, when, *resolution_params]
            bet_union = " UNION ALL SELECT 'bet', id, NULL FROM b" if bets else ""
            self._execute(f"WITH {', '.join(parts)} SELECT 'balance', id, balance FROM u{bet_union}", params)
            rows = self.cursor.fetchall()
            balances = {row[1]: row[2] for row in rows if row[0] == "balance"}
            # Identity values rise in insertion order, so sorting restores the order of `bets`.
            return balances, sorted(row[1] for row in rows if row[0] == "bet")

        balances = {}
        if deltas:
            self._execute(update, delta_params)
            balances = dict(self.cursor.fetchall())
        entry_rows = [(account, amount, balances.get(account)) for account, amount in entries]
        source, params = self._rows(entry_rows, ("bigint", "bigint", "bigint"))
        self._execute(
            "INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at) "
            f"SELECT %s, r.c0, r.c1, r.c2, %s FROM {source}",
            [transaction_id, when, *params],
        )
        bet_ids: list[int] = []
        if bets:
            self._execute(insert_bets, [transaction_id, when, *bet_params])
            bet_ids = sorted(row[0] for row in self.cursor.fetchall())
        if resolutions:
            self._execute(insert_resolutions, [transaction_id, when, *resolution_params])
        return balances, bet_ids

    def hold_one_account(self, *, idempotency_key: str, fingerprint: str, created_at, reference: str,
                         actor_id: int | None, meta: dict, player_id: int, account_kind: str, house_kind: str,
                         currency: str, bets: Sequence[tuple]) -> tuple | None:
        """A hold whose stakes all leave one player account, in one statement (PostgreSQL): the database
        function `wallet_bet_hold_one_account` (HOLD_FUNCTION_SQL) writes the transaction row, takes the balance
        only if it covers the total (its UPDATE waits for the row lock and checks the balance it then sees), and
        writes both entries and the bets. `bets`: (amount, kind, reference, meta).

        Returns (transaction id, account id, new balance, bet ids), or (transaction id, None, None, []) when
        nothing was taken (no such account, or not enough on it: the caller explains and rolls back), or
        None if the house's in-play account does not exist yet (nothing was written; the general path
        opens it).
        """
        amounts, kinds, references, metas = zip(
            *[(amount, kind, ref, json.dumps(bet_meta)) for amount, kind, ref, bet_meta in bets], strict=True)
        self._execute(HOLD_CALL_SQL, [
            idempotency_key, fingerprint, self._datetime(created_at), reference, actor_id,
            self._meta.get_db_prep_value(meta, self.connection), player_id, account_kind, house_kind, currency,
            pg_array(amounts), pg_array(kinds), pg_array(references), pg_array(metas),
        ])
        row = self.cursor.fetchone()
        return None if row is None or row[0] is None else (row[0], row[1], row[2], list(row[3]))


# The one-account hold as a database function, so that the wallet's service (hold_one_account above) and the
# bet placement's own function (rounds.placement_sql) run the same statement: one owner of the hold's rows.
# A change here needs a wallet migration that replaces the function with a frozen copy of this text
# (tests/wallet/test_hold_one_statement.py fails until the database runs it).
#
# It returns all NULL when the house's in-play account does not exist yet, having written nothing; o_account NULL
# and o_bets empty when the player's account is missing or short, having written the transaction row (the caller
# rolls back). PL/pgSQL, one plain statement per row kind: it keeps its plans for the session (PostgreSQL 15
# plans an SQL function's statements again on every call), and the statements cost less of the database's CPU
# than the same work as one statement of data-modifying CTEs (docs/benchmarks.md).
#
# POINT_LOOKUPS: the functions of the ledger (this one, its statement triggers, the bet placement's) look rows up
# by key only, and keep each plan for the session; priced out of sequential scans and hash or merge joins, a
# plan made while a table was small cannot go on scanning it whole as it grows (wallet migration 0011).
POINT_LOOKUPS = "SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off"
HOLD_FUNCTION_SQL = """
CREATE OR REPLACE FUNCTION wallet_bet_hold_one_account(
    p_idempotency_key text, p_fingerprint text, p_created_at timestamptz, p_reference text, p_actor_id integer,
    p_meta jsonb, p_player_id integer, p_account_kind text, p_house_kind text, p_currency text,
    p_amounts bigint[], p_kinds text[], p_references text[], p_metas jsonb[],
    OUT o_transaction bigint, OUT o_account bigint, OUT o_balance bigint, OUT o_bets bigint[]
) LANGUAGE plpgsql %(point_lookups)s AS $fn$
DECLARE
    v_total bigint := (SELECT sum(a) FROM unnest(p_amounts) a);
    v_house bigint;
BEGIN
    SELECT id INTO v_house FROM wallet_account
     WHERE player_id IS NULL AND kind = p_house_kind AND currency = p_currency;
    IF v_house IS NULL THEN
        RETURN;
    END IF;
    INSERT INTO wallet_ledgertransaction
        (kind, reference, actor_id, idempotency_key, fingerprint, reason, meta, created_at)
    VALUES ('bet', p_reference, p_actor_id, p_idempotency_key, p_fingerprint, '', p_meta, p_created_at)
    RETURNING id INTO o_transaction;
    UPDATE wallet_account SET balance = balance - v_total
     WHERE player_id = p_player_id AND kind = p_account_kind AND currency = p_currency AND balance >= v_total
    RETURNING id, balance INTO o_account, o_balance;
    IF o_account IS NULL THEN
        o_bets := '{}';
        RETURN;
    END IF;
    INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at)
    SELECT o_transaction, x.account_id, x.amount, x.balance_after, p_created_at
      FROM (VALUES (o_account, -v_total, o_balance), (v_house, v_total, NULL::bigint))
           AS x(account_id, amount, balance_after)
     ORDER BY x.account_id;
    WITH b AS (
        INSERT INTO wallet_bet (account_id, hold_transaction_id, amount, kind, reference, meta, created_at)
        SELECT o_account, o_transaction, r.amount, r.kind, r.reference, r.meta, p_created_at
          FROM unnest(p_amounts, p_kinds, p_references, p_metas) WITH ORDINALITY AS r(amount, kind, reference, meta, n)
         ORDER BY r.n
        RETURNING id
    ) SELECT array_agg(id ORDER BY id) INTO o_bets FROM b;
END
$fn$
""".replace("%(point_lookups)s", POINT_LOOKUPS)

HOLD_CALL_SQL = (
    "SELECT o_transaction, o_account, o_balance, o_bets FROM wallet_bet_hold_one_account("
    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::bigint[], %s::text[], %s::text[], %s::jsonb[])"
)

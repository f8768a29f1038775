"""The one-account bet hold as a database function (wallet.sql HOLD_FUNCTION_SQL), so that the wallet's
service and the bet placement's function (rounds 0010) write the hold's rows through one statement."""

from django.db import migrations

# The function as this migration created it, frozen here: wallet/sql.py is the live source, and importing it would
# let a later edit there silently change what this migration creates on a new database. A change to the function
# needs a new migration that replaces it with its own frozen copy (tests/wallet/test_hold_one_statement.py fails
# until the database runs the module's text).
FUNCTION_SQL = """
CREATE OR REPLACE FUNCTION wallet_bet_hold_one_account(
    p_idempotency_key text, p_fingerprint text, p_created_at timestamptz, p_reference text, p_actor_id integer,
    p_meta jsonb, p_player_id integer, p_account_kind text, p_house_kind text, p_currency text,
    p_amounts bigint[], p_kinds text[], p_references text[], p_metas jsonb[],
    OUT o_transaction bigint, OUT o_account bigint, OUT o_balance bigint, OUT o_bets bigint[]
) LANGUAGE plpgsql AS $fn$
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
"""

DROP_SQL = (
    "DROP FUNCTION IF EXISTS wallet_bet_hold_one_account(text, text, timestamptz, text, integer, jsonb, integer, "
    "text, text, text, bigint[], text[], text[], jsonb[])"
)


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION_SQL, params=None)


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0006_ledger_references_checked_per_statement"),
    ]

    operations = [migrations.RunPython(_create, _drop)]

"""PostgreSQL guards the service code cannot give: append-only ledger rows and zero-sum checked at commit.

SQLite (the embedded default) skips them; there the services' own checks stand alone, and the test suite,
which runs on PostgreSQL, proves the triggers. Row-level UPDATE/DELETE triggers do not fire on TRUNCATE,
which is how test databases are flushed. The append-only triggers' SQL is casino.append_only's.
"""

from django.db import migrations

from casino import append_only

APPEND_ONLY_TABLES = ("wallet_entry", "wallet_ledgertransaction", "wallet_bet", "wallet_betresolution")

APPEND_ONLY, APPEND_ONLY_UNDO = append_only.guards(
    APPEND_ONLY_TABLES, function="wallet_refuse_change",
    message="% is append-only: % refused; correct it with a new transaction")

FORWARD = [
    *APPEND_ONLY,
    # An account's owner, kind and currency give its entries their meaning: only its balance may change.
    # The WHEN clause keeps the function call off the hot path of balance updates.
    """
    CREATE TRIGGER wallet_account_identity_fixed BEFORE UPDATE ON wallet_account FOR EACH ROW
        WHEN (OLD.kind IS DISTINCT FROM NEW.kind OR OLD.currency IS DISTINCT FROM NEW.currency
              OR OLD.player_id IS DISTINCT FROM NEW.player_id)
        EXECUTE FUNCTION wallet_refuse_change()
    """,
    # Zero-sum at commit. A deferred row trigger on the entries would run once per entry and sum the whole
    # transaction each time (quadratic for a 40,000-bet settlement). Instead one statement trigger sums the
    # transactions an INSERT touched; only one it leaves unbalanced is queued for the deferred constraint
    # trigger, which checks it again at commit, when later statements may have balanced it. Entries are never
    # updated or deleted, so a transaction no statement left unbalanced is balanced at commit.
    "CREATE TABLE wallet_zero_sum_pending (transaction_id bigint NOT NULL)",
    "CREATE INDEX wallet_zero_sum_pending_transaction ON wallet_zero_sum_pending (transaction_id)",
    """
    CREATE FUNCTION wallet_zero_sum_queue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO wallet_zero_sum_pending (transaction_id)
        SELECT DISTINCT e.transaction_id
          FROM wallet_entry e JOIN wallet_account a ON a.id = e.account_id
         WHERE e.transaction_id IN (SELECT transaction_id FROM new_entries)
         GROUP BY e.transaction_id, a.currency
        HAVING sum(e.amount) <> 0;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER wallet_entry_zero_sum_queue AFTER INSERT ON wallet_entry
        REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION wallet_zero_sum_queue()
    """,
    """
    CREATE FUNCTION wallet_zero_sum_check() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        bad record;
    BEGIN
        SELECT a.currency, sum(e.amount) AS total INTO bad
          FROM wallet_entry e JOIN wallet_account a ON a.id = e.account_id
         WHERE e.transaction_id = NEW.transaction_id
         GROUP BY a.currency HAVING sum(e.amount) <> 0
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'ledger transaction % does not sum to zero: its % entries total %',
                NEW.transaction_id, bad.currency, bad.total
                USING ERRCODE = 'check_violation';
        END IF;
        DELETE FROM wallet_zero_sum_pending WHERE transaction_id = NEW.transaction_id;
        RETURN NULL;
    END $$
    """,
    """
    CREATE CONSTRAINT TRIGGER wallet_zero_sum AFTER INSERT ON wallet_zero_sum_pending
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallet_zero_sum_check()
    """,
]

BACKWARD = [
    "DROP TABLE IF EXISTS wallet_zero_sum_pending",
    "DROP TRIGGER IF EXISTS wallet_entry_zero_sum_queue ON wallet_entry",
    "DROP FUNCTION IF EXISTS wallet_zero_sum_check()",
    "DROP FUNCTION IF EXISTS wallet_zero_sum_queue()",
    "DROP TRIGGER IF EXISTS wallet_account_identity_fixed ON wallet_account",
    *APPEND_ONLY_UNDO,
]


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_ledger")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

"""An entry's account checked once per INSERT statement, like its transaction (0006), instead of by a foreign
key per row.

The foreign key was the last row trigger on the entries: a 10,000-player settlement's 10,002 entries queued
10,002 look-ups, each taking a key-share lock on an account row the settlement had locked already, all run at
commit (about a tenth of the database's CPU of that settlement; docs/benchmarks.md). What the key guaranteed
stays guaranteed, by the database:

- an entry's account exists when the entry is inserted: the statement trigger anti-joins the inserted rows
  with the accounts, and refuses the whole statement naming the first missing one;
- it exists for ever after: an account that entries name cannot be deleted, and no account's id can change
  (the identity trigger of 0002 now covers the id too).

SQLite, the embedded default, gets row triggers with the same checks (its table is rebuilt by the AlterField,
which drops the triggers 0006 made, so they are made again here).
"""

import django.db.models.deletion
from django.db import migrations, models

TRANSACTION_CHECK = """
    SELECT n.transaction_id INTO missing FROM (SELECT DISTINCT transaction_id FROM new_rows) n
     WHERE NOT EXISTS (SELECT 1 FROM wallet_ledgertransaction t WHERE t.id = n.transaction_id) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'insert into wallet_entry refused: transaction_id % is not in wallet_ledgertransaction',
            missing USING ERRCODE = 'foreign_key_violation';
    END IF;"""

ACCOUNT_CHECK = """
    SELECT n.account_id INTO missing FROM (SELECT DISTINCT account_id FROM new_rows) n
     WHERE NOT EXISTS (SELECT 1 FROM wallet_account t WHERE t.id = n.account_id) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'insert into wallet_entry refused: account_id % is not in wallet_account', missing
            USING ERRCODE = 'foreign_key_violation';
    END IF;"""


def _entry_check_function(checks: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION wallet_entry_references_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    missing bigint;
BEGIN{checks}
    RETURN NULL;
END $$
"""


ENTRY_CHECK_PG = _entry_check_function(TRANSACTION_CHECK + ACCOUNT_CHECK)
ENTRY_CHECK_PG_UNDO = _entry_check_function(TRANSACTION_CHECK)  # as 0006 made it

IDENTITY_WHEN = ("OLD.kind IS DISTINCT FROM NEW.kind OR OLD.currency IS DISTINCT FROM NEW.currency "
                 "OR OLD.player_id IS DISTINCT FROM NEW.player_id")

ACCOUNT_GUARDS_PG = [
    "DROP TRIGGER wallet_account_identity_fixed ON wallet_account",
    f"""CREATE TRIGGER wallet_account_identity_fixed BEFORE UPDATE ON wallet_account FOR EACH ROW
        WHEN (OLD.id IS DISTINCT FROM NEW.id OR {IDENTITY_WHEN}) EXECUTE FUNCTION wallet_refuse_change()""",
    """
    CREATE FUNCTION wallet_account_delete_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM wallet_entry WHERE account_id = OLD.id) THEN
            RAISE EXCEPTION 'delete from wallet_account refused: account % has entries', OLD.id
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN OLD;
    END $$
    """,
    """CREATE TRIGGER wallet_account_kept BEFORE DELETE ON wallet_account FOR EACH ROW
        EXECUTE FUNCTION wallet_account_delete_check()""",
]

ACCOUNT_GUARDS_PG_UNDO = [
    "DROP TRIGGER IF EXISTS wallet_account_kept ON wallet_account",
    "DROP FUNCTION IF EXISTS wallet_account_delete_check()",
    "DROP TRIGGER wallet_account_identity_fixed ON wallet_account",
    f"""CREATE TRIGGER wallet_account_identity_fixed BEFORE UPDATE ON wallet_account FOR EACH ROW
        WHEN ({IDENTITY_WHEN}) EXECUTE FUNCTION wallet_refuse_change()""",
]

SQLITE_CHECKS = [("transaction_id", "wallet_ledgertransaction"), ("account_id", "wallet_account")]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = [ENTRY_CHECK_PG, *ACCOUNT_GUARDS_PG]
    elif vendor == "sqlite":
        statements = [
            *(f"""CREATE TRIGGER IF NOT EXISTS wallet_entry_references_{column} BEFORE INSERT ON wallet_entry
                  WHEN NOT EXISTS (SELECT 1 FROM {target} WHERE id = NEW.{column})
                  BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: wallet_entry.{column}'); END"""
              for column, target in SQLITE_CHECKS),
            """CREATE TRIGGER IF NOT EXISTS wallet_account_kept BEFORE DELETE ON wallet_account
                  WHEN EXISTS (SELECT 1 FROM wallet_entry WHERE account_id = OLD.id)
                  BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: wallet_entry.account_id'); END""",
        ]
    else:
        statements = []
    for statement in statements:
        # params=None: the PL/pgSQL bodies use % as RAISE placeholders, not driver parameters.
        schema_editor.execute(statement, params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = [ENTRY_CHECK_PG_UNDO, *ACCOUNT_GUARDS_PG_UNDO]
    elif vendor == "sqlite":
        statements = ["DROP TRIGGER IF EXISTS wallet_entry_references_account_id",
                      "DROP TRIGGER IF EXISTS wallet_account_kept"]
    else:
        statements = []
    for statement in statements:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0009_account_balance_updates_in_place"),
    ]

    operations = [
        migrations.AlterField(
            model_name="entry",
            name="account",
            field=models.ForeignKey(db_constraint=False, db_index=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="entries",
                                    to="wallet.account"),
        ),
        # After the AlterField: on SQLite it rebuilds the table, which drops triggers made before.
        migrations.RunPython(forward, backward),
    ]

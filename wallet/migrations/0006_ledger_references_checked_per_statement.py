"""The ledger's references to transactions and bets checked once per INSERT statement instead of per row.

A foreign key is a row trigger: a 10,000-player settlement (40,000 resolutions, 10,002 entries) ran 90,000
look-ups at commit, each also taking a key-share lock, written to the WAL, on the bet or transaction row:
more than half of the database's cost of the settlement's write (EXPLAIN ANALYZE, docs/benchmarks.md). The
guarantee is the same with one statement trigger that anti-joins the inserted rows (a transition table) with
the referenced table: transactions and bets are append-only (their UPDATE and DELETE are refused, 0002), so a
row that exists when a reference to it is inserted exists for ever, which is all the key-share lock was for.
The check runs at the end of the INSERT rather than at commit: every service writes the transaction row first.

Entries keep their foreign key to the account (accounts may change balance, and the settlement has locked
them anyway). SQLite, the embedded default, gets row triggers with the same check.
"""

import django.db.models.deletion
from django.db import migrations, models

# (table, trigger, [(column, referenced table, unique in the table)]): a column of few distinct values (the
# transaction of a statement's rows) is checked once per value; a unique one (the bet) once per row, without
# the DISTINCT that would only cost a hash of 40,000 keys.
CHECKS = [
    ("wallet_entry", "wallet_entry_references", [("transaction_id", "wallet_ledgertransaction", False)]),
    ("wallet_betresolution", "wallet_betresolution_references",
     [("bet_id", "wallet_bet", True), ("transaction_id", "wallet_ledgertransaction", False)]),
]


def _pg_function(table, trigger, columns):
    checks = "\n".join(
        f"""
        SELECT n.{column} INTO missing FROM {"new_rows" if unique else f"(SELECT DISTINCT {column} FROM new_rows)"} n
         WHERE NOT EXISTS (SELECT 1 FROM {target} t WHERE t.id = n.{column}) LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'insert into {table} refused: {column} % is not in {target}', missing
                USING ERRCODE = 'foreign_key_violation';
        END IF;"""
        for column, target, unique in columns
    )
    return [
        f"""
        CREATE FUNCTION {trigger}_check() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            missing bigint;
        BEGIN{checks}
            RETURN NULL;
        END $$
        """,
        f"""
        CREATE TRIGGER {trigger} AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION {trigger}_check()
        """,
    ]


def _sqlite_triggers(table, trigger, columns):
    return [
        f"""
        CREATE TRIGGER {trigger}_{column} BEFORE INSERT ON {table}
        WHEN NOT EXISTS (SELECT 1 FROM {target} WHERE id = NEW.{column})
        BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: {table}.{column}'); END
        """
        for column, target, _ in columns
    ]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table, trigger, columns in CHECKS:
        if vendor == "postgresql":
            statements = _pg_function(table, trigger, columns)
        elif vendor == "sqlite":
            statements = _sqlite_triggers(table, trigger, columns)
        else:
            statements = []
        for statement in statements:
            # params=None: the PL/pgSQL bodies use % as RAISE placeholders, not driver parameters.
            schema_editor.execute(statement, params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table, trigger, columns in CHECKS:
        if vendor == "postgresql":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {trigger}_check()")
        elif vendor == "sqlite":
            for column, *_ in columns:
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger}_{column}")


class Migration(migrations.Migration):

    dependencies = [
        ('wallet', '0005_entry_created_at_index_autosummarize'),
    ]

    operations = [
        migrations.AlterField(
            model_name='betresolution',
            name='bet',
            field=models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='resolution', serialize=False, to='wallet.bet'),
        ),
        migrations.AlterField(
            model_name='betresolution',
            name='transaction',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='resolutions', to='wallet.ledgertransaction'),
        ),
        migrations.AlterField(
            model_name='entry',
            name='transaction',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='wallet.ledgertransaction'),
        ),
        # After the AlterFields: on SQLite they rebuild the tables, which would drop triggers made before.
        migrations.RunPython(forward, backward),
    ]

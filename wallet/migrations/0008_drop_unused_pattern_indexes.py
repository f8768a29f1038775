"""Drop the pattern-matching copies Django adds beside the indexes of two text columns: no query matches a prefix
of a ledger key or reference (the admin's search is a case-insensitive substring, which no btree serves), and each
copy cost an index insert with its WAL on every bet hold (docs/benchmarks.md, "PostgreSQL CPU per bet"). The
unique key and the plain reference indexes stay."""

from django.db import migrations

INDEXES = [
    ("wallet_ledgertransaction_idempotency_key_a15a3f79_like", "wallet_ledgertransaction", "idempotency_key"),
    ("wallet_ledgertransaction_reference_fb5ee297_like", "wallet_ledgertransaction", "reference"),
    ("wallet_bet_reference_672c69eb_like", "wallet_bet", "reference"),
]


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, _table, _column in INDEXES:
            schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, table, column in INDEXES:
            schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}" varchar_pattern_ops)')


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0007_bet_hold_one_account_function"),
    ]

    operations = [migrations.RunPython(_drop, _create)]

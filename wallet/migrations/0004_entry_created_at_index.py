"""An index on the entries' time, for the daily reconciliation's reads of a period (wallet.reconciliation).

On PostgreSQL a BRIN index: entries are append-only and written at the time they carry, so their time follows
their place in the table; a BRIN index of that is a few pages (40 kB for 2.4 million entries), costs the
ledger's hot inserts next to nothing (unlike a B-tree on every entry) and narrows a day's read to the blocks
that hold it (docs/reconciliation.md has the figures). `autosummarize` has autovacuum summarize each block range
as it fills: a range never summarized is read by every query. Built CONCURRENTLY (so not in a transaction), so
a ledger that already holds entries keeps taking them while it builds. SQLite (the embedded default) gets a
plain index. Kept out of the model's Meta because Django's index classes cannot say "BRIN on one database,
B-tree on the other"; like 0002, the migration is the one place that knows."""

from django.db import migrations


def _forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_entry_created_at_brin ON wallet_entry "
                              "USING brin (created_at) WITH (pages_per_range = 32, autosummarize = on)")
    else:
        schema_editor.execute("CREATE INDEX IF NOT EXISTS wallet_entry_created_at_brin ON wallet_entry (created_at)")


def _backward(apps, schema_editor):
    schema_editor.execute("DROP INDEX IF EXISTS wallet_entry_created_at_brin")


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("wallet", "0003_idempotency_key_room_for_client_keys")]

    operations = [migrations.RunPython(_forward, _backward, atomic=False)]

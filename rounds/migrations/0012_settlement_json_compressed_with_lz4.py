"""Compress a round's settlement, and the audit events that carry it, with lz4 rather than pglz.

A big common draw's settlement is megabytes of JSON (1.47 MB for 10,000 players), written twice in the
settlement's transaction: into the round row and into its `settled` audit event. PostgreSQL compresses each as
it stores it out of line; pglz took about 50 ms per copy of that one, lz4 about a tenth of it, for a similar
size (docs/benchmarks.md). Only new values are compressed the new way; a value already stored keeps its
method, and both read back the same. Servers built without lz4 keep pglz.
"""

from django.db import migrations, transaction
from django.db.utils import NotSupportedError

COLUMNS = [("rounds_round", "settlement"), ("rounds_roundevent", "payload"), ("rounds_continuation", "settlement")]


def _compression(method: str):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        try:
            with transaction.atomic(using=schema_editor.connection.alias):
                for table, column in COLUMNS:
                    schema_editor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET COMPRESSION {method}')
        except NotSupportedError:  # "compression method lz4 not supported": a server built without it
            pass

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("rounds", "0011_request_user_index_in_the_unique_key"),
    ]

    operations = [migrations.RunPython(_compression("lz4"), _compression("default"))]

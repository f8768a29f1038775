"""A database that applied the first version of 0004 (merged briefly before autosummarize was added) has the
entry-time BRIN index without it: its block ranges would stay unsummarized, and every query reads those. Setting
it again on a database that has it already changes nothing. (Its pages per range stay what that index was built
with: a BRIN index keeps its own.)"""

from django.db import migrations


def _forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER INDEX IF EXISTS wallet_entry_created_at_brin SET (autosummarize = on)")


class Migration(migrations.Migration):
    dependencies = [("wallet", "0004_entry_created_at_index")]

    operations = [migrations.RunPython(_forward, migrations.RunPython.noop)]

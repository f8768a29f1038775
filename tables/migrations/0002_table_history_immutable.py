"""PostgreSQL refuses UPDATE and DELETE on table history, so not even raw SQL can rewrite it.

TRUNCATE (used by test flushes) is a statement-level operation and is not affected. SQLite (development only)
relies on the model and queryset guards.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tables_tablechange_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'table history is immutable: % on tables_tablechange refused', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tables_tablechange_immutable
    BEFORE UPDATE OR DELETE ON tables_tablechange
    FOR EACH ROW EXECUTE FUNCTION tables_tablechange_immutable();
"""

DROP = """
DROP TRIGGER IF EXISTS tables_tablechange_immutable ON tables_tablechange;
DROP FUNCTION IF EXISTS tables_tablechange_immutable();
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("tables", "0001_tables_limits_paytables_history")]

    operations = [migrations.RunPython(_on_postgres(CREATE), _on_postgres(DROP))]

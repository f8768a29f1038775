"""PostgreSQL refuses UPDATE and DELETE on table history, so not even raw SQL can rewrite it.

TRUNCATE (used by test flushes) is a statement-level operation and is not affected. SQLite (development only)
relies on the model and queryset guards. The SQL is casino.append_only's; this guard keeps its own trigger name
and PL/pgSQL's default error (raise_exception), as it always had.
"""

from django.db import migrations

from casino import append_only

FORWARD, BACKWARD = append_only.guard(
    "tables_tablechange", function="tables_tablechange_immutable", trigger="tables_tablechange_immutable",
    args="TG_OP", errcode=None, replace=True,
    message="table history is immutable: % on tables_tablechange refused")


class Migration(migrations.Migration):
    dependencies = [("tables", "0001_tables_limits_paytables_history")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

"""PostgreSQL refuses UPDATE and DELETE on the staff-activity record, so not even raw SQL can rewrite it.

Row triggers do not fire on TRUNCATE, which is how test databases are flushed. SQLite (development only) relies
on the model and queryset guards.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE FUNCTION accounts_staffaction_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'accounts_staffaction is append-only: % refused; a staff action is never rewritten', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    """
    CREATE TRIGGER accounts_staffaction_append_only BEFORE UPDATE OR DELETE ON accounts_staffaction
        FOR EACH ROW EXECUTE FUNCTION accounts_staffaction_refuse_change()
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS accounts_staffaction_append_only ON accounts_staffaction",
    "DROP FUNCTION IF EXISTS accounts_staffaction_refuse_change()",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_staff_action")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]

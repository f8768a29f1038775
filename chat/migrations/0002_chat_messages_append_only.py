"""PostgreSQL refuses UPDATE and DELETE on chat messages, so not even raw SQL can rewrite what a player wrote.

Row triggers do not fire on TRUNCATE, which is how test databases are flushed. SQLite (development only) relies
on the model and queryset guards.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE FUNCTION chat_chatmessage_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'chat_chatmessage is append-only: % refused; a chat message is never rewritten', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    """
    CREATE TRIGGER chat_chatmessage_append_only BEFORE UPDATE OR DELETE ON chat_chatmessage
        FOR EACH ROW EXECUTE FUNCTION chat_chatmessage_refuse_change()
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS chat_chatmessage_append_only ON chat_chatmessage",
    "DROP FUNCTION IF EXISTS chat_chatmessage_refuse_change()",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("chat", "0001_chat_messages")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]

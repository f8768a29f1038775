"""PostgreSQL guard: the audit trail and the facts it records (cards, decisions, round bets) are append-only.

Row-level triggers refuse UPDATE and DELETE, even from raw SQL. SQLite (the embedded default) skips them; the
services never update these rows anyway. Row triggers do not fire on TRUNCATE, which is how test databases
are flushed.
"""

from django.db import migrations

APPEND_ONLY_TABLES = ("rounds_roundevent", "rounds_cardrecord", "rounds_decision", "rounds_roundbet")

FORWARD = [
    """
    CREATE FUNCTION rounds_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% is append-only: % refused; a round''s record is never rewritten', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    *[
        f"""
        CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
            FOR EACH ROW EXECUTE FUNCTION rounds_refuse_change()
        """
        for table in APPEND_ONLY_TABLES
    ],
]

BACKWARD = [
    *[f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}" for table in APPEND_ONLY_TABLES],
    "DROP FUNCTION IF EXISTS rounds_refuse_change()",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("rounds", "0001_rounds_shoes_spots_bets_cards_decisions_audit")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]

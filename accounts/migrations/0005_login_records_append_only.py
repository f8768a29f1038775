"""PostgreSQL guard: login records are append-only. A row trigger refuses UPDATE and DELETE, even from raw SQL
(as rounds' audit trail is guarded). SQLite skips it; the services only ever insert. TRUNCATE (how test databases
are flushed) fires no row trigger."""

from django.db import migrations

FORWARD = [
    """
    CREATE FUNCTION accounts_login_record_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% is append-only: % refused; a login record is never rewritten', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    """
    CREATE TRIGGER accounts_loginrecord_append_only BEFORE UPDATE OR DELETE ON accounts_loginrecord
        FOR EACH ROW EXECUTE FUNCTION accounts_login_record_refuse_change()
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS accounts_loginrecord_append_only ON accounts_loginrecord",
    "DROP FUNCTION IF EXISTS accounts_login_record_refuse_change()",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_api_tokens_login_records_password_demands")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]

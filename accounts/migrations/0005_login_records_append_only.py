"""PostgreSQL guard: login records are append-only. A row trigger refuses UPDATE and DELETE, even from raw SQL
(as rounds' audit trail is guarded). SQLite skips it; the services only ever insert. TRUNCATE (how test databases
are flushed) fires no row trigger. The SQL is casino.append_only's."""

from django.db import migrations

from casino import append_only

FORWARD, BACKWARD = append_only.guard(
    "accounts_loginrecord", function="accounts_login_record_refuse_change",
    message="% is append-only: % refused; a login record is never rewritten")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_api_tokens_login_records_password_demands")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

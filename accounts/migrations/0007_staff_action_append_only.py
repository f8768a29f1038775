"""PostgreSQL refuses UPDATE and DELETE on the staff-activity record, so not even raw SQL can rewrite it.

Row triggers do not fire on TRUNCATE, which is how test databases are flushed. SQLite (development only) relies
on the model and queryset guards. The SQL is casino.append_only's.
"""

from django.db import migrations

from casino import append_only

FORWARD, BACKWARD = append_only.guard(
    "accounts_staffaction", function="accounts_staffaction_refuse_change", args="TG_OP",
    message="accounts_staffaction is append-only: % refused; a staff action is never rewritten")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_staff_action")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

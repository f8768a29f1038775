"""PostgreSQL guard: the audit trail and the facts it records (cards, decisions, round bets) are append-only.

Row-level triggers refuse UPDATE and DELETE, even from raw SQL. SQLite (the embedded default) skips them; the
services never update these rows anyway. Row triggers do not fire on TRUNCATE, which is how test databases
are flushed. The SQL is casino.append_only's; rounds_refuse_change is shared with later facts (0008).
"""

from django.db import migrations

from casino import append_only

APPEND_ONLY_TABLES = ("rounds_roundevent", "rounds_cardrecord", "rounds_decision", "rounds_roundbet")

FORWARD, BACKWARD = append_only.guards(
    APPEND_ONLY_TABLES, function="rounds_refuse_change",
    message="% is append-only: % refused; a round's record is never rewritten")


class Migration(migrations.Migration):
    dependencies = [("rounds", "0001_rounds_shoes_spots_bets_cards_decisions_audit")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

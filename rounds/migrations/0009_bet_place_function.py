"""The common-draw bet placement in one round trip (rounds.placement_sql): a PostgreSQL function."""

from django.db import migrations

# The function's text is rounds.placement_sql's; a change to it needs a new migration running it again (CREATE OR
# REPLACE), and tests/rounds/test_bet_place_function.py fails until the database's text is the module's.
from rounds.placement_sql import DROP_SQL, FUNCTION_SQL


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION_SQL, params=None)


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("rounds", "0008_bet_return_confirmation"),
        ("responsible", "0002_jurisdictions"),
        ("wallet", "0003_idempotency_key_room_for_client_keys"),
        ("tables", "0006_multiple_bets"),
    ]

    operations = [migrations.RunPython(_create, _drop)]

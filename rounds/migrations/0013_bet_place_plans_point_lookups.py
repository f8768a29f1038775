"""The bet placement's database function plans its statements as index look-ups (as the wallet's functions do
since wallet 0011, which says why): its plans are kept for the session, and one made while the round's bets or
spots were few would go on scanning them whole on every bet as they grow."""

from django.db import migrations

SETTINGS = "SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off"
UNDO = "RESET enable_seqscan RESET enable_hashjoin RESET enable_mergejoin"
SIGNATURE = ("rounds_bet_place(bigint, text, timestamptz, integer, text, text, timestamptz, timestamptz, text, "
             "boolean, text[], bigint[], bigint[], bigint[], text, text, jsonb)")


def _alter(clause: str):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER FUNCTION {SIGNATURE} {clause}", params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("rounds", "0012_settlement_json_compressed_with_lz4"),
        ("wallet", "0011_ledger_functions_plan_point_lookups"),
    ]

    operations = [migrations.RunPython(_alter(SETTINGS), _alter(UNDO))]

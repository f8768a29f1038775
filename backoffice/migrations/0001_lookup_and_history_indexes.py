"""The indexes the back office's reads need on other apps' tables (see backoffice/selectors.py and reports.py).

They live here, not in those apps' migrations, because only these pages need them; each is created if missing
and dropped on reverse. Measured with bench/backoffice_bench.py on 1,000,000 rounds (docs/benchmarks.md).
"""

from django.db import migrations

# (name, table, PostgreSQL definition, portable definition or None when only PostgreSQL needs it)
INDEXES = [
    # A player's game history: the newest round ids of their spots, by keyset, from the index alone.
    ("rounds_spot_player_round", "rounds_spot", "(player_id, round_id)", "(player_id, round_id)"),
    # Partial game numbers ("FB01-20261130-1422…"): LIKE 'prefix%' needs a pattern index under a non-C collation.
    ("rounds_round_game_number_prefix", "rounds_round", "(game_number varchar_pattern_ops)", None),
    # The dashboard (rounds of the last hour, voids of a period) and the RTP report (rounds settled in a period).
    ("rounds_round_opened_at", "rounds_round", "(opened_at)", "(opened_at)"),
    ("rounds_round_settled_at", "rounds_round", "(settled_at)", "(settled_at)"),
    ("rounds_round_voided_at", "rounds_round", "(voided_at)", "(voided_at)"),
    # The search box: usernames by prefix and e-mail addresses, both case-insensitive.
    ("backoffice_user_username_upper", "auth_user", "(UPPER(username::text) text_pattern_ops)", None),
    ("backoffice_user_email_upper", "auth_user", "(UPPER(email::text))", None),
]


def create(apps, schema_editor):
    postgres = schema_editor.connection.vendor == "postgresql"
    for name, table, pg_definition, portable in INDEXES:
        definition = pg_definition if postgres else portable
        if definition:
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} {definition}")


def drop(apps, schema_editor):
    for name, *_ in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("rounds", "0002_round_facts_append_only"),
    ]

    operations = [migrations.RunPython(create, drop)]

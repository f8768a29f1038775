"""Let a player account's balance be updated in place (a heap-only tuple update, HOT).

Every bet hold, deposit and settlement rewrites the account's row. PostgreSQL writes the new version on the
same page, touching no index, only if the page has room and no indexed column changed; with the default fill
factor of 100 the pages of this small, hot table are full, so almost every update also inserted into each of
its indexes (8 % of a 10,000-player settlement's 10,000 account updates were HOT; docs/benchmarks.md). Pages
now keep half their room for new versions, and the player index Django adds for the foreign key goes: the
unique (player, kind, currency) index, whose condition every `player_id = ...` lookup satisfies, serves those
lookups. New pages follow the fill factor; existing ones as they are rewritten (VACUUM FULL, or in time).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FILL_FACTOR = 50


def _fill_factor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE wallet_account SET (fillfactor = {FILL_FACTOR})")


def _fill_factor_reset(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE wallet_account RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("wallet", "0008_drop_unused_pattern_indexes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="account",
            name="player",
            field=models.ForeignKey(
                blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT,
                related_name="wallet_accounts", to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(_fill_factor, _fill_factor_reset),
    ]

"""Operators read the staff-activity page; support and players do not."""

from django.db import migrations

from accounts.roles import sync_groups_migration


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_staff_action_append_only"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='backoffice',
            options={'default_permissions': (), 'managed': False, 'permissions': [('configure_tables', 'configure tables, bet limits and paytables'), ('view_dashboard', 'read the operator dashboard'), ('view_backoffice', 'read every table, round and player'), ('lookup_players', 'look up players, game numbers and transactions'), ('void_rounds', 'void a round'), ('grant_golden_chips', 'grant Golden Chips to a player'), ('view_staff_activity', 'read the record of every staff action'), ('play', 'play and hold a wallet')]},
        ),
        migrations.RunPython(sync_groups_migration, migrations.RunPython.noop),
    ]

from django.db import migrations

from accounts.roles import groups_sync_migration

# The roles as this migration wrote them, frozen (accounts.roles.groups_sync_migration says why).
PERMISSIONS = {
    "configure_tables": "configure tables, bet limits and paytables",
    "view_dashboard": "read the operator dashboard",
    "view_backoffice": "read every table, round and player",
    "lookup_players": "look up players, game numbers and transactions",
    "void_rounds": "void a round",
    "grant_golden_chips": "grant Golden Chips to a player",
    "play": "play and hold a wallet",
}
ROLE_PERMISSIONS = {
    "operator": ("configure_tables", "view_dashboard", "view_backoffice", "void_rounds",
                  "grant_golden_chips"),
    "support": ("view_backoffice", "lookup_players", "void_rounds"),
    "player": ("play",),
}


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_role_groups"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="backoffice",
            options={
                "default_permissions": (),
                "managed": False,
                "permissions": [
                    ("configure_tables", "configure tables, bet limits and paytables"),
                    ("view_dashboard", "read the operator dashboard"),
                    ("view_backoffice", "read every table, round and player"),
                    ("lookup_players", "look up players, game numbers and transactions"),
                    ("void_rounds", "void a round"),
                    ("grant_golden_chips", "grant Golden Chips to a player"),
                    ("play", "play and hold a wallet"),
                ],
            },
        ),
        # Databases made before the permission existed: operators get it.
        migrations.RunPython(groups_sync_migration(PERMISSIONS, ROLE_PERMISSIONS), migrations.RunPython.noop),
    ]

from django.db import migrations

from accounts.roles import sync_groups


def sync_role_groups(apps, schema_editor):
    """Operators get the new permission on databases created before it existed."""
    content_type_model = apps.get_model("contenttypes", "ContentType")
    content_type, _ = content_type_model.objects.get_or_create(app_label="accounts", model="backoffice")
    sync_groups(
        group_model=apps.get_model("auth", "Group"),
        permission_model=apps.get_model("auth", "Permission"),
        content_type=content_type,
    )


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
        migrations.RunPython(sync_role_groups, migrations.RunPython.noop),
    ]

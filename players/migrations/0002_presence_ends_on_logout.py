from django.db import migrations, models


def end_presences_at_closed_tables(apps, schema_editor):
    """Tables closed before closing ended presences leave nobody seated at them either."""
    presence = apps.get_model("players", "TablePresence")
    table = apps.get_model("tables", "Table")
    for closed in table.objects.filter(state="closed", presences__ended_at__isnull=True).distinct():
        presence.objects.filter(table=closed, ended_at__isnull=True).update(
            ended_at=closed.updated_at, end_reason="table_closed")


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0001_profiles_notes_presence"),
    ]

    operations = [
        migrations.AlterField(
            model_name="tablepresence",
            name="end_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("left", "Left the table"),
                    ("replaced", "Joined the same table from another session"),
                    ("table_closed", "The table closed"),
                    ("logged_out", "Logged out"),
                ],
                max_length=16,
            ),
        ),
        migrations.RunPython(end_presences_at_closed_tables, migrations.RunPython.noop),
    ]

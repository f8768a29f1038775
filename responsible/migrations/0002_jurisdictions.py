"""The three licences the operator holds (operators change their rules in the admin). Every raise waits the
issue's default of 72 hours, which meets each regulator's minimum:
- SE (Spelinspektionen): a deposit limit before the first deposit; a raise waits at least 72 hours.
- GB (UKGC) and MT (MGA): limits are offered but optional; a raise waits at least 24 hours.
"""

from django.db import migrations

JURISDICTIONS = [
    ("SE", "Sweden", 72, True, "Europe/Stockholm"),
    ("GB", "Great Britain", 72, False, "Europe/London"),
    ("MT", "Malta", 72, False, "Europe/Malta"),
]


def jurisdictions_add(apps, schema_editor):
    Jurisdiction = apps.get_model("responsible", "Jurisdiction")
    for code, name, hours, required, zone in JURISDICTIONS:
        Jurisdiction.objects.get_or_create(code=code, defaults={
            "name": name, "cooling_off_hours": hours, "deposit_limit_required": required, "time_zone": zone})


class Migration(migrations.Migration):
    dependencies = [("responsible", "0001_initial")]
    operations = [migrations.RunPython(jurisdictions_add, migrations.RunPython.noop)]

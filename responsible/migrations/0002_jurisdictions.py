"""The licences the operator holds, with their rules (responsible/jurisdictions.py says why each)."""

from django.db import migrations

# The licences as this migration wrote them, frozen: responsible.jurisdictions.DEFAULTS is today's, and an edit
# there must not change what this migration writes on a new database (existing ones keep what it wrote then).
JURISDICTIONS = {
    "SE": {"name": "Sweden", "cooling_off_hours": 72, "deposit_limit_required": True,
           "time_zone": "Europe/Stockholm"},
    "GB": {"name": "Great Britain", "cooling_off_hours": 72, "deposit_limit_required": False,
           "time_zone": "Europe/London"},
    "MT": {"name": "Malta", "cooling_off_hours": 72, "deposit_limit_required": False, "time_zone": "Europe/Malta"},
}


def jurisdictions_add(apps, schema_editor):
    Jurisdiction = apps.get_model("responsible", "Jurisdiction")
    for code, values in JURISDICTIONS.items():
        Jurisdiction.objects.get_or_create(code=code, defaults=values)


class Migration(migrations.Migration):
    dependencies = [("responsible", "0001_initial")]
    operations = [migrations.RunPython(jurisdictions_add, migrations.RunPython.noop)]

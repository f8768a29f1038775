"""The licences the operator holds, with their rules (responsible/jurisdictions.py says why each)."""

from django.db import migrations

from responsible.jurisdictions import DEFAULTS


def jurisdictions_add(apps, schema_editor):
    Jurisdiction = apps.get_model("responsible", "Jurisdiction")
    names = {f.name for f in Jurisdiction._meta.fields}  # the rules added later are written by later migrations
    for code, values in DEFAULTS.items():
        Jurisdiction.objects.get_or_create(code=code, defaults={k: v for k, v in values.items() if k in names})


class Migration(migrations.Migration):
    dependencies = [("responsible", "0001_initial")]
    operations = [migrations.RunPython(jurisdictions_add, migrations.RunPython.noop)]

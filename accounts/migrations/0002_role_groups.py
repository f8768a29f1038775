from django.db import migrations

from accounts.roles import sync_groups


def create_role_groups(apps, schema_editor):
    content_type_model = apps.get_model("contenttypes", "ContentType")
    content_type, _ = content_type_model.objects.get_or_create(app_label="accounts", model="backoffice")
    sync_groups(
        group_model=apps.get_model("auth", "Group"),
        permission_model=apps.get_model("auth", "Permission"),
        content_type=content_type,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_role_groups, migrations.RunPython.noop)]

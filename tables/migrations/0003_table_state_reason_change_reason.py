"""A reason on every table change and on the table's state (a pause with no round in play kept none)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0002_table_history_immutable'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='state_reason',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='tablechange',
            name='reason',
            field=models.TextField(blank=True, default=''),
        ),
    ]

"""A round the worker gave up settling or refunding is marked for staff: when, and why."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0003_request_key_per_user_and_operation'),
        ('tables', '0002_table_history_immutable'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='round',
            name='attention_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='round',
            name='attention_reason',
            field=models.TextField(blank=True),
        ),
        migrations.AddIndex(
            model_name='round',
            index=models.Index(condition=models.Q(('attention_at__isnull', False)), fields=['attention_at'], name='rounds_round_attention'),
        ),
    ]

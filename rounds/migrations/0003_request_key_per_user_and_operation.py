"""A request key is scoped to its user and operation, as the wallet scopes client keys."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0002_round_facts_append_only'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='roundrequest',
            name='rounds_request_key_once_per_user',
        ),
        migrations.AddConstraint(
            model_name='roundrequest',
            constraint=models.UniqueConstraint(fields=('user', 'operation', 'key'), name='rounds_request_key_once_per_user_operation'),
        ),
    ]

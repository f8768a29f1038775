"""A bet's request row without an index of its own on the user: the unique (user, operation, key) starts with the
user and serves every look-up by user (docs/benchmarks.md, "PostgreSQL CPU per bet")."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0010_bet_place_through_the_wallet_hold'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='roundrequest',
            name='user',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
    ]

"""Refunds and reversals run in batches of players: the cursor of the last player whose money is back."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0004_round_attention'),
    ]

    operations = [
        migrations.AddField(
            model_name='round',
            name='refunds_cursor',
            field=models.BigIntegerField(default=0),
        ),
    ]

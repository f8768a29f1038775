"""Client keys are stored as client:<user id>:<operation>:<key> (wallet.keys): a 200-character key needs the room.

On PostgreSQL, widening a varchar rewrites neither the table nor its unique index."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('wallet', '0002_ledger_guards'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ledgertransaction',
            name='idempotency_key',
            field=models.CharField(max_length=300, unique=True),
        ),
    ]

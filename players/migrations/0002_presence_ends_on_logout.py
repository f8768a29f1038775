from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0001_profiles_notes_presence'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tablepresence',
            name='end_reason',
            field=models.CharField(blank=True, choices=[('left', 'Left the table'), ('replaced', 'Joined the same table from another session'), ('table_closed', 'The table closed'), ('logged_out', 'Logged out')], max_length=16),
        ),
    ]

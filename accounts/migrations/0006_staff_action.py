"""The staff-activity record: one row per staff action (accounts.staffaudit writes it)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_login_records_append_only'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='StaffAction',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.DateTimeField(default=django.utils.timezone.now)),
                ('actor_role', models.CharField(blank=True, max_length=20)),
                ('action', models.CharField(choices=[('table_created', 'Table created'), ('table_configured', 'Table configuration changed'), ('table_opened', 'Table opened'), ('table_paused', 'Table paused'), ('table_resumed', 'Table resumed'), ('table_closed', 'Table closed'), ('rtp_simulation_started', 'RTP simulation started'), ('round_voided', 'Round voided'), ('round_reversed', 'Round reversed'), ('golden_chips_granted', 'Golden Chips granted'), ('chat_disabled', 'Chat disabled'), ('chat_enabled', 'Chat enabled'), ('player_note_added', 'Note on a player'), ('password_reset', 'Password reset'), ('worker_probed', 'Worker health probe')], max_length=40)),
                ('object_kind', models.CharField(blank=True, choices=[('', 'nothing'), ('table', 'table'), ('round', 'round'), ('player', 'player'), ('user', 'user')], max_length=10)),
                ('object_ref', models.CharField(blank=True, max_length=64)),
                ('object_label', models.CharField(blank=True, max_length=150)),
                ('reason', models.TextField(blank=True)),
                ('address', models.GenericIPAddressField(blank=True, null=True)),
                ('user_agent', models.CharField(blank=True, max_length=512)),
                ('details', models.JSONField(blank=True, default=dict)),
                ('actor', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-id'],
                'indexes': [models.Index(fields=['actor', '-id'], name='staffaction_actor'), models.Index(fields=['action', '-id'], name='staffaction_action'), models.Index(fields=['object_kind', 'object_ref', '-id'], name='staffaction_object'), models.Index(fields=['at'], name='staffaction_at')],
                'constraints': [models.CheckConstraint(condition=models.Q(('action__in', ['table_created', 'table_configured', 'table_opened', 'table_paused', 'table_resumed', 'table_closed', 'rtp_simulation_started', 'round_voided', 'round_reversed', 'golden_chips_granted', 'chat_disabled', 'chat_enabled', 'player_note_added', 'password_reset', 'worker_probed'])), name='staffaction_action_known'), models.CheckConstraint(condition=models.Q(('object_kind__in', ['', 'table', 'round', 'player', 'user'])), name='staffaction_object_kind_known')],
            },
        ),
    ]

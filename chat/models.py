"""A table's chat: what players and the host (the studio) wrote there, when. Messages are facts: they are added,
never edited or deleted (the queryset refuses, and on PostgreSQL a trigger refuses raw SQL too, migration 0002),
so support reads exactly what the players read.

Only chat.services writes this table.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models import Table

# One line of table talk: long enough for a sentence, short enough that nobody floods the table with one message.
BODY_MAX_LENGTH = 200


class ChatAuthor(models.TextChoices):
    PLAYER = "player", "Player"
    HOST = "host", "Host (studio)"


class ChatMessageQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("chat messages are append-only: they cannot be edited")

    def delete(self):
        raise TypeError("chat messages are append-only: they cannot be deleted")


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages")
    author_kind = models.CharField(max_length=8, choices=ChatAuthor.choices)
    body = models.CharField(max_length=BODY_MAX_LENGTH)
    posted_at = models.DateTimeField(default=timezone.now)

    objects = ChatMessageQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(author_kind__in=ChatAuthor.values), name="chat_message_author_known"),
            models.CheckConstraint(condition=~Q(body=""),
                                   name="chat_message_body_not_empty"),
        ]
        indexes = [
            # A table's chat as players poll it (after an id) and as support reads it (a time range).
            models.Index(fields=["table", "id"], name="chat_message_table_id"),
            models.Index(fields=["table", "posted_at"], name="chat_message_table_time"),
            models.Index(fields=["author", "id"], name="chat_message_author_id"),
        ]

    def __str__(self) -> str:
        return f"chat message {self.pk} at table {self.table_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise TypeError("chat messages are append-only: they cannot be edited")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("chat messages are append-only: they cannot be deleted")

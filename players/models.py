"""What belongs to a player beyond the wallet: their settings (kept on the server, so every device applies
them), chat moderation, staff notes, and where they are sitting now.

Only players.services writes these tables.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tables.models import Table

NOTE_MAX_LENGTH = 2000
REASON_MAX_LENGTH = 500


class VideoQuality(models.TextChoices):
    AUTO = "auto", _("Automatic (follows the connection)")
    HIGH = "high", _("High (1080p)")
    MEDIUM = "medium", _("Medium (720p)")
    LOW = "low", _("Low (480p)")
    OFF = "off", _("No video (sound and cards only)")


# The choice stored on a profile: blank follows the browser; else one of settings.LANGUAGES.
LANGUAGE_CHOICES = [("", _("My browser's language")), *settings.LANGUAGES]


class PlayerProfile(models.Model):
    """One row per player who changed a setting or was moderated; a player without one has the defaults."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.PROTECT,
                                  related_name="player_profile")
    sound_on = models.BooleanField(default=True)
    sound_volume = models.PositiveSmallIntegerField(default=70, help_text="the game sound, 0-100")
    dealer_voice = models.BooleanField(default=True)
    # The presenter's voice has its own level, so a player can hear the dealer over quiet game sounds (or not).
    voice_volume = models.PositiveSmallIntegerField(default=70, help_text="the dealer's (presenter's) voice, 0-100")
    video_quality = models.CharField(max_length=8, choices=VideoQuality.choices, default=VideoQuality.AUTO)
    hide_others_chat = models.BooleanField(default=False)
    # Where a table confirms bets automatically at the end of betting time, a player may switch it off and
    # confirm by hand (then unconfirmed bets are returned when betting closes).
    auto_confirm_bets = models.BooleanField(default=True)
    # The language the player chose for their pages, the statement and the game-client API's help; blank:
    # none chosen yet, so their browser's language decides. ?lang= on a player's page stores it here too.
    language = models.CharField(max_length=8, blank=True, default="", choices=LANGUAGE_CHOICES)
    chat_disabled = models.BooleanField(default=False)
    chat_disabled_reason = models.CharField(max_length=REASON_MAX_LENGTH, blank=True)
    chat_disabled_at = models.DateTimeField(null=True, blank=True)
    chat_disabled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                         on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(sound_volume__lte=100), name="players_profile_volume_range"),
            models.CheckConstraint(condition=Q(voice_volume__lte=100), name="players_profile_voice_volume_range"),
            models.CheckConstraint(condition=Q(video_quality__in=VideoQuality.values),
                                   name="players_profile_video_quality_known"),
            # A disabled chat always says why, so support can answer the player.
            models.CheckConstraint(condition=Q(language__in=["", *dict(settings.LANGUAGES)]),
                                   name="players_profile_language_known"),
            models.CheckConstraint(condition=Q(chat_disabled=False) | ~Q(chat_disabled_reason=""),
                                   name="players_profile_chat_disabled_has_reason"),
        ]

    def __str__(self) -> str:
        return f"profile of player {self.player_id}"


class PlayerNote(models.Model):
    """A note staff wrote about a player; notes are added, never edited (a correction is a new note)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "-id"], name="players_note_player_newest")]

    def __str__(self) -> str:
        return f"note {self.pk} on player {self.player_id}"


class PresenceEnd(models.TextChoices):
    LEFT = "left", "Left the table"
    REPLACED = "replaced", "Joined the same table from another session"
    TABLE_CLOSED = "table_closed", "The table closed"
    LOGGED_OUT = "logged_out", "Logged out"


class TablePresence(models.Model):
    """A player at a table in one browser session. A player may sit at several tables at once, but at each
    table in one session only: joining it from another session ends the first presence."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="table_presences")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="presences")
    session_key = models.CharField(max_length=64)
    joined_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=PresenceEnd.choices, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "table"], condition=Q(ended_at__isnull=True),
                                    name="players_presence_one_live_per_player_table"),
            models.CheckConstraint(condition=Q(ended_at__isnull=True) | ~Q(end_reason=""),
                                   name="players_presence_ended_has_reason"),
        ]
        indexes = [models.Index(fields=["player", "-id"], name="players_presence_player_newest")]

    def __str__(self) -> str:
        return f"player {self.player_id} at table {self.table_id} ({'live' if self.ended_at is None else 'ended'})"

    @property
    def live(self) -> bool:
        return self.ended_at is None

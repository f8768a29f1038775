"""Responsible gambling: the jurisdictions' rules, the limits a player sets, their time-outs and
self-exclusions, the default national self-exclusion register, and reality-check answers.

Only responsible.services writes these tables. Limit changes are append-only: the limit in force at a moment is
worked out from the history (responsible.limits), so a pending raise and the reason it has not taken effect are
always on record.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

REASON_MAX_LENGTH = 2000


class Jurisdiction(models.Model):
    """An operator setting per licence: how long a raised or removed limit waits, whether a deposit limit must
    exist before the first deposit (Sweden), and the time zone its days, weeks and months are counted in."""

    code = models.CharField(max_length=2, primary_key=True, help_text="ISO 3166 country code, e.g. SE")
    name = models.CharField(max_length=80)
    cooling_off_hours = models.PositiveIntegerField(default=72)
    deposit_limit_required = models.BooleanField(default=False)
    time_zone = models.CharField(max_length=64, default="Europe/Stockholm")

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class PlayerSettings(models.Model):
    """A player's jurisdiction and reality-check interval; a player without a row has the defaults (the
    jurisdiction of settings.RESPONSIBLE_DEFAULT_JURISDICTION, no reality check)."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.PROTECT,
                                  related_name="responsible_settings")
    jurisdiction = models.ForeignKey(Jurisdiction, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "player settings"

    def __str__(self) -> str:
        return f"responsible-gambling settings of player {self.player_id}"


class LimitKind(models.TextChoices):
    DEPOSIT = "deposit", _("Deposit limit")
    LOSS = "loss", _("Loss limit")
    SESSION = "session", _("Session time limit")


class LimitPeriod(models.TextChoices):
    DAY = "day", _("per day")
    WEEK = "week", _("per week")
    MONTH = "month", _("per month")
    SESSION = "session", _("per session")


class LimitChange(models.Model):
    """One request to set, lower, raise or remove a limit (value None: no limit). It takes effect at
    `effective_at`: at once when it tightens the limit, after the jurisdiction's cooling-off period when it
    loosens it. Money limits are minor units of `currency`; a session limit is minutes (currency empty)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="limit_changes")
    kind = models.CharField(max_length=8, choices=LimitKind.choices)
    period = models.CharField(max_length=8, choices=LimitPeriod.choices)
    currency = models.CharField(max_length=3, blank=True)
    value = models.BigIntegerField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    effective_at = models.DateTimeField()
    # The player themselves when None; otherwise the staff member who entered it for them.
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")

    class Meta:
        indexes = [models.Index(fields=["player", "kind", "id"], name="responsible_limit_player")]
        constraints = [
            models.CheckConstraint(condition=Q(value__isnull=True) | Q(value__gt=0),
                                   name="responsible_limit_value_positive"),
            models.CheckConstraint(condition=Q(effective_at__gte=models.F("requested_at")),
                                   name="responsible_limit_not_before_request"),
            models.CheckConstraint(
                condition=Q(kind="session", period="session", currency="")
                | (Q(kind__in=["deposit", "loss"], period__in=["day", "week", "month"]) & ~Q(currency="")),
                name="responsible_limit_kind_period_currency",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.period} {self.currency} -> {self.value} from {self.effective_at:%Y-%m-%d %H:%M}"


class ExclusionKind(models.TextChoices):
    TIME_OUT = "time_out", _("Time-out")
    SELF_EXCLUSION = "self_exclusion", _("Self-exclusion")


class Exclusion(models.Model):
    """A time-out or self-exclusion the player chose (or support entered for them): no play, bets or deposits
    from `starts_at` until `ends_at` (None: indefinitely). It cannot be shortened or lifted early."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="exclusions")
    kind = models.CharField(max_length=16, choices=ExclusionKind.choices)
    starts_at = models.DateTimeField(default=timezone.now)
    ends_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "-id"], name="responsible_exclusion_player")]
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__isnull=True) | Q(ends_at__gt=models.F("starts_at")),
                                   name="responsible_exclusion_ends_after_start"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of player {self.player_id} until {self.ends_at or 'further notice'}"


class RegisterEntry(models.Model):
    """The default national self-exclusion register, kept in our own database: an identity (here a player's
    user name stands for the national identity number) excluded until `ends_at` (None: indefinitely). Support
    adds and removes entries, each with a reason; a removal is recorded on the row, never deleted."""

    identity = models.CharField(max_length=150)
    ends_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField()
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(default=timezone.now)
    removed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_reason = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "register entries"
        constraints = [
            models.UniqueConstraint(fields=["identity"], condition=Q(removed_at__isnull=True),
                                    name="responsible_register_one_live_per_identity"),
            models.CheckConstraint(condition=~Q(reason=""), name="responsible_register_has_reason"),
            models.CheckConstraint(condition=Q(removed_at__isnull=True) | ~Q(removed_reason=""),
                                   name="responsible_register_removal_has_reason"),
        ]

    def __str__(self) -> str:
        return f"register entry {self.identity}"


class RealityCheckChoice(models.TextChoices):
    CONTINUE = "continue", _("Continued playing")
    STOP = "stop", _("Stopped playing")


class RealityCheckAnswer(models.Model):
    """The player's answer to a reality check: the next one is due an interval after it."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    choice = models.CharField(max_length=8, choices=RealityCheckChoice.choices)
    session_started_at = models.DateTimeField()
    answered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "-id"], name="responsible_reality_player")]

    def __str__(self) -> str:
        return f"reality check answer of player {self.player_id}: {self.choice}"

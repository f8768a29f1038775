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


class PromotionRule(models.TextChoices):
    ANY = "any", "Promotions at any time"
    FIRST_OCCASION_ONLY = "first_occasion_only", "Promotional credit only at the player's first occasion"
    NONE = "none", "No promotional credit"


class ExclusionEndRule(models.TextChoices):
    NEVER = "never", "An indefinite self-exclusion cannot be ended on request"
    ON_REQUEST = "on_request", "An indefinite self-exclusion ends on request, after a minimum and a cooling-off"


class Jurisdiction(models.Model):
    """An operator setting per licence: how long a raised or removed limit waits, whether a deposit limit must
    exist before the first deposit (Sweden), the time zone its days, weeks and months are counted in, when
    promotional credit may be given, and whether (and when) an indefinite self-exclusion ends on request.
    Changed only through responsible.jurisdiction_rules (each change a JurisdictionChange and a staff action)."""

    code = models.CharField(max_length=2, primary_key=True, help_text="ISO 3166 country code, e.g. SE")
    name = models.CharField(max_length=80)
    cooling_off_hours = models.PositiveIntegerField(default=72)
    deposit_limit_required = models.BooleanField(default=False)
    time_zone = models.CharField(max_length=64, default="Europe/Stockholm")
    promotions = models.CharField(max_length=20, choices=PromotionRule.choices, default=PromotionRule.ANY)
    exclusion_end = models.CharField(max_length=12, choices=ExclusionEndRule.choices,
                                     default=ExclusionEndRule.NEVER)
    # With ON_REQUEST: the end takes effect no earlier than this long after the exclusion started...
    exclusion_end_min_days = models.PositiveIntegerField(default=365)
    # ...and no earlier than this long after the request.
    exclusion_end_cooling_off_hours = models.PositiveIntegerField(default=168)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(promotions__in=PromotionRule.values),
                                   name="responsible_jurisdiction_promotions_known"),
            models.CheckConstraint(condition=Q(exclusion_end__in=ExclusionEndRule.values),
                                   name="responsible_jurisdiction_exclusion_end_known"),
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class JurisdictionChangeQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("jurisdiction history is immutable: JurisdictionChange rows cannot be updated")

    def delete(self):
        raise TypeError("jurisdiction history is immutable: JurisdictionChange rows cannot be deleted")


class JurisdictionChange(models.Model):
    """One immutable entry of a jurisdiction's history: who changed its rules, why, and every rule before and
    after. Inserted only; the model, the queryset and (on PostgreSQL) a trigger refuse updates and deletes."""

    jurisdiction = models.ForeignKey(Jurisdiction, on_delete=models.PROTECT, related_name="changes")
    version = models.PositiveIntegerField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    reason = models.TextField()
    before = models.JSONField()
    after = models.JSONField()

    objects = JurisdictionChangeQuerySet.as_manager()

    class Meta:
        ordering = ["jurisdiction", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["jurisdiction", "version"], name="responsible_jurisdiction_version_once"),
            models.CheckConstraint(condition=~Q(reason=""), name="responsible_jurisdiction_change_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.jurisdiction_id} v{self.version}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("jurisdiction history is immutable: JurisdictionChange rows cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("jurisdiction history is immutable: JurisdictionChange rows cannot be deleted")


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
    from `starts_at` until `ends_at` (None: indefinitely). It cannot be shortened or lifted early; an indefinite
    self-exclusion ends only through an ExclusionEnd, where the player's jurisdiction allows it."""

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


class ExclusionEnd(models.Model):
    """A request to end an indefinite self-exclusion (the player's, or support's on the player's written request):
    the exclusion stops at `effective_at`, which the player's jurisdiction set when it was asked (a minimum time
    excluded and a cooling-off after the request). Until then the exclusion is in force; a withdrawn request
    (withdrawn_at) ends nothing. The exclusion row itself stays as the player chose it."""

    exclusion = models.ForeignKey(Exclusion, on_delete=models.PROTECT, related_name="end_requests")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    effective_at = models.DateTimeField()
    # The player themselves when None; otherwise the staff member who entered the player's written request.
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    reason = models.TextField(blank=True)
    rule = models.JSONField(help_text="the jurisdiction's rule applied: code, minimum days, cooling-off hours")
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    withdrawn_reason = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["player", "-id"], name="responsible_exclusion_end_pl")]
        constraints = [
            models.UniqueConstraint(fields=["exclusion"], condition=Q(withdrawn_at__isnull=True),
                                    name="responsible_exclusion_end_one_live"),
            models.CheckConstraint(condition=Q(effective_at__gt=models.F("requested_at")),
                                   name="responsible_exclusion_end_after_request"),
        ]

    def __str__(self) -> str:
        return f"end of exclusion {self.exclusion_id} at {self.effective_at:%Y-%m-%d %H:%M}"


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

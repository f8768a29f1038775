from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.roles import PERMISSIONS


class BackOffice(models.Model):
    """Holds the role permissions, which belong to no single model."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = list(PERMISSIONS.items())

    def __str__(self) -> str:
        return "back office permissions"


class WorkerHeartbeat(models.Model):
    """A probe that an operator sends through the broker to prove a Celery worker is consuming and can write."""

    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"heartbeat {self.pk} ({'answered' if self.answered_at else 'waiting'})"


class ApiToken(models.Model):
    """A game client's revocable API key. Only its SHA-256 is stored: the key itself is shown once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    # The key's first characters, so its owner can tell their keys apart; not enough to guess the rest.
    prefix = models.CharField(max_length=8)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="+")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(revoked_at__isnull=True) | models.Q(revoked_by__isnull=False),
                                   name="api_token_revoked_by_someone"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class LoginEvent(models.TextChoices):
    LOGIN = "login", _("signed in")
    LOGOUT = "logout", _("signed out")
    LOGIN_FAILED = "login_failed", _("sign-in refused")
    SECOND_FACTOR = "second_factor", _("second factor passed")
    SECOND_FACTOR_FAILED = "second_factor_failed", _("second factor refused")


class LoginRecord(models.Model):
    """Every login, logout and refused login. Append-only: a trigger refuses UPDATE and DELETE (PostgreSQL)."""

    event = models.CharField(max_length=24, choices=LoginEvent.choices)
    username = models.CharField(max_length=150)  # as typed, for a refused login: it may name no one
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                             related_name="login_records")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    at = models.DateTimeField(auto_now_add=True)
    # Why, in plain words: "wrong username or password", "locked out", "recovery code", ...
    detail = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "-id"], name="login_record_user_recent")]

    def __str__(self) -> str:
        return f"{self.username} {self.event} at {self.at:%Y-%m-%d %H:%M:%S}"


class PasswordChangeDemand(models.Model):
    """Support reset this user's password to a temporary one: they must choose their own at their next login."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    demanded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    demanded_at = models.DateTimeField(auto_now_add=True)
    met_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["user"], condition=models.Q(met_at__isnull=True),
                                    name="one_open_password_change_demand"),
        ]

    def __str__(self) -> str:
        return f"password change for user {self.user_id} ({'met' if self.met_at else 'open'})"


class StaffActionKind(models.TextChoices):
    TABLE_CREATED = "table_created", "Table created"
    TABLE_CONFIGURED = "table_configured", "Table configuration changed"
    TABLE_OPENED = "table_opened", "Table opened"
    TABLE_PAUSED = "table_paused", "Table paused"
    TABLE_RESUMED = "table_resumed", "Table resumed"
    TABLE_CLOSED = "table_closed", "Table closed"
    RTP_SIMULATION_STARTED = "rtp_simulation_started", "RTP simulation started"
    ROUND_VOIDED = "round_voided", "Round voided"
    ROUND_REVERSED = "round_reversed", "Round reversed"
    ROUND_RETRIED = "round_retried", "Round retried after staff attention"
    GOLDEN_CHIPS_GRANTED = "golden_chips_granted", "Golden Chips granted"
    CHAT_DISABLED = "chat_disabled", "Chat disabled"
    CHAT_ENABLED = "chat_enabled", "Chat enabled"
    PLAYER_NOTE_ADDED = "player_note_added", "Note on a player"
    PASSWORD_RESET = "password_reset", "Password reset"
    WORKER_PROBED = "worker_probed", "Worker health probe"
    RG_LIMIT_SET = "rg_limit_set", "Responsible gambling limit entered for a player"
    RG_EXCLUSION_STARTED = "rg_exclusion_started", "Time-out or self-exclusion entered for a player"
    RG_JURISDICTION_SET = "rg_jurisdiction_set", "Player's jurisdiction set"
    RG_REGISTER_ADDED = "rg_register_added", "Self-exclusion register entry added"
    RG_REGISTER_REMOVED = "rg_register_removed", "Self-exclusion register entry removed"
    RG_JURISDICTION_CHANGED = "rg_jurisdiction_changed", "Jurisdiction rules changed"
    RG_EXCLUSION_END_REQUESTED = "rg_exclusion_end_requested", "End of a player's self-exclusion requested"
    RG_EXCLUSION_END_WITHDRAWN = "rg_exclusion_end_withdrawn", "Request to end a player's self-exclusion withdrawn"


class StaffObjectKind(models.TextChoices):
    NONE = "", "nothing"
    TABLE = "table", "table"
    ROUND = "round", "round"
    PLAYER = "player", "player"
    USER = "user", "user"


class StaffActionQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("the staff-activity record is append-only: rows cannot be updated")

    def delete(self):
        raise TypeError("the staff-activity record is append-only: rows cannot be deleted")


class StaffAction(models.Model):
    """One action of a person on staff: who, when, what, on which object, from where and why.

    Written by accounts.staffaudit in the transaction of the action itself; never updated or deleted (the
    queryset and the model refuse, and on PostgreSQL a trigger refuses raw SQL too, migration 0005).
    """

    at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # The role when acting: a later change of role does not rewrite what the person was allowed to do then.
    actor_role = models.CharField(max_length=20, blank=True)
    action = models.CharField(max_length=40, choices=StaffActionKind.choices)
    object_kind = models.CharField(max_length=10, choices=StaffObjectKind.choices, blank=True)
    # A table code, a game number or a user id: what the object is called where it lives.
    object_ref = models.CharField(max_length=64, blank=True)
    # A player's user name as it was then; the table code or game number again for tables and rounds.
    object_label = models.CharField(max_length=150, blank=True)
    reason = models.TextField(blank=True)
    # Empty when the action came from no web request (a shell, a management command).
    address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=512, blank=True)
    details = models.JSONField(default=dict, blank=True)

    objects = StaffActionQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["actor", "-id"], name="staffaction_actor"),
            models.Index(fields=["action", "-id"], name="staffaction_action"),
            models.Index(fields=["object_kind", "object_ref", "-id"], name="staffaction_object"),
            models.Index(fields=["at"], name="staffaction_at"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(action__in=StaffActionKind.values),
                                   name="staffaction_action_known"),
            models.CheckConstraint(condition=models.Q(object_kind__in=StaffObjectKind.values),
                                   name="staffaction_object_kind_known"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_id} {self.action} {self.object_ref}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("the staff-activity record is append-only: rows cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("the staff-activity record is append-only: rows cannot be deleted")

from django.conf import settings
from django.db import models

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
    LOGIN = "login", "signed in"
    LOGOUT = "logout", "signed out"
    LOGIN_FAILED = "login_failed", "sign-in refused"
    SECOND_FACTOR = "second_factor", "second factor passed"
    SECOND_FACTOR_FAILED = "second_factor_failed", "second factor refused"


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

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

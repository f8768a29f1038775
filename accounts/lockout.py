"""The page a locked-out sign-in gets (django-axes calls lockout_response): it says why and when to try again."""

from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Q
from django.shortcuts import render
from django.utils import timezone

from accounts.client import client_ip


def lockout_retry_at(*, username: str | None, ip_address: str | None):
    """When the lockout of this username or address ends: the cool-off counted from the failure that locked it
    (a try during the lockout is not counted, so it does not move)."""
    attempts = AccessAttempt.objects.filter(Q(username=username) | Q(ip_address=ip_address))
    last = attempts.aggregate(last=Max("attempt_time"))["last"] or timezone.now()
    return last + get_cool_off()


def lockout_response(request, original_response=None, credentials=None):
    username = get_client_username(request, credentials)
    retry_at = lockout_retry_at(username=username, ip_address=client_ip(request))
    minutes = max(1, -(-int((retry_at - timezone.now()).total_seconds()) // 60))
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "lockout_minutes": int(get_cool_off().total_seconds() // 60),
        "retry_at": retry_at,
        "retry_minutes": minutes,
        "username": username or "",
    }
    return render(request, "accounts/locked_out.html", context, status=429)

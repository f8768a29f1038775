"""Who is asking: the address and browser a login record and the lockout count, read one way everywhere."""

from django.conf import settings

USER_AGENT_LENGTH = 300


def client_ip(request) -> str | None:
    """REMOTE_ADDR, unless TRUSTED_PROXY says a proxy of ours stands in front: then the address that proxy saw,
    the last hop it appended to X-Forwarded-For (earlier hops are whatever the client chose to send)."""
    if settings.TRUSTED_PROXY:
        forwarded = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if forwarded:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR") or None


def client_user_agent(request) -> str:
    return request.META.get("HTTP_USER_AGENT", "")[:USER_AGENT_LENGTH]

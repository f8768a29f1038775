"""Who is asking, read one way by every door: the login records, the lockout and rate limits, the staff-activity
record."""

import ipaddress

from django.conf import settings


def _valid_address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_address(meta) -> str | None:
    """REMOTE_ADDR, unless TRUSTED_PROXY_COUNT says that many proxies of ours stand in front of the server.

    Each proxy appends the address it was reached from to X-Forwarded-For, so with N trusted proxies the
    client is the N-th entry from the right; what lies further left was written by the client and proves
    nothing. A header shorter than N (a request that bypassed a proxy) or an entry that is not an address
    falls back to REMOTE_ADDR. (python-ipware counts proxies differently, without REMOTE_ADDR, and would
    need this same code around it.)"""
    remote = _valid_address(meta.get("REMOTE_ADDR") or "")
    trusted = settings.TRUSTED_PROXY_COUNT
    if trusted <= 0:
        return remote
    hops = [hop for hop in (meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if hop.strip()]
    if len(hops) < trusted:
        return remote
    return _valid_address(hops[-trusted]) or remote

"""Calendar periods in a jurisdiction's time zone: a daily limit counts from local midnight, a weekly one from
Monday, a monthly one from the 1st, and each resets at the next such boundary (what the refusal names)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo


def period_start(period: str, now: datetime, time_zone: str) -> datetime:
    local = now.astimezone(ZoneInfo(time_zone))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        start = midnight
    elif period == "week":
        start = midnight - timedelta(days=midnight.weekday())
    elif period == "month":
        start = midnight.replace(day=1)
    else:
        raise ValueError(f"no calendar period {period!r}")
    # Rebuilt from the wall clock so a daylight-saving change inside the period gives the right offset.
    return datetime(start.year, start.month, start.day, tzinfo=ZoneInfo(time_zone))


def period_end(period: str, now: datetime, time_zone: str) -> datetime:
    """When the period containing `now` ends: the moment its limit resets."""
    start = period_start(period, now, time_zone)
    if period == "day":
        nxt = start.date() + timedelta(days=1)
    elif period == "week":
        nxt = start.date() + timedelta(days=7)
    else:
        nxt = (start.date().replace(day=28) + timedelta(days=4)).replace(day=1)
    return datetime(nxt.year, nxt.month, nxt.day, tzinfo=ZoneInfo(time_zone))

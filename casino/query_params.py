"""Query-string values the pages read (keyset cursors, days); malformed ones are bad input (400), never a 500."""

from __future__ import annotations

from datetime import date, datetime


def cursor_param(request, name: str) -> int | None:
    """A keyset cursor from the query string, or None when absent; ValueError says what is wrong with it."""
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise ValueError(f"The '{name}' cursor must be a whole number.")
    return int(raw)


def date_param(raw: str | None) -> date | None:
    """A day written YYYY-MM-DD, or None when absent; ValueError says what is wrong with it."""
    if not raw:
        return None
    try:
        return datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError:
        raise ValueError(f"{raw!r} is not a date (YYYY-MM-DD).") from None

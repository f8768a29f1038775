"""Query-string values the pages read (keyset cursors, days); malformed ones are bad input (400), never a 500.
Both go through casino.untrusted, the one reader of untrusted numbers and dates (its InputError is a ValueError)."""

from __future__ import annotations

from datetime import date

from casino.untrusted import optional_date_parse, optional_whole_number_parse


def cursor_param(request, name: str) -> int | None:
    """A keyset cursor from the query string, or None when absent; ValueError says what is wrong with it."""
    return optional_whole_number_parse(request.GET.get(name) or None, field=name)


def date_param(raw: str | None, name: str = "date") -> date | None:
    """A day written YYYY-MM-DD, or None when absent; ValueError says what is wrong with it."""
    return optional_date_parse(raw or None, field=name)

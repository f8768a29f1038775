"""`make run` plays on SQLite, whose raw SQL hands datetimes back as text without an offset: the player's
responsible-gambling state must read them as UTC (demo_data failed at its first deposit before)."""

from datetime import UTC, datetime

from responsible.selectors import _when


def test_a_datetime_sqlite_returns_as_text_is_read_as_utc():
    assert _when("2026-12-01 14:05:09.123456") == datetime(2026, 12, 1, 14, 5, 9, 123456, tzinfo=UTC)
    assert _when("2026-12-01 14:05:09") <= datetime(2026, 12, 1, 15, tzinfo=UTC)  # comparable with aware times


def test_what_postgresql_returns_is_kept():
    aware = datetime(2026, 12, 1, 14, tzinfo=UTC)
    assert _when(aware) is aware and _when(None) is None

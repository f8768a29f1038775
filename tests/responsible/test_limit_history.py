"""Which limit is in force, from the history of changes alone (pure: no database)."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from responsible.limits import limit_state, tightens

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
H = timedelta(hours=1)


def change(pk, value, requested, effective=None):
    return SimpleNamespace(id=pk, value=value, requested_at=requested, effective_at=effective or requested)


def test_a_first_limit_and_a_lower_one_take_effect_at_once():
    rows = [change(1, 100, T0), change(2, 50, T0 + H)]
    assert limit_state(rows, T0).value == 100
    assert limit_state(rows, T0 + H).value == 50


def test_a_raise_waits_for_its_cooling_off_and_is_shown_pending_until_then():
    rows = [change(1, 100, T0), change(2, 500, T0 + H, T0 + 73 * H)]
    state = limit_state(rows, T0 + 2 * H)
    assert (state.value, state.pending_value, state.pending_at) == (100, 500, T0 + 73 * H)
    assert limit_state(rows, T0 + 73 * H).value == 500


def test_a_lower_limit_asked_during_a_pending_raise_cancels_the_raise():
    rows = [change(1, 100, T0), change(2, 500, T0 + H, T0 + 73 * H), change(3, 80, T0 + 2 * H)]
    later = limit_state(rows, T0 + 100 * H)
    assert (later.value, later.pending_at) == (80, None)


def test_a_second_raise_replaces_the_first_and_starts_its_own_cooling_off():
    rows = [change(1, 100, T0), change(2, 500, T0 + H, T0 + 73 * H), change(3, 300, T0 + 10 * H, T0 + 82 * H)]
    assert limit_state(rows, T0 + 75 * H).value == 100
    assert limit_state(rows, T0 + 82 * H).value == 300


def test_a_removal_waits_like_a_raise():
    rows = [change(1, 100, T0), change(2, None, T0 + H, T0 + 73 * H)]
    assert limit_state(rows, T0 + 72 * H).value == 100
    assert limit_state(rows, T0 + 73 * H).value is None


def test_tightening_is_any_limit_where_there_was_none_or_a_lower_one():
    assert tightens(None, 10) and tightens(20, 10) and tightens(10, 10)
    assert not tightens(10, 20) and not tightens(10, None)
    assert tightens(None, None)

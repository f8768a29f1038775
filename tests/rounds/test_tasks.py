"""The rounds' Celery tasks by the names the broker carries: a message queued under an old name still runs."""

import pytest

from casino.celery import app
from rounds import services, tasks
from rounds.models import RoundState
from tests.helpers import cash

pytestmark = pytest.mark.django_db


def test_the_refunds_task_is_named_for_the_refunds_and_the_old_name_still_refunds(
    play, free_bet_table, funded, operator
):
    assert tasks.round_void_refunds.name == "rounds.tasks.round_void_refunds"
    old = app.tasks["rounds.tasks.round_void"]  # messages queued before the rename carry this name
    assert old.acks_late and old.reject_on_worker_lost
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    services.round_void(round_id=r.id, reason="camera failure", actor=operator)
    assert r.refresh().state == RoundState.VOIDED and cash(player) == 1_000_00 - 1000
    assert old.run(r.id) is True  # the task's own code, in this process: nothing commits here for a worker
    assert cash(player) == 1_000_00
    assert old.run(r.id) is False and tasks.round_void_refunds.run(r.id) is False


def test_a_periodic_sweep_that_meets_a_database_away_is_skipped_with_a_warning_and_anything_else_raised(
        monkeypatch, caplog):
    # During a database restart beat's sweeps (every second or five) would each trace an error; the next one
    # does the work.
    from django.db import OperationalError

    def away(**_kwargs):
        raise OperationalError("connection refused")  # no SQLSTATE: the server never answered

    for name in ("rounds_timers_sweep", "continuations_sweep", "rounds_recovery_sweep"):
        monkeypatch.setattr(services, name, away)
    assert tasks.rounds_timers_sweep.run() is None
    assert tasks.continuations_sweep.run() is None
    assert tasks.rounds_recovery_sweep.run() is None
    assert caplog.text.count("skipped on a transient database error") == 3

    def broken(**_kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(services, "rounds_timers_sweep", broken)
    with pytest.raises(ValueError, match="a bug"):
        tasks.rounds_timers_sweep.run()

"""The soak's faults (bench/soak_faults.py): the rounds a fault hurts are completed at the servers' time, not
ahead of it, so the recovery measured is the one a studio would see."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from bench.soak_faults import wall_clock_reached
from rounds.simulator.clock import TableClock


def test_the_faults_rounds_wait_until_no_tables_clock_is_ahead_of_the_wall_clock():
    behind, ahead = TableClock(), TableClock()
    ahead.jump_to(timezone.now() + timedelta(seconds=0.4))  # a timer run out at full speed
    assert (ahead.now() - timezone.now()).total_seconds() > 0.2  # what the dealer's completion would stamp
    waited = wall_clock_reached([behind, ahead])
    # Afterwards the round's settling_at (the table's now) is not in the servers' future: the recovery sweep's
    # grace counts from when the round really began settling.
    assert ahead.now() <= timezone.now() + timedelta(milliseconds=1)
    assert 0.2 < waited < 2.0


def test_tables_on_the_wall_clock_do_not_wait():
    assert wall_clock_reached([TableClock(), TableClock()]) < 0.1
    assert wall_clock_reached([]) < 0.01

"""The time a simulated table plays at: wall time, or a simulated clock in the past at the pace of a live studio.

A demo loaded in a few seconds must still read as rounds played over past days: each bet, card and decision at
its own later moment, the settlement after the last card, a round opened at the time its game number says. The
services take `now` for most steps but read the clock themselves for others (settlement, refunds, the wallet),
so a simulated run moves the process's clock itself (time-machine): every timestamp any service writes is then on
the same simulated timeline. Monotonic time is left alone, so timeouts and progress still run in real seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from random import Random

import time_machine
from django.utils import timezone


@contextmanager
def simulated_time(start: datetime) -> Iterator[time_machine.Traveller]:
    """Stop the process's clock at `start`; it moves only when told (`shift`, `move_to`). One thread's work only:
    a worker or a second thread would write at its own time."""
    with time_machine.travel(start, tick=False) as traveller:
        yield traveller


class TableClock:
    """The table's "now" for the services.

    On wall time a timer the simulator runs out at full speed moves the clock to the timer's deadline; it never
    goes back, so the audit trail stays in order. On a simulated clock (`traveller`), `act` moves it on by the
    seconds a person takes for the next step, so every step has its own moment."""

    def __init__(self, traveller: time_machine.Traveller | None = None, rng: Random | None = None):
        self._last: datetime | None = None
        self.jumped = timedelta(0)
        self.traveller = traveller
        self.rng = rng or Random(0)

    @property
    def simulated(self) -> bool:
        return self.traveller is not None

    def now(self) -> datetime:
        real = timezone.now()
        if self._last is None or real > self._last:
            self._last = real
        return self._last

    def jump_to(self, moment: datetime) -> datetime:
        current = self.now()
        if moment > current:
            if self.traveller is not None:
                self.traveller.move_to(moment)
            else:
                self.jumped += moment - current
            self._last = moment
        return self._last

    def advance(self, seconds: float) -> datetime:
        """On a simulated clock, `seconds` pass; on wall time nothing happens (the caller sleeps, if pacing)."""
        if self.traveller is not None and seconds > 0:
            self.traveller.shift(timedelta(seconds=seconds))
        return self.now()

    def act(self, low: float = 0.6, high: float = 2.5) -> datetime:
        """The moment of a person's next step: on a simulated clock, a little after the last one."""
        return self.advance(self.rng.uniform(low, high)) if self.simulated else self.now()

    def restart_at(self, moment: datetime) -> datetime:
        """A simulated clock set to `moment`, earlier or later (the next table's session, played after the last
        one's but at its own times)."""
        assert self.traveller is not None
        self.traveller.move_to(moment)
        self._last = None
        return self.now()

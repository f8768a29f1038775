"""What every part of one simulated table shares: the round being played and its plan, the table's bookkeeping
(counts of what happened), its clock and pace, and the round's state as the system answers it.

`rounds.simulator.table.TableSim` is made of this base and one class of steps per part of a round (betting,
dealing, decisions, incidents, settling); each part calls the others through `self`.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from random import Random
from typing import Any

from rounds.engine.cards import Shoe
from rounds.engine.rules import Rules
from rounds.simulator.clock import TableClock
from rounds.simulator.habits import SimPlayer
from rounds.simulator.transport import Refused, RoundRef, ServiceTransport

BETTING, DEALING, DECISIONS, DEALER = "betting", "dealing", "decisions", "dealer"
PHASES = (BETTING, DEALING, DECISIONS, DEALER)
# A round that takes more studio steps than this is stuck: a bug in the simulator or the services.
MAX_STEPS = 2_000
# Seconds of a live table, divided by the speed when pacing (speed > 0).
PACE = {"betting": 8.0, "card": 1.2, "decision": 2.5, "pause": 5.0}


class SimulationStuck(RuntimeError):
    pass


@dataclass
class Planned:
    """What this round will go through, drawn from the table's generator when it opens."""

    malfunction: str | None = None  # the phase at which the round is voided as a malfunction
    pause: str | None = None  # the phase at which the studio pauses the table for a while


@dataclass
class RoundPlay:
    ref: RoundRef
    config: dict[str, Any]
    rules: Rules
    planned: Planned
    present: dict[int, SimPlayer] = field(default_factory=dict)  # player index -> who is still at the table
    absent: set[int] = field(default_factory=set)  # disconnected after betting: the timer decides for them
    seats: dict[int, int] = field(default_factory=dict)  # seat -> player index
    insurable: set[int] = field(default_factory=set)  # players with a cash main bet on their own spot
    dealer: list[str] = field(default_factory=list)
    steps: int = 0

    @property
    def common_draw(self) -> bool:
        return bool(self.config["common_draw"])


class TableBase:
    """One table's state and bookkeeping, shared by every step of its play."""

    def __init__(self, *, index: int, table, players: list[SimPlayer], studio, transport: ServiceTransport,
                 config, stats: Counter, lock: threading.Lock, on_round: Callable[[str], None] | None = None,
                 traveller=None):
        self.index = index
        self.table = table
        self.players = players
        self.studio = studio
        self.transport = transport
        self.config = config
        self.stats = stats
        self.lock = lock
        self.on_round = on_round
        self.rng = Random(f"{config.seed}:table:{index}")
        # Its own generator: the clock's draws never shift the game's (the same seed plays the same games).
        self.clock = TableClock(traveller, Random(f"{config.seed}:clock:{index}"))
        self.shoe: Shoe | None = None
        self.cut_round: int | None = None  # the round the cut card came out in: the next one is the shoe's last
        self.others: list = []  # the run's other tables, where a player may switch for a look (table_switches)
        self.scripted = {(event.round, event.kind): event for event in config.scripted_events
                         if event.table == index}

    def count(self, name: str, amount: int = 1) -> None:
        with self.lock:
            self.stats[name] += amount

    def refused(self, where: str, error: Refused) -> None:
        self.count(f"refused {where}: {error.code}")

    def now(self) -> datetime | None:
        """The moment of a person's step (a bet, a card, a decision): on a simulated clock a moment after the
        last step. The API transport cannot pass a time: the server's clock applies."""
        if self.transport.name != "services":
            return None
        return self.clock.act(0.2, 1.0)

    def pace(self, what: str, factor: float = 1.0) -> None:
        if self.clock.simulated:
            self.clock.advance(PACE[what] * factor * self.clock.rng.uniform(0.7, 1.3))
        elif self.config.speed > 0:
            time.sleep(PACE[what] * factor / self.config.speed)

    def state_of(self, ref: RoundRef) -> str:
        from rounds.models import Round

        return Round.objects.values_list("state", flat=True).get(pk=ref.id)

    def step(self, play: RoundPlay) -> None:
        play.steps += 1
        if play.steps > MAX_STEPS:
            raise SimulationStuck(f"round {play.ref.game_number} is still not done after {MAX_STEPS} steps")

    def round_deadline(self, play: RoundPlay) -> datetime | None:
        from rounds.models import Round

        return Round.objects.values_list("deadline", flat=True).get(pk=play.ref.id)

"""What a live table goes through besides play: a round voided as a malfunction, a table paused for a while
(each planned per round from the table's generator, or scripted by the run)."""

from __future__ import annotations

from casino.api_errors import DomainError
from rounds.simulator.table_base import (
    BETTING,
    DEALER,
    DEALING,
    DECISIONS,
    PHASES,
    Planned,
    RoundPlay,
    TableBase,
)
from rounds.simulator.transport import Refused


class IncidentSteps(TableBase):
    """Plans a round's incidents and makes them happen at their phase."""

    def plan(self, number: int) -> Planned:
        planned = Planned()
        # Drawn every round in the same order, so the plan does not shift when a rate changes elsewhere.
        if self.rng.random() < self.config.malfunction_rate:
            planned.malfunction = self.rng.choice(PHASES)
        if self.rng.random() < self.config.pause_rate:
            planned.pause = self.rng.choice((BETTING, DECISIONS))
        if (number, "malfunction") in self.scripted:
            planned.malfunction = self.scripted[(number, "malfunction")].phase or DEALER
        if (number, "pause") in self.scripted:
            planned.pause = self.scripted[(number, "pause")].phase or DECISIONS
        return planned

    def maybe_malfunction(self, play: RoundPlay, phase: str) -> bool:
        """At the planned phase the round is voided as a malfunction (the system's void; stakes refunded)."""
        if play.planned.malfunction != phase:
            return False
        from rounds import services

        play.planned.malfunction = None
        reasons = {
            BETTING: "Malfunction: the betting terminal lost its link to the studio",
            DEALING: "Malfunction: the card reader misread the deal",
            DECISIONS: "Malfunction: the studio video feed failed",
            DEALER: "Malfunction: the dealer's shoe jammed",
        }
        try:
            services.round_void(round_id=play.ref.id, reason=reasons[phase], now=self.clock.act())
        except DomainError as error:
            self.count(f"refused malfunction void: {error.code}")
            return False
        self.count(f"malfunction voids ({phase})")
        return True

    def maybe_pause(self, play: RoundPlay, phase: str) -> None:
        """At the planned phase the studio pauses the table; a player who tries to act is refused; resumed."""
        if play.planned.pause != phase:
            return
        play.planned.pause = None
        self.transport.table_pause(studio=self.studio, table=self.table,
                                   reason="Paused by the studio: the dealer's camera is being reset")
        self.count("table pauses")
        somebody = next(iter(play.present.values()), None)
        if somebody is not None:
            try:
                if phase == BETTING:
                    self.transport.bets_place(player=somebody.user, round=play.ref, currency=self.config.currency,
                                              bets={"main": max(2, self.table_min_main())}, now=self.now())
                else:
                    self.transport.decide(player=somebody.user, round=play.ref, action="stand", now=self.now())
            except Refused as error:
                self.count(f"refused while paused: {error.code}")
        self.pace("pause")
        self.transport.table_resume(studio=self.studio, table=self.table)

"""One table of the simulator: its studio (shoe, rounds, cards, dealer) and the players who sit there.

The studio acts on what the system answers, not on what it expects: every call may be refused (the timer closed
betting first, a Deal Now closed it early, the table is paused...) and the round's state is read again after each
step, so the same code drives a quiet demo and a soak with workers being killed.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from rounds.engine.rules import Rules
from rounds.simulator.betting import BettingSteps
from rounds.simulator.chat_and_switching import host_greets, table_switches
from rounds.simulator.dealing import DealingSteps
from rounds.simulator.decisions import DecisionSteps
from rounds.simulator.incidents import IncidentSteps
from rounds.simulator.settling import SettlingSteps
from rounds.simulator.table_base import RoundPlay
from rounds.simulator.transport import Refused, RoundRef


class TableSim(BettingSteps, DealingSteps, DecisionSteps, IncidentSteps, SettlingSteps):
    """Plays rounds at one table with its players, through a transport, counting what happened in `stats`.
    Each part of a round is its own module (betting, dealing, decisions, incidents, settling); this class runs
    them in order, round after round."""

    def run(self, rounds: int, stop: threading.Event | None = None) -> None:
        """Play `rounds` rounds, or fewer if `stop` is set (another table failed: the run is over). On a simulated
        clock the rounds are spread over the config's window (played_from to played_until), one every so often."""
        slots = self.round_slots(rounds)
        self.abandoned_rounds_void()
        self.shoe_new()
        self.players_sit()
        host_greets(self)
        for number in range(rounds):
            if stop is not None and stop.is_set():
                return
            if slots:
                self.clock.jump_to(slots[number])
            self.play_round(number)
            table_switches(self)

    def round_slots(self, rounds: int) -> list[datetime]:
        """When each round opens on a simulated clock: evenly over the window, each a little late by chance (a
        round still being played when its slot comes opens right after it ends). Empty on wall time."""
        if not self.clock.simulated or not rounds:
            return []
        first = self.config.played_from + timedelta(minutes=5)
        spacing = (self.config.played_until - first) / (rounds + 1)
        self.clock.restart_at(self.config.played_from + timedelta(seconds=self.clock.rng.uniform(30, 240)))
        return [first + spacing * number + spacing * self.clock.rng.uniform(0.0, 0.6) for number in range(rounds)]

    def abandoned_rounds_void(self) -> None:
        """A round left half-played by an interrupted run cannot go on: the studio voids it (stakes refunded)."""
        from rounds import services
        from rounds.models import ACTIVE_STATES, Round

        for round_id in Round.objects.filter(table=self.table, state__in=ACTIVE_STATES).values_list("pk", flat=True):
            services.round_void(round_id=round_id, actor=self.studio,
                                reason="Abandoned by an interrupted simulation run; every stake is refunded.")
            self.round_finish(RoundRef(round_id, ""))
            self.count("abandoned rounds voided")

    def play_round(self, number: int, *, until: str = "finished") -> RoundPlay:
        """Play one round from opening to settlement. until="dealer_complete" stops when the dealer's hand is
        complete and the studio's next call would be dealer_complete (the settlement benchmark takes over)."""
        from rounds.models import Round

        planned = self.plan(number)
        self.players_prepare()
        ref = self.transport.round_open(studio=self.studio, table=self.table, now=self.now())
        config = Round.objects.values_list("config", flat=True).get(pk=ref.id)
        play = RoundPlay(ref=ref, config=config, rules=Rules.from_dict(config["rules"]), planned=planned)
        self.count("rounds opened")
        state = self.betting(play)
        if state in ("betting_closed", "dealing"):
            state = self.deal(play)
        if state == "insurance":
            state = self.insurance(play)
        if state == "decisions":
            state = self.decisions(play)
        assert self.shoe is not None
        if self.shoe.cut_card_reached and self.cut_round is None and state in ("decisions", "dealer"):
            # The dealer saw the cut card come out in this round: the studio reports it, and the shoe plays one
            # more round ("the cards will be replaced in the following round").
            try:
                self.transport.cut_card(studio=self.studio, round=ref)
                self.cut_round = ref.id
                self.count("cut cards")
            except Refused as error:
                self.refused("cut card", error)
        if state == "dealer":
            state = self.dealer(play, until=until)
        if until == "dealer_complete" and state == "dealer":
            return play
        last_of_shoe = self.cut_round is not None and self.cut_round != ref.id
        self.round_finish(ref)
        self.after_round(play)
        if last_of_shoe:
            self.shoe_new()
        if self.on_round:
            self.on_round(self.state_of(ref))
        return play

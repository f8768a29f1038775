"""Insurance and the players' decisions at a simulated table: who is asked, their answers (in parallel at a common
draw), the timer running out for those who do not answer, and disconnections after betting closed."""

from __future__ import annotations

import time

from django.utils import timezone

from rounds.simulator.habits import SimPlayer, player_action
from rounds.simulator.table_base import DECISIONS, RoundPlay, TableBase
from rounds.simulator.threads import parallel
from rounds.simulator.transport import Refused


class DecisionSteps(TableBase):
    """Insurance and decisions, until the round moves on to the dealer."""

    def insurance(self, play: RoundPlay) -> str:
        from rounds import services

        def answer(player: SimPlayer) -> None:
            if player.index not in play.insurable or player.index in play.absent:
                return
            if player.rng.random() < player.habits.afk:
                return
            take = player.rng.random() < player.habits.insurance
            try:
                self.transport.insurance(player=player.user, round=play.ref, take=take, now=self.now())
                self.count("insurance taken" if take else "insurance declined")
            except Refused as error:
                if error.code != "decision_refused":  # no insurable spot (Bet Behind, Golden Chips): no question
                    self.refused("insurance", error)

        parallel(list(play.present.values()), answer, threads=self.config.player_threads)
        # Common draw: the end of insurance is the worker's round_advance; ask for it as the task would.
        services.round_advance(round_id=play.ref.id, now=self.clock.now())
        state = self.state_of(play.ref)
        if state == "insurance":
            self.timer_run_out(play)
            state = self.state_of(play.ref)
        return state

    def timer_run_out(self, play: RoundPlay) -> None:
        """Let the running timer end: wait for it when pacing, else run it out at once (the timer sweep's work,
        with the deadline as its time)."""
        from rounds import services

        deadline = self.round_deadline(play)
        if deadline is not None:
            if self.config.speed > 0:
                time.sleep(max(0.0, (deadline - timezone.now()).total_seconds()) + 0.05)
            else:
                self.clock.jump_to(deadline)
        services.round_advance(round_id=play.ref.id, now=self.clock.now())
        self.count("timers run out")

    def decide(self, play: RoundPlay, player: SimPlayer, seat: int | None = None, offers=None) -> bool:
        """The player answers the decision they are asked for; False leaves it to the timer."""
        if player.index in play.absent:
            return False
        acted = False
        if offers is None:
            offers = self.transport.offers(player=player.user, round=play.ref)
        for offer in offers:
            if seat is not None and offer.seat != seat:
                continue
            action = player_action(play.rules, player, offer)
            if action is None:
                self.count("decisions left to the timer")
                return False
            try:
                result = self.transport.decide(player=player.user, round=play.ref, action=action,
                                               seat=offer.seat if not play.common_draw else None, now=self.now())
            except Refused as error:
                self.refused("decision", error)
                return False
            self.count(f"decisions: {player.habits.style}")
            if result.get("funded") is False:
                self.count("paid doubles/splits short of funds")
            acted = True
        return acted

    def step_decide(self, play: RoundPlay, deciding: list[SimPlayer]) -> list[bool]:
        """Everyone asked at this step of a common draw answers (in parallel); through the services their offers
        come from one read of the round, as every game client would see the same cards."""
        offers = None
        if self.transport.name == "services":
            present = [p for p in deciding if p.index not in play.absent]
            offers = self.transport.offers_many(players=[p.user for p in present], round=play.ref)

        def answer(player: SimPlayer) -> bool:
            return self.decide(play, player, offers=None if offers is None else offers.get(player.user.pk, []))

        return parallel(deciding, answer, threads=self.config.player_threads)

    def decisions(self, play: RoundPlay) -> str:
        from rounds import services
        from rounds.models import Round, Spot

        self.late_disconnects(play)
        self.maybe_pause(play, DECISIONS)
        if self.maybe_malfunction(play, DECISIONS):
            return "voided"
        while True:
            self.step(play)
            state, turn_seat = Round.objects.values_list("state", "turn_seat").get(pk=play.ref.id)
            if state != "decisions":
                return state
            spots = list(Spot.objects.filter(round_id=play.ref.id, behind=False, voided_at__isnull=True)
                         .values_list("player_id", "seat", "status"))
            by_user = {player.user.pk: player for player in play.present.values()}
            if play.common_draw:
                deciding = sorted({by_user[user].index: by_user[user] for user, _seat, status in spots
                                   if status == "deciding" and user in by_user}.values(), key=lambda p: p.index)
                if deciding:
                    acted = self.step_decide(play, deciding)
                    self.pace("decision")
                    if not all(acted):
                        self.timer_run_out(play)
                    continue
                if any(status == "needs_card" for _u, _s, status in spots):
                    self.card(play)
                    continue
            else:
                turn = next(((user, status) for user, seat, status in spots if seat == turn_seat), None)
                if turn is not None and turn[1] == "deciding":
                    self.pace("decision")
                    if turn[0] not in by_user or not self.decide(play, by_user[turn[0]], seat=turn_seat):
                        self.timer_run_out(play)
                    continue
                if turn is not None and turn[1] == "needs_card":
                    self.card(play)
                    continue
            # Nobody decides and nobody waits for a card: the round moves on to the dealer.
            services.round_advance(round_id=play.ref.id, now=self.clock.now())

    def late_disconnects(self, play: RoundPlay) -> None:
        """A player who disconnects after betting closed: their bets stand and the timer decides for them."""
        for player in play.present.values():
            if player.index in play.absent:
                continue  # already gone while betting was open, and their bets stand
            if player.rng.random() < self.config.late_disconnect_rate:
                try:
                    self.transport.leave(player=player.user, round=play.ref, now=self.now())
                except Refused as error:
                    self.refused("disconnect", error)
                    continue
                play.absent.add(player.index)
                self.count("disconnects after betting (played by timeout)")

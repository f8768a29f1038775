"""The end of a simulated round: its settlement (or refunds) awaited from the worker or run here, a second
delivery of the task now and then, and what players do after it (tips, cash-outs)."""

from __future__ import annotations

import time
from collections import Counter

from rounds.simulator.table_base import RoundPlay, SimulationStuck, TableBase
from rounds.simulator.transport import Refused, RoundRef


class SettlingSteps(TableBase):
    """Settlement and what comes after it."""

    def round_finish(self, ref: RoundRef) -> None:
        """Settlement (or refunds) through round_settle / round_void_refunds: by the worker, or called here."""
        from rounds import services, tasks
        from rounds.models import Round

        state = Round.objects.values_list("state", flat=True).get(pk=ref.id)
        # A fast worker may have settled the round already by now.
        if state not in ("settling", "settled", "voided"):
            raise SimulationStuck(f"round {ref.id} ended the studio's work {state}")
        task = tasks.round_void_refunds if state == "voided" else tasks.round_settle
        if self.rng.random() < self.config.duplicate_task_rate:
            # A broker that delivers the same settlement twice: the second delivery must change nothing.
            task.delay(ref.id)
            self.count("settlement tasks delivered twice")
        if self.config.settle == "inline":
            self.clock.advance(self.clock.rng.uniform(0.5, 2.0))  # the settlement comes after the last card
            if state == "voided":
                services.round_void_refunds(round_id=ref.id)
            elif state == "settling":
                services.round_settle(round_id=ref.id)
        deadline = time.monotonic() + self.config.settle_timeout
        while True:
            state, refunded = Round.objects.values_list("state", "refunds_done_at").get(pk=ref.id)
            if state == "settled" or (state == "voided" and refunded is not None):
                break
            if time.monotonic() > deadline:
                raise SimulationStuck(f"round {ref.id} is still {state} after {self.config.settle_timeout} s: "
                                      "is a Celery worker running on this database and queue?")
            time.sleep(0.02)
        self.count("rounds settled" if state == "settled" else "rounds voided")

    def after_round(self, play: RoundPlay) -> None:
        """Winners sometimes tip the dealer; a player well up sometimes cashes part of it out."""
        from rounds.models import Round
        from wallet.selectors import player_balance

        settlement = Round.objects.values_list("settlement", flat=True).get(pk=play.ref.id) or {}
        won: Counter = Counter()
        for data in settlement.get("spots", {}).values():
            won[data["player"]] += data["net"]
        currency = self.config.currency
        for player in play.present.values():
            if won[player.user.pk] > 0 and player.rng.random() < player.habits.tips:
                amount = player.rng.choice((100, 200, 500))
                self.clock.act()
                try:
                    self.transport.tip(player=player.user, currency=currency, amount=amount,
                                       table_code=self.table.code)
                    self.count("tips")
                except Refused as error:
                    self.refused("tip", error)
            if player.rng.random() < player.habits.cash_out:
                balance = player_balance(player=player.user, currency=currency)
                if balance > 3 * player.bankroll // 2:
                    amount = min((balance - player.bankroll) // 100 * 100, self.config.withdraw_max)
                    self.clock.act()
                    try:
                        self.transport.withdraw(player=player.user, currency=currency, amount=amount)
                        self.count("withdrawals")
                        self.count("withdrawn", amount)
                    except Refused as error:
                        self.refused("withdraw", error)
        for player in play.present.values():
            player.rounds_played += 1

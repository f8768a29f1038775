"""The soak test's races: requests that reach rounds.services at the same moment from threads, each on its own
database connection, at a table of their own (so the simulated tables' play is left alone).

- Bets racing a disconnection: a player's bets from three threads while a fourth disconnects the player. Whatever
  the order, no stake may stay attached to a spot that was voided with its hold still pending.
- Main bets racing the table maximum on one spot: three threads each add half the maximum to one player's spot;
  at most two may be accepted, never a total above the maximum.

Every answer must be a bet placed or one of the services' own refusals; anything else (a deadlock, an integrity
error) is counted as unhandled. Each race round is then voided by the studio and its stakes refunded by the
worker, so the soak's money checks cover it."""

from __future__ import annotations

import threading
from collections import Counter

RACE_TABLE = "SKRC01"


def _race(calls) -> list:
    from django.db import connections

    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - each answer is classified below
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call), name=f"race-{i}") for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


class Races:
    def __init__(self, *, studio, transport, currency: str, stats: Counter, timers: dict):
        from accounts.services import user_create
        from tables.models import Table
        from tables.services import table_create

        self.studio = studio
        self.currency = currency
        self.counts: Counter = Counter()
        self.unhandled: Counter = Counter()
        self.unhandled_first: list[str] = []  # the first few unhandled answers, so a failed run says what they were
        self.stranded: list[str] = []
        self.over_max: list[str] = []
        self.table = Table.objects.filter(code=RACE_TABLE).first() or table_create(
            actor=studio, code=RACE_TABLE, name=f"Soak races {RACE_TABLE}", profile="free_bet",
            currencies=[currency], state="open", reason="the soak's own table for its races", **timers)
        self.players = []
        for n in range(2):
            user = user_create(username=f"sk_racer_{n + 1}", password=None, role="player",
                               email=f"sk_racer_{n + 1}@sim.example")
            transport.deposit(player=user, currency=currency, amount=1_000_000)
            stats["deposited"] += 1_000_000
            self.players.append(user)

    def answer(self, race: str, result) -> None:
        from casino.api_errors import DomainError

        if isinstance(result, dict):
            self.counts[f"{race}: placed"] += 1
        elif isinstance(result, DomainError):
            self.counts[f"{race}: refused"] += 1
        else:
            self.unhandled[f"{type(result).__module__}.{type(result).__name__}"] += 1
            if len(self.unhandled_first) < 3:
                self.unhandled_first.append(f"{race}: {result!r}"[:300])

    def round_play(self) -> None:
        from rounds import services
        from rounds.models import Round, RoundBet
        from rounds.simulator.transport import new_key

        round = services.round_open(table=self.table, actor=self.studio)
        limit = round.config["limits"]["main"][self.currency]
        racer, leaver = self.players

        def bet(player, amount):
            return lambda: services.bets_place(round_id=round.pk, player=player, currency=self.currency,
                                               bets={"main": amount}, idempotency_key=new_key())

        half = max(limit["min"], limit["max"] // 2 // 100 * 100)
        for result in _race([bet(racer, half)] * 3):
            self.answer("main bets racing the table maximum", result)
        step = max(limit["min"], 500)
        results = _race([bet(leaver, step)] * 3 + [lambda: services.player_disconnect(round_id=round.pk,
                                                                                       player=leaver)])
        for result in results[:3]:
            self.answer("bets racing a disconnection", result)
        self.answer("the disconnection", results[3])
        self.counts["race rounds"] += 1

        stranded = RoundBet.objects.filter(spot__round=round, spot__voided_at__isnull=False,
                                           wallet_bet__resolution__isnull=True).count()
        if stranded:
            self.stranded.append(f"{round.game_number}: {stranded}")
        mains = Counter()
        for spot_id, amount in RoundBet.objects.filter(spot__round=round, kind="main").values_list(
                "spot_id", "amount"):
            mains[spot_id] += amount
        over = [total for total in mains.values() if total > limit["max"]]
        if over:
            self.over_max.append(f"{round.game_number}: {max(over):,} > {limit['max']:,}")
        if Round.objects.filter(pk=round.pk, state="betting_open").exists():
            services.round_void(round_id=round.pk, actor=self.studio,
                                reason="Soak race round: ended by the studio, every stake refunded.")

    def results(self) -> list[tuple[str, bool, str]]:
        placed = ", ".join(f"{name} {n}" for name, n in sorted(self.counts.items()))
        return [
            ("races: no stake on a voided spot with its hold pending", not self.stranded,
             f"{self.counts['race rounds']} race rounds; stranded: {self.stranded[:5] or 'none'}"),
            ("races: no spot's main bets above the table maximum", not self.over_max,
             f"above the maximum: {self.over_max[:5] or 'none'}"),
            ("races: every answer a bet placed or a refusal", not self.unhandled,
             f"{placed}; unhandled: {dict(self.unhandled) or 'none'}"
             + (f" ({'; '.join(self.unhandled_first)})" if self.unhandled_first else "")),
        ]

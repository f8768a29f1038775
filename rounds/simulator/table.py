"""One table of the simulator: its studio (shoe, rounds, cards, dealer) and the players who sit there.

The studio acts on what the system answers, not on what it expects: every call may be refused (the timer closed
betting first, a Deal Now closed it early, the table is paused...) and the round's state is read again after each
step, so the same code drives a quiet demo and a soak with workers being killed.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random
from typing import Any

from django.db import connections
from django.utils import timezone

from casino.api_errors import DomainError
from rounds.engine.cards import Shoe
from rounds.engine.rules import Rules
from rounds.simulator.clock import TableClock
from rounds.simulator.habits import SimPlayer, player_action, stake_from_chips
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


def parallel(items: Iterable, work: Callable[[Any], Any], *, threads: int) -> list:
    """Run work(item) for every item on `threads` threads, each with its own database connection (closed at
    the end); results in the order of the items. One thread: in the calling thread."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    results: list[Any] = [None] * len(items)
    errors: list[BaseException] = []

    def run(offset: int) -> None:
        try:
            for index in range(offset, len(items), threads):
                results[index] = work(items[index])
        except BaseException as error:  # re-raised in the caller
            errors.append(error)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=run, args=(offset,)) for offset in range(min(threads, len(items)))]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]
    return results


class TableSim:
    """Plays rounds at one table with its players, through a transport, counting what happened in `stats`."""

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
        self.scripted = {(event.round, event.kind): event for event in config.scripted_events
                         if event.table == index}

    # --- bookkeeping ------------------------------------------------------------------------------------------
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

    # --- shoes ------------------------------------------------------------------------------------------------
    def shoe_new(self) -> None:
        """A freshly shuffled shoe with its cut card; the table's new-shoe burn shows a card and burns its value."""
        self.table.refresh_from_db()
        burn = bool(self.table.new_shoe_burn)
        self.shoe = Shoe.shuffled(self.table.decks, rng=self.rng, burn=burn)
        self.cut_round = None
        self.transport.shoe_start(studio=self.studio, table=self.table,
                                  burn_card=str(self.shoe.cards[0]) if burn else "")
        self.count("shoes")
        if burn:
            self.count("cards burned", self.shoe.position - 1)

    def draw(self) -> str:
        assert self.shoe is not None
        return str(self.shoe.draw())

    # --- a round ----------------------------------------------------------------------------------------------
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

    def run(self, rounds: int, stop: threading.Event | None = None) -> None:
        """Play `rounds` rounds, or fewer if `stop` is set (another table failed: the run is over). On a simulated
        clock the rounds are spread over the config's window (played_from to played_until), one every so often."""
        slots = self.round_slots(rounds)
        self.abandoned_rounds_void()
        self.shoe_new()
        self.players_sit()
        for number in range(rounds):
            if stop is not None and stop.is_set():
                return
            if slots:
                self.clock.jump_to(slots[number])
            self.play_round(number)

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

    def state_of(self, ref: RoundRef) -> str:
        from rounds.models import Round

        return Round.objects.values_list("state", flat=True).get(pk=ref.id)

    def step(self, play: RoundPlay) -> None:
        play.steps += 1
        if play.steps > MAX_STEPS:
            raise SimulationStuck(f"round {play.ref.game_number} is still not done after {MAX_STEPS} steps")

    # --- events -----------------------------------------------------------------------------------------------
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

    # --- betting ----------------------------------------------------------------------------------------------
    def players_sit(self) -> None:
        """The table's players join it (in their game client's session) before its first round."""
        for player in self.players:
            try:
                self.transport.table_join(player=player.user, table=self.table)
            except Refused as error:
                self.refused("join", error)

    def players_prepare(self) -> None:
        """Before a round: a player short of the table minimum reloads (if that is their habit)."""
        from wallet.models import Account, AccountKind

        minimum = self.table_min_main()
        balances = dict(Account.objects.filter(
            player_id__in=[p.user.pk for p in self.players], kind=AccountKind.PLAYER_CASH,
            currency=self.config.currency).values_list("player_id", "balance"))
        for player in self.players:
            balance = balances.get(player.user.pk, 0)
            if balance < minimum and player.habits.reload and player.deposits < self.config.max_reloads:
                self.clock.act()
                try:
                    self.transport.deposit(player=player.user, currency=self.config.currency, amount=player.bankroll)
                    player.deposits += 1
                    self.count("deposits (reloads)")
                    self.count("deposited", player.bankroll)
                except Refused as error:
                    self.refused("deposit", error)

    def table_min_main(self) -> int:
        from tables.models import BetLimit

        limit = BetLimit.objects.filter(table=self.table, bet_type="main", currency=self.config.currency).first()
        return limit.min if limit else 0

    def stake(self, player: SimPlayer, limits: dict, kind: str, currency: str, *, even: bool) -> int | None:
        limit = limits.get(kind, {}).get(currency)
        if limit is None:
            return None
        wish = int(player.bankroll * player.habits.bet_fraction * player.rng.choice((0.5, 1, 1, 1, 2)))
        if kind not in ("main", "bet_behind"):
            wish = limit["min"] * player.rng.choice((1, 1, 2, 5))
        return stake_from_chips(wish, chips=limit.get("chips") or [], low=limit["min"], high=limit["max"],
                                even=even)

    def bets_for(self, play: RoundPlay, player: SimPlayer, *, behind: bool, golden_balance: int) -> dict[str, int]:
        config, currency = play.config, self.config.currency
        limits = config["limits"]
        main = self.stake(player, limits, "bet_behind" if behind else "main", currency, even=True)
        if main is None:
            return {}
        bets: dict[str, int] = {}
        golden_ok = (not behind and config["features"]["golden_chips"] and play.rules.golden_chips
                     and golden_balance >= main)
        if golden_ok and player.rng.random() < 0.5:
            bets["golden_chip"] = main
        else:
            bets["main"] = main
        for side in config["side_bets"]:
            if player.rng.random() < player.habits.side_bets:
                amount = self.stake(player, limits, side, currency, even=False)
                if amount:
                    bets[side] = amount
        return bets

    def place(self, play: RoundPlay, player: SimPlayer, *, seat: int | None = None, behind: bool = False) -> bool:
        """One placement by one player; True if it stands. Refusals (funds, limits, a taken seat) are counted."""
        from wallet.models import AccountKind
        from wallet.selectors import player_balance

        golden = player_balance(player=player.user, currency=self.config.currency,
                                kind=AccountKind.PLAYER_GOLDEN_CHIPS) if player.golden_chips else 0
        bets = self.bets_for(play, player, behind=behind, golden_balance=golden)
        if not bets:
            return False
        try:
            if not behind and seat is None and player.rounds_played and player.rng.random() < player.habits.repeat:
                try:
                    self.transport.bets_repeat(player=player.user, round=play.ref, now=self.now())
                    self.count("bets repeated")
                    play.insurable.add(player.index)
                    return True
                except Refused as error:
                    self.refused("repeat", error)
            self.transport.bets_place(player=player.user, round=play.ref, currency=self.config.currency,
                                      bets=bets, seat=seat, behind=behind, now=self.now())
        except Refused as error:
            self.refused("bet", error)
            return False
        self.count("placements")
        if not behind and "golden_chip" not in bets:
            play.insurable.add(player.index)
        self.count("bet behind" if behind else "seat bets" if seat else "common-draw bets")
        if "golden_chip" in bets:
            self.count("golden chip bets")
        self.count("side bets", sum(1 for name in bets if name not in ("main", "golden_chip")))
        return True

    def betting(self, play: RoundPlay) -> str:
        # Each player draws from their own generator, in a fixed order: who plays this round.
        players = [p for p in self.players if p.rng.random() < p.habits.plays]
        if play.common_draw:
            placed = parallel(players, lambda p: self.place(play, p), threads=self.config.player_threads)
            for player, ok in zip(players, placed, strict=True):
                if ok:
                    play.present[player.index] = player
        else:
            self.seats_take(play, players)
        self.count("player rounds", len(play.present))
        self.double_presses(play)
        self.maybe_pause(play, BETTING)
        self.disconnects_during_betting(play)
        if self.maybe_malfunction(play, BETTING):
            return "voided"
        self.deal_now(play)
        if self.clock.simulated:
            # The dealer closes betting as the timer runs out (the bets above were placed before it).
            deadline = self.round_deadline(play)
            if deadline is not None:
                self.clock.jump_to(deadline - timedelta(seconds=0.3))
        else:
            self.pace("betting")
        try:
            self.transport.betting_close(studio=self.studio, round=play.ref, now=self.now())
        except Refused as error:
            self.refused("close betting", error)
        return self.state_of(play.ref)

    def seats_take(self, play: RoundPlay, players: list[SimPlayer]) -> None:
        """Seated tables: players take a free seat (a second one with Multi Seat), then the Bet Behinds come."""
        config = play.config
        seats = int(config["seats"] or 7)
        behind_ok = config["features"]["bet_behind"] and play.rules.bet_behind
        multi_ok = config["features"]["multi_seat"] and play.rules.multi_seat
        behinds = []
        for player in players:
            wants_behind = behind_ok and player.rng.random() < player.habits.bet_behind
            if wants_behind and play.seats:
                behinds.append(player)
                continue
            preferred = player.rng.randint(1, seats)
            free = [s for s in [*range(preferred, seats + 1), *range(1, preferred)] if s not in play.seats]
            if not free:
                if behind_ok:
                    behinds.append(player)
                continue
            if self.place(play, player, seat=free[0]):
                play.seats[free[0]] = player.index
                play.present[player.index] = player
                if multi_ok and len(free) > 1 and player.rng.random() < player.habits.multi_seat:
                    if self.place(play, player, seat=free[1]):
                        play.seats[free[1]] = player.index
                        self.count("multi seat")
        for player in behinds:
            others = sorted(seat for seat, owner in play.seats.items() if owner != player.index)
            if not others:
                continue
            if self.place(play, player, seat=player.rng.choice(others), behind=True):
                play.present[player.index] = player

    def double_presses(self, play: RoundPlay) -> None:
        for player in list(play.present.values()):
            if player.rng.random() < player.habits.double_bets:
                try:
                    self.transport.bets_double(player=player.user, round=play.ref, now=self.now())
                    self.count("bets doubled")
                except Refused as error:
                    self.refused("double bets", error)

    def disconnects_during_betting(self, play: RoundPlay) -> None:
        """A player who disconnects while betting is open: void and refunded at once, or (a `bets_stand` table)
        their bets stand and the timer decides for them, as after betting closes."""
        for player in list(play.present.values()):
            if player.rng.random() < self.config.disconnect_rate:
                try:
                    result = self.transport.leave(player=player.user, round=play.ref, now=self.now())
                except Refused as error:
                    self.refused("disconnect", error)
                    continue
                if result.get("refunded"):
                    self.count("disconnects during betting (refunded)")
                    del play.present[player.index]
                    play.seats = {seat: owner for seat, owner in play.seats.items() if owner != player.index}
                elif result.get("spots"):
                    play.absent.add(player.index)
                    self.count("disconnects during betting (bets stand, played by timeout)")

    def deal_now(self, play: RoundPlay) -> None:
        """Deal Now: seated players confirm; when all have, betting closes before the timer."""
        if not (play.config["features"]["deal_now"] and play.rules.deal_now) or not play.seats:
            return
        for index in sorted(set(play.seats.values())):
            player = play.present[index]
            if player.rng.random() < player.habits.deal_now:
                try:
                    result = self.transport.confirm(player=player.user, round=play.ref, now=self.now())
                except Refused as error:
                    self.refused("confirm", error)
                    continue
                self.count("deal now confirmations")
                if result.get("betting_closed"):
                    self.count("betting closed by deal now")

    # --- cards ------------------------------------------------------------------------------------------------
    def card(self, play: RoundPlay) -> str:
        assert self.shoe is not None
        try:
            result = self.transport.card(studio=self.studio, round=play.ref, card=self.draw(), now=self.now())
        except Refused:
            self.shoe.position -= 1  # the card was not dealt: it stays on top of the shoe
            raise
        self.count("cards")
        if result["target"] == "dealer":
            play.dealer.append(result["card"])
        self.pace("card")
        return result["state"]

    def deal(self, play: RoundPlay) -> str:
        if self.maybe_malfunction(play, DEALING):
            return "voided"
        state = self.state_of(play.ref)
        while state in ("betting_closed", "dealing"):
            self.step(play)
            state = self.card(play)
        return state

    # --- insurance --------------------------------------------------------------------------------------------
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

    # --- decisions --------------------------------------------------------------------------------------------
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

    def round_deadline(self, play: RoundPlay) -> datetime | None:
        from rounds.models import Round

        return Round.objects.values_list("deadline", flat=True).get(pk=play.ref.id)

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

    # --- the dealer and settlement ----------------------------------------------------------------------------
    def dealer(self, play: RoundPlay, *, until: str) -> str:
        if play.planned.malfunction == DEALER:
            return self.dealer_overdraw(play)
        while True:
            self.step(play)
            if until == "dealer_complete" and self.dealer_done(play):
                return "dealer"
            try:
                return self.transport.dealer_complete(studio=self.studio, round=play.ref, now=self.now())["state"]
            except Refused as error:
                if error.code != "dealer_incomplete":
                    raise
            state = self.card(play)
            if state != "dealer":
                return state

    def dealer_overdraw(self, play: RoundPlay) -> str:
        """The planned malfunction at the dealer: the dealer draws as the rules say, then one card too many. The
        card is recorded as a fact and the system voids the round; if no card may be recorded at all (no live
        hand), the system voids it directly."""
        while not self.dealer_done(play):
            self.step(play)
            state = self.card(play)
            if state != "dealer":
                return state
        try:
            state = self.card(play)
        except Refused as error:
            self.refused("extra dealer card", error)
            state = "dealer"
        if state == "voided":
            play.planned.malfunction = None
            self.count("malfunction voids (dealer drew on 17+)")
            return state
        self.maybe_malfunction(play, DEALER)
        return self.state_of(play.ref)

    def dealer_done(self, play: RoundPlay) -> bool:
        """Whether the dealer's hand is complete (what dealer_complete would check), without completing it."""
        from rounds import selectors
        from rounds.engine.dealer import dealer_needs_card
        from rounds.engine.hands import hand_total
        from rounds.engine_adapter import dealer_outlook
        from rounds.models import Round

        record = selectors.round_record_load(Round.objects.get(pk=play.ref.id))
        dealer = record.dealer_cards
        any_live, needs_second = dealer_outlook(record)
        return not (dealer_needs_card(record.rules, dealer, any_live_hand=any_live, needs_second=needs_second)
                    or (len(dealer) > 2 and hand_total(dealer) < 17))

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

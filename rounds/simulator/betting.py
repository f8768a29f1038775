"""Betting at a simulated table: reloads, stakes from the table's chips, seats, Bet Behind, Golden Chips, repeat
and double presses, disconnections while betting is open, Deal Now, and the close of betting."""

from __future__ import annotations

from datetime import timedelta

from rounds.simulator.chat_and_switching import chat_lines
from rounds.simulator.habits import SimPlayer, stake_from_chips
from rounds.simulator.moves import confirmations, seat_moves, unconfirmed_returned, undo_presses
from rounds.simulator.table_base import BETTING, RoundPlay, TableBase
from rounds.simulator.threads import parallel
from rounds.simulator.transport import Refused


class BettingSteps(TableBase):
    """The players' bets of a round, from before it opens to the close of betting."""

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
        undo_presses(self, play)
        seat_moves(self, play)
        confirmations(self, play)
        chat_lines(self, play)
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
        unconfirmed_returned(self, play)
        return self.state_of(play.ref)

    def players_sit(self) -> None:
        """The table's players join it (in their game client's session) before its first round."""
        for player in self.players:
            try:
                self.transport.table_join(player=player.user, table=self.table)
            except Refused as error:
                self.refused("join", error)
        # Players who confirm by hand switched automatic confirmation off in their settings.
        for player in self.players:
            if player.habits.confirm_by_hand:
                try:
                    self.transport.confirm_by_hand(player=player.user)
                except Refused as error:
                    self.refused("settings", error)

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

"""The simulated players' betting moves besides placing: UNDO (a player who changes their mind takes the bet back
and places again; some hold UNDO and place everything again) and Multi Seat seat moves. Each keeps the table's
record of who sits where (`RoundPlay.seats`, `present`, `insurable`) true. Confirm: at Live Blackjack tables a
player who switched automatic confirmation off presses Confirm, or forgets, and their bets go back at the close.

The confirmation draws come from the player's `moves_rng`, never `rng`: a seed's other choices stay as they were."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rounds.simulator.transport import Refused

if TYPE_CHECKING:
    from rounds.simulator.betting import BettingSteps as TableSim
    from rounds.simulator.habits import SimPlayer
    from rounds.simulator.table_base import RoundPlay

UNDO_ALL_SHARE = 0.3  # of the undo presses, those that hold the button


def undo_presses(table: TableSim, play: RoundPlay) -> None:
    for player in list(play.present.values()):
        if player.rng.random() >= player.habits.undo:
            continue
        seats = sorted(seat for seat, owner in play.seats.items() if owner == player.index)
        if not play.common_draw and not seats:
            continue  # a Bet Behind player: their seat player's moves are enough
        # At a seated table every position goes back, so each is placed again on its own seat.
        everything = not play.common_draw or player.rng.random() < UNDO_ALL_SHARE
        try:
            result = table.transport.bets_undo(player=player.user, round=play.ref, everything=everything,
                                               now=table.now())
        except Refused as error:
            table.refused("undo", error)
            continue
        table.count("undo all" if everything else "undo")
        if not result["spots_voided"]:
            continue  # earlier bets still stand on the spot
        play.insurable.discard(player.index)
        if play.common_draw:
            if not table.place(play, player):
                del play.present[player.index]
            continue
        for seat in seats:
            if not table.place(play, player, seat=seat):
                del play.seats[seat]
        if player.index not in play.seats.values():
            del play.present[player.index]


def seat_moves(table: TableSim, play: RoundPlay) -> None:
    """At a Multi Seat table a seated player may move to a free seat with their bets (before confirming)."""
    if play.common_draw or not (play.config["features"]["multi_seat"] and play.rules.multi_seat):
        return
    all_seats = range(1, int(play.config["seats"] or 7) + 1)
    for player in list(play.present.values()):
        mine = sorted(seat for seat, owner in play.seats.items() if owner == player.index)
        if not mine or player.rng.random() >= player.habits.seat_change:
            continue
        free = [seat for seat in all_seats if seat not in play.seats]
        if not free:
            continue
        source, target = mine[0], player.rng.choice(free)
        try:
            table.transport.seat_move(player=player.user, round=play.ref, from_seat=source, to_seat=target,
                                      now=table.now())
        except Refused as error:
            table.refused("seat move", error)
            continue
        play.seats[target] = play.seats.pop(source)
        table.count("seat moves")


def confirmations(table: TableSim, play: RoundPlay) -> None:
    """Live Blackjack tables: the players who confirm by hand press Confirm, after their last bet and before Deal
    Now (which needs it); some forget, and their bets go back when betting closes (`unconfirmed_returned`)."""
    if play.config["profile"] != "classic":
        return
    # A table without auto-confirmation leaves every player to confirm by hand.
    everyone = not play.config["features"].get("auto_confirm")
    for player in list(play.present.values()):
        if not (everyone or player.habits.confirm_by_hand):
            continue
        if player.moves_rng.random() < player.habits.forget_confirm:
            table.count("confirmations forgotten")
            continue
        try:
            table.transport.bets_confirm(player=player.user, round=play.ref, now=table.now())
        except Refused as error:
            table.refused("confirm bets", error)
            continue
        table.count("bets confirmed by hand")


def unconfirmed_returned(table: TableSim, play: RoundPlay) -> None:
    """After the close: the players whose unconfirmed bets went back are out of the round (as the server says)."""
    from rounds.models import RoundEvent

    payloads = RoundEvent.objects.filter(round_id=play.ref.id, kind="unconfirmed_returned").values_list(
        "payload", flat=True)
    players = {pk for payload in payloads for pk in payload.get("players", [])}
    if not players:
        return
    table.count("players whose unconfirmed bets went back", len(players))
    gone: list[SimPlayer] = [p for p in play.present.values() if p.user.pk in players]
    for player in gone:
        _out_of_round(play, player)


def _out_of_round(play: RoundPlay, player: SimPlayer) -> None:
    from rounds.models import Spot

    live = set(Spot.objects.filter(round_id=play.ref.id, player=player.user, voided_at__isnull=True)
               .values_list("seat", flat=True))
    play.seats = {seat: owner for seat, owner in play.seats.items() if owner != player.index or seat in live}
    if not live:
        del play.present[player.index]
        play.insurable.discard(player.index)
        play.absent.discard(player.index)

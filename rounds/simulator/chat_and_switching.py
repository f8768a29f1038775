"""The simulated players' life at a table beside the game: a line in the table's chat now and then (and the host
greeting the table), and, in multi-table runs, a look at another table between rounds (switch there, and back).

Every draw here comes from the players' `moves_rng`, never from the generators the games draw from, so chatting
and switching never change a seed's games. A player comes back to their own table before its next round, so no
table's game depends on another table's thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rounds.simulator.habits import CHAT_LINES
from rounds.simulator.transport import Refused

if TYPE_CHECKING:
    from rounds.simulator.table_base import RoundPlay, TableBase


def host_greets(table: TableBase) -> None:
    """The host welcomes the players as the table starts its session."""
    name = table.table.name or table.table.code
    try:
        table.transport.chat_host_post(studio=table.studio, table=table.table,
                                       body=f"Welcome to {name}! Good luck, everyone.", now=table.now())
    except Refused as error:
        table.refused("host chat", error)
        return
    table.count("host chat messages")


def chat_lines(table: TableBase, play: RoundPlay) -> None:
    """While betting is open, some of the players at the table write a short line."""
    for player in list(play.present.values()):
        if player.moves_rng.random() >= player.habits.chat:
            continue
        line = player.moves_rng.choice(CHAT_LINES)
        try:
            table.transport.chat_post(player=player.user, table=table.table, body=line, now=table.now())
        except Refused as error:
            table.refused("chat", error)
            continue
        table.count("chat messages")


def table_switches(table: TableBase) -> None:
    """Between rounds, a player now and then switches to another table of the run for a look, and back."""
    if not table.others:
        return
    for player in table.players:
        if player.moves_rng.random() >= player.habits.switch_tables:
            continue
        elsewhere = player.moves_rng.choice(table.others)
        try:
            table.transport.table_switch(player=player.user, leave=table.table, join=elsewhere, now=table.now())
        except Refused as error:
            table.refused("switch tables", error)
            continue
        table.count("table switches")
        try:
            table.transport.table_switch(player=player.user, leave=elsewhere, join=table.table, now=table.now())
        except Refused as error:
            table.refused("switch back", error)
            # Back by joining, so the player can play the next round here.
            try:
                table.transport.table_join(player=player.user, table=table.table)
            except Refused as again:
                table.refused("join", again)
            continue
        table.count("table switches back")

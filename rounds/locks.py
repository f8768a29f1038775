"""Row locks, and the bet path's spot read written as SQL once.

Locks are taken in one order everywhere: the round row, then spot rows by primary key, then (inside the
wallet) player accounts by primary key. Bets, and decisions and insurance answers at common-draw tables,
take the round FOR SHARE so thousands of players act in parallel; studio actions, timers and seated-table
decisions take it FOR UPDATE, so a state change waits for them and they for it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from django.db import connection
from django.db.models import QuerySet

from rounds import snapshots
from rounds.errors import RoundNotFound
from rounds.models import ACTIVE_STATES, Round, Spot
from tables.models import Table

# Every column but the frozen config (rounds.snapshots has it parsed), and the table's state in the same read.
_ROUND_COLUMNS = ", ".join(
    f"r.{field.column}" for field in Round._meta.concrete_fields if field.name != "config"
)

_ROUND_LOCK_SQL = (
    f"SELECT {_ROUND_COLUMNS}, t.state AS table_state FROM rounds_round r "
    "JOIN tables_table t ON t.id = r.table_id WHERE r.id = %s"
)


def round_lock(round_id: int, *, shared: bool = False) -> Round:
    """The round row locked (FOR SHARE or FOR UPDATE), with its config and its table's state as read then."""
    if not isinstance(round_id, int) or isinstance(round_id, bool):
        raise RoundNotFound(f"No round has the id {round_id!r}.")
    lock = ""
    if connection.features.has_select_for_update:
        lock = " FOR SHARE OF r" if shared else " FOR UPDATE OF r"
    rows = list(Round.objects.raw(_ROUND_LOCK_SQL + lock, [round_id]))
    if not rows:
        raise RoundNotFound(f"No round has the id {round_id}.")
    round = rows[0]
    snapshots.snapshot(round)
    return round


# A bet locks the round FOR SHARE and then, in the same statement, the player's live spots FOR UPDATE in id
# order: the round in a sub-select whose row lock is taken before the outer row's spot sub-select runs. The
# spots' stakes are read by the next statement, whose snapshot is taken once the locks are held (a stake read in
# the locking statement could miss a bet committed while it waited, and let two bets pass one limit).
_BET_ROUND_COLUMNS = ", ".join(
    field.column for field in Round._meta.concrete_fields if field.name != "config"
)
_BET_LOCK_SQL = (
    "SELECT r.*, t.state AS table_state, ARRAY(SELECT s.id FROM rounds_spot s WHERE s.round_id = r.id "
    "AND s.player_id = %s AND s.voided_at IS NULL{spots} ORDER BY s.id FOR UPDATE) AS locked_spot_ids "
    f"FROM (SELECT {_BET_ROUND_COLUMNS} FROM rounds_round WHERE id = %s FOR SHARE) r "
    "JOIN tables_table t ON t.id = r.table_id"
)
# The common-draw case names the partial unique index's condition, so a generic plan uses it.
_BET_LOCK_COMMON_DRAW_SQL = _BET_LOCK_SQL.format(spots=" AND s.seat IS NULL")
_BET_LOCK_SEATED_SQL = _BET_LOCK_SQL.format(spots="")


def round_lock_for_bet(round_id: int, *, player, all_spots: bool) -> Round:
    """The round FOR SHARE, then the player's live spots FOR UPDATE (their ids in `round.locked_spot_ids`):
    every one (`all_spots`, seated tables) or the common-draw spot. Off PostgreSQL the spots are only read."""
    if not isinstance(round_id, int) or isinstance(round_id, bool):
        raise RoundNotFound(f"No round has the id {round_id!r}.")
    if connection.vendor != "postgresql":
        round = round_lock(round_id, shared=True)
        round.locked_spot_ids = set(spots_lock(round=round, player=player).values_list("pk", flat=True))
        return round
    sql = _BET_LOCK_SEATED_SQL if all_spots else _BET_LOCK_COMMON_DRAW_SQL
    rows = list(Round.objects.raw(sql, [player.pk, round_id]))
    if not rows:
        raise RoundNotFound(f"No round has the id {round_id}.")
    round = rows[0]
    round.locked_spot_ids = set(round.locked_spot_ids)
    snapshots.snapshot(round)
    return round


def spot_ids_lock(spot_ids: list[int]) -> set[int]:
    """Lock these spots FOR UPDATE in id order; the ids of those still live once locked."""
    return set(Spot.objects.select_for_update().filter(pk__in=spot_ids, voided_at__isnull=True).order_by("id")
               .values_list("pk", flat=True))


def round_lock_full(round_id: int) -> Round | None:
    """The whole round row FOR UPDATE (the workers' settle and refunds), or None."""
    return Round.objects.select_for_update().filter(pk=round_id).first()


def round_lock_for_refunds(round_id: int) -> Round | None:
    """The round FOR UPDATE without its settlement: a big round's is megabytes of JSON, and each refund batch
    would read it again."""
    return Round.objects.select_for_update().defer("settlement").filter(pk=round_id).first()


def table_lock(table: Table) -> Table:
    """The table row FOR UPDATE: serialises opening rounds and changing shoes per table."""
    return Table.objects.select_for_update().get(pk=table.pk)


def table_round_lock(table: Table) -> Round | None:
    """The round being played at the table, FOR UPDATE, or None."""
    return Round.objects.select_for_update().filter(table=table, state__in=ACTIVE_STATES).first()


def spots_lock(*, round: Round, with_player: bool = False, **filters) -> QuerySet[Spot]:
    """The round's live spots matching `filters`, to be locked FOR UPDATE in id order when read."""
    spots = Spot.objects.select_for_update()
    if with_player:
        spots = spots.select_related("player")
    return spots.filter(round=round, voided_at__isnull=True, **filters).order_by("id")


class SpotRow(NamedTuple):
    pk: int
    player_id: int
    seat: int | None
    behind: bool
    currency: str
    confirmed: bool = False  # its player confirmed bets on it (rounds.services.returns)
    dealt: bool = False  # its seat player pressed Deal Now


_SPOTS_SQL = (
    "SELECT s.id, s.player_id, s.seat, s.behind, s.currency, s.confirmed_through IS NOT NULL, "
    "s.deal_now_at IS NOT NULL, b.kind, CAST(SUM(b.amount) AS BIGINT) "
    "FROM rounds_spot s LEFT JOIN rounds_roundbet b ON b.spot_id = s.id "
    "AND NOT EXISTS (SELECT 1 FROM rounds_betreturn x WHERE x.bet_id = b.id) WHERE s.round_id = %s "
    "AND s.voided_at IS NULL AND {spots} GROUP BY s.id, b.kind "
    "ORDER BY s.id"
)

# One statement per case, each matching a partial index even as a generic prepared plan: an OR of both cases
# made PostgreSQL read every spot of a 10,000-player round for each bet.
_SPOTS_COMMON_DRAW_SQL = _SPOTS_SQL.format(spots="s.player_id = %s AND s.seat IS NULL")
_SPOTS_SEATED_SQL = _SPOTS_SQL.format(spots="(s.player_id = %s OR (s.seat = %s AND NOT s.behind))")


def spots_for_bet(round: Round, *, player, seat: int | None) -> tuple[list[SpotRow], dict[int, dict[str, int]]]:
    """The player's live spots and the seat's own spot, with the stakes already on each (returned bets not
    counted), in one read."""
    with connection.cursor() as cursor:
        if seat is None:
            cursor.execute(_SPOTS_COMMON_DRAW_SQL, [round.pk, player.pk])
        else:
            cursor.execute(_SPOTS_SEATED_SQL, [round.pk, player.pk, seat])
        rows = cursor.fetchall()
    spots: dict[int, SpotRow] = {}
    stakes: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for spot_id, player_id, spot_seat, spot_behind, spot_currency, confirmed, dealt, kind, amount in rows:
        spots.setdefault(spot_id, SpotRow(spot_id, player_id, spot_seat, bool(spot_behind), spot_currency,
                                          bool(confirmed), bool(dealt)))
        if kind is not None:
            stakes[spot_id][kind] += amount
    return list(spots.values()), stakes

"""What a table is doing now, as players read it: the seats taken in the round in play, and whether play is
paused for a problem (with the message meant for players).

The studio's pause reason (`Table.state_reason`, the round's `paused` event) is written for staff and may name
people or equipment; players are told a plain message of their own instead, the same at every door (the
game-client API's round and lobby views and the player's table pages), from the moment of the pause until the
table resumes or the round is cancelled.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.utils.translation import gettext_lazy

from rounds.models import ACTIVE_STATES, Round, RoundEvent, Spot
from tables.models import Table, TableState

# Lazy: read in the player's language on their pages (English in the API, where nothing switches language).
PAUSED_MESSAGE = gettext_lazy("The game is paused while the studio sorts out a problem. Your bets stay as they are: "
                              "play carries on here when the table resumes, or the round is cancelled and every "
                              "stake is returned to your balance.")
PAUSED_BETWEEN_ROUNDS_MESSAGE = gettext_lazy("The table is paused while the studio sorts out a problem; the next "
                                             "round starts when it resumes.")


def pause_notice(*, table: Table, round: Round | None = None) -> dict[str, Any] | None:
    """{"since", "message"} while the table is paused, else None. With the round being played there, `since`
    is its pause's time; the round's own end (voided, settled) ends the notice for it."""
    if table.state != TableState.PAUSED:
        return None
    if round is not None and round.state not in ACTIVE_STATES:
        return None
    since: datetime | None = None
    if round is not None:
        since = (RoundEvent.objects.filter(round=round, kind="paused").order_by("-id")
                 .values_list("at", flat=True).first())
    if since is None:
        since = table.updated_at
    return {"since": since, "message": str(PAUSED_MESSAGE if round is not None else PAUSED_BETWEEN_ROUNDS_MESSAGE)}


def seats_taken_at_tables(*, tables: Iterable[Table]) -> dict[int, set[int]]:
    """The seats with a player on them in each table's round in play (one query): {table id: {seat}}."""
    taken: dict[int, set[int]] = {}
    rows = (Spot.objects.filter(round__table__in=list(tables), round__state__in=ACTIVE_STATES, seat__isnull=False,
                                behind=False, voided_at__isnull=True)
            .values_list("round__table_id", "seat").distinct())
    for table_id, seat in rows:
        taken.setdefault(table_id, set()).add(seat)
    return taken

"""Opening, pausing, resuming and closing a table: the one owner of a table's state and of what it means for
the round being played there.

Every door calls this module: the rounds API (studio), the table page and the Django admin. The round in play
must change in the same transaction as the table (closing voids it, pausing writes its `paused` event,
resuming restarts its timer), so the owner lives with rounds: rounds may use tables, tables may not use rounds.
The table page and the admin are doors, like the API views: they call these services, while tables' models
and services never import rounds (`tables.services.table_state_set`, called here with `durable=False`, writes
the table's side: the compare-and-set version bump, the TableChange and the `table_closed` signal).

While the table is paused, players and studio can do nothing but void; timers are frozen and restart in full on
resume. Closing a table voids the round still being played there (not one already settling: its hand is
complete); the worker then refunds its stakes.

Rows are locked table first, then round: opening a round and changing a shoe lock the table row too, so a
round cannot open at a table being closed, and nothing locks a round before its table.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.staffaudit import Origin
from rounds.audit import event_add
from rounds.locks import table_lock, table_round_lock
from rounds.models import ActorKind, RoundState, VoidKind
from rounds.services._common import _reason_check, _round_set, _seconds
from rounds.services.voids import _void
from tables import services as table_services
from tables.errors import TableConfigError
from tables.models import Table, TableState


def _reason_clean(reason) -> str:
    # Whether one is required (a person pausing or closing) is the table's rule: tables.services.table_state_set.
    return _reason_check(reason, required=False)


def _state_move(*, table: Table, actor, state: str, reason: str, expected_version: int | None,
                origin: Origin | None = None) -> Table:
    """Move the table to `state` and apply what that means to its round in play, in one durable transaction.

    Nothing happens to the round when the state does not change (resuming an open table restarts no timer)."""
    if state not in TableState.values:
        raise TableConfigError(f"State must be one of {', '.join(TableState.values)}, not {state!r}", field="state")
    reason = _reason_clean(reason)
    with transaction.atomic(durable=True):
        before = table_lock(table).state
        # The table's side writes the staff-activity record of the action, with the reason and the origin.
        changed = table_services.table_state_set(actor=actor, table=table, state=state, reason=reason,
                                                 origin=origin, expected_version=expected_version, durable=False)
        now = timezone.now()
        round = table_round_lock(table) if changed.state != before else None
        if round is None:
            return changed
        actor_kind = ActorKind.STAFF if actor else ActorKind.SYSTEM
        if state == TableState.CLOSED:
            _void(round, kind=VoidKind.TABLE_CLOSED, reason=f"Table closed: {reason}" if reason else "Table closed",
                  actor=actor, now=now)
        elif state == TableState.PAUSED:
            event_add(round, "paused", actor_kind=actor_kind, actor=actor, at=now, payload={"reason": reason})
        elif before == TableState.PAUSED:
            if round.deadline is not None:
                timer = "betting_seconds" if round.state == RoundState.BETTING_OPEN else "decision_seconds"
                _round_set(round, deadline=now + timedelta(seconds=_seconds(round, timer)))
            event_add(round, "resumed", actor_kind=actor_kind, actor=actor, at=now,
                      payload={"deadline": round.deadline.isoformat() if round.deadline else None})
    return changed


def table_state_change(*, table: Table, actor, state: str, reason: str = "",
                       expected_version: int | None = None, origin: Origin | None = None) -> Table:
    """The table page's and the admin's door: move the table to the state the operator chose."""
    return _state_move(table=table, actor=actor, state=state, reason=reason, expected_version=expected_version,
                       origin=origin)


def table_open(*, table: Table, actor, expected_version: int | None = None, origin: Origin | None = None) -> Table:
    """Open the table for rounds; a paused table resumes (its round's running timer starts again in full)."""
    return _state_move(table=table, actor=actor, state=TableState.OPEN, reason="", expected_version=expected_version,
                       origin=origin)


def table_pause(*, table: Table, actor, reason: str = "", expected_version: int | None = None,
                origin: Origin | None = None) -> Table:
    """Pause the table on an error: the round waits (timers frozen) until resumed or voided."""
    return _state_move(table=table, actor=actor, state=TableState.PAUSED, reason=reason,
                       expected_version=expected_version, origin=origin)


def table_resume(*, table: Table, actor, expected_version: int | None = None, origin: Origin | None = None) -> Table:
    """Resume a paused table; the running timer of its round starts again in full."""
    return table_open(table=table, actor=actor, expected_version=expected_version, origin=origin)


def table_close(*, table: Table, actor, reason: str = "", expected_version: int | None = None,
                origin: Origin | None = None) -> Table:
    """Close the table; a round still being played there is voided (its stakes refunded by the worker)."""
    return _state_move(table=table, actor=actor, state=TableState.CLOSED, reason=reason,
                       expected_version=expected_version, origin=origin)

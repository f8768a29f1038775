"""Pausing, resuming and closing a table, with what that means for the round being played there.

While the table is paused, players and studio can do nothing but void; timers are frozen and restart in full on
resume. Closing a table voids the round still being played there (not one already settling: its hand is
complete).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from rounds.audit import event_add
from rounds.locks import table_round_lock
from rounds.models import ActorKind, RoundState, VoidKind
from rounds.services._common import _reason_check, _round_set, _seconds
from rounds.services.voids import _void
from tables import services as table_services
from tables.models import Table, TableState


def table_pause(*, table: Table, actor, reason: str) -> Table:
    """Pause the table on an error: the round waits (timers frozen) until resumed or voided."""
    reason = _reason_check(reason)
    table_services.table_state_set(actor=actor, table=table, state=TableState.PAUSED)
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = table_round_lock(table)
        if round is not None:
            event_add(round, "paused", actor_kind=ActorKind.STAFF, actor=actor, at=now, payload={"reason": reason})
    return Table.objects.get(pk=table.pk)


def table_resume(*, table: Table, actor) -> Table:
    """Resume a paused table; the running timer of its round starts again in full."""
    table_services.table_state_set(actor=actor, table=table, state=TableState.OPEN)
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = table_round_lock(table)
        if round is not None:
            if round.deadline is not None:
                timer = "betting_seconds" if round.state == RoundState.BETTING_OPEN else "decision_seconds"
                _round_set(round, deadline=now + timedelta(seconds=_seconds(round, timer)))
            event_add(round, "resumed", actor_kind=ActorKind.STAFF, actor=actor, at=now,
                      payload={"deadline": round.deadline.isoformat() if round.deadline else None})
    return Table.objects.get(pk=table.pk)


def table_close(*, table: Table, actor, reason: str) -> Table:
    """Close the table; a round still being played there is voided (its stakes refunded by the worker)."""
    reason = _reason_check(reason)
    table_services.table_state_set(actor=actor, table=table, state=TableState.CLOSED)
    with transaction.atomic(durable=True):
        round = table_round_lock(table)
        if round is not None:
            _void(round, kind=VoidKind.TABLE_CLOSED, reason=f"Table closed: {reason}", actor=actor,
                  now=timezone.now())
    return Table.objects.get(pk=table.pk)

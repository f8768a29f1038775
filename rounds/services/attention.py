"""Rounds the worker gave up on: marked for staff with the reason, left alone by the sweeps, retried by staff.

A settle or refund that fails on an error that does not pass by itself (a bet resolved outside the round), or
on a transient one that outlasted every retry, would otherwise be queued again by each recovery sweep for ever
with nobody told. Marking it stops that and puts it on the dashboard and the round page in plain words; once
staff fixed the cause they retry it, with a reason, and the worker runs it again.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from accounts.models import StaffActionKind
from accounts.permissions import require_permission
from accounts.staffaudit import Origin, for_round, staff_action_record
from rounds.audit import event_add
from rounds.errors import IllegalTransition
from rounds.locks import round_lock
from rounds.models import ActorKind, Round, RoundState
from rounds.services._common import _label, _now, _queue, _reason_check, _round_set

ATTENTION_REASON_MAX_LENGTH = 2000


def round_attention_flag(*, round_id: int, reason: str, now: datetime | None = None) -> bool:
    """Mark a settling round, or a voided one not yet refunded, as needing staff (once); False if it is not."""
    now = _now(now)
    reason = (reason or "unknown error").strip()[:ATTENTION_REASON_MAX_LENGTH]
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        waiting = round.state == RoundState.SETTLING or (
            round.state == RoundState.VOIDED and round.refunds_done_at is None)
        if not waiting or round.attention_at is not None:
            return False
        _round_set(round, attention_at=now, attention_reason=reason)
        event_add(round, "attention_needed", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": reason})
    return True


def round_attention_retry(*, round_id: int, actor, reason: str, now: datetime | None = None,
                          origin: Origin | None = None) -> Round:
    """Staff fixed what stopped the round: clear the mark and queue its settle (or refunds) again."""
    require_permission(actor, "void_rounds")
    reason = _reason_check(reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        if round.attention_at is None:
            raise IllegalTransition(f"Round {round.game_number} is {_label(round.state)} and needs no retry.")
        event_add(round, "attention_retried", actor_kind=ActorKind.STAFF, actor=actor, at=now,
                  payload={"reason": reason, "was": round.attention_reason})
        staff_action_record(actor=actor, action=StaffActionKind.ROUND_RETRIED, target=for_round(round),
                            origin=origin, reason=reason, at=now, details={"was": round.attention_reason})
        _round_set(round, attention_at=None, attention_reason="")
        if round.state == RoundState.SETTLING:
            _queue("round_settle", round.pk)
        elif round.state == RoundState.VOIDED and round.refunds_done_at is None:
            _queue("round_void_refunds", round.pk)
    return round

"""Timers and lazy transitions: what is due when a deadline passes (the betting close, the end of
insurance, timeouts, the dealer's turn), and the sweep that applies them.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

from rounds import selectors
from rounds.audit import event_add
from rounds.engine.play import TIMEOUT
from rounds.errors import RoundNotFound
from rounds.locks import round_lock, spots_lock
from rounds.models import ActorKind, Round, RoundState, SpotStatus
from rounds.services._common import _now
from rounds.services.dealing import _betting_close
from rounds.services.insurance import _insurance_maybe_done
from rounds.services.play import _decide, _progress
from tables.models import Table, TableState

logger = logging.getLogger(__name__)


def round_advance(*, round_id: int, now: datetime | None = None) -> str:
    """Apply what is due: the betting close, the end of insurance, timeouts, the dealer's turn. Idempotent."""
    now = _now(now)
    with transaction.atomic(durable=True):
        try:
            round = round_lock(round_id)
        except RoundNotFound:
            return "missing"
        table_state = Table.objects.filter(pk=round.table_id).values_list("state", flat=True).first()
        if table_state != TableState.OPEN:
            return "table_not_open"
        due = round.deadline is not None and round.deadline <= now
        if round.state == RoundState.BETTING_OPEN and due:
            _betting_close(round, now=now, actor_kind=ActorKind.SYSTEM, reason="betting time over")
            return "betting_closed"
        if round.state == RoundState.INSURANCE:
            _insurance_maybe_done(round, now=now, force=due)
            return round.state
        if round.state == RoundState.DECISIONS:
            if due:
                _timeouts(round, now=now)
            _progress(round, now=now, new_step=False)
            return round.state
    return round.state


def _timeouts(round: Round, *, now: datetime) -> None:
    deciding = spots_lock(round=round, with_player=True, behind=False, status=SpotStatus.DECIDING)
    if not round.common_draw:
        deciding = deciding.filter(seat=round.turn_seat)
    spots = list(deciding)
    if not spots:
        return
    record = selectors.round_record_load(round, spot_ids=None if not round.common_draw else [s.pk for s in spots])
    for spot in spots:
        _decide(round, record, spot, action=TIMEOUT, actor_kind=ActorKind.SYSTEM, actor=None, now=now)
    event_add(round, "timeout", actor_kind=ActorKind.SYSTEM, at=now, payload={"spots": [s.pk for s in spots]})


def rounds_timers_sweep(*, now: datetime | None = None) -> list[int]:
    """Every round whose timer ran out at an open table: apply it (each round in its own transaction)."""
    now = _now(now)
    due = list(
        Round.objects.filter(
            state__in=(RoundState.BETTING_OPEN, RoundState.INSURANCE, RoundState.DECISIONS),
            deadline__lte=now, table__state=TableState.OPEN,
        ).values_list("pk", flat=True)
    )
    done = []
    for round_id in due:
        try:
            round_advance(round_id=round_id, now=now)
            done.append(round_id)
        except Exception:
            logger.exception("round %s: the timer could not be applied", round_id)
    return done

"""The recovery sweep: work a dead worker may have left behind."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction

from rounds.locks import round_lock
from rounds.models import ACTIVE_STATES, Round, RoundState, VoidKind
from rounds.services._common import _now, _queue
from rounds.services.voids import _void
from tables.models import TableState

# A settle or void task not done this long after it was queued is queued again by the recovery sweep. Short, so
# that a round whose message the broker lost settles within seconds of the broker coming back; a second task for
# a round already settling costs one lock wait and finds it settled (every round task is idempotent).
RECOVERY_GRACE_SECONDS = 5


def rounds_recovery_sweep(*, now: datetime | None = None, grace_seconds: int = RECOVERY_GRACE_SECONDS,
                          lost_messages: bool = False) -> dict[str, list[int]]:
    """Re-queue what a dead worker may have left: rounds stuck settling, voided rounds not refunded; and void
    rounds still being played at a table that was closed some other way.

    lost_messages: the broker has just come back and may have lost every message it held (a worker queues this
    sweep when it reconnects, casino.worker_consumer), so every waiting round is queued again however recent; a
    round whose task did survive is settled by whichever copy runs first, the other finds nothing to do."""
    now = _now(now)
    before = now - timedelta(seconds=grace_seconds)
    # A round marked for staff waits for them (rounds.services.attention): queueing it again would fail again.
    settling_rounds = Round.objects.filter(state=RoundState.SETTLING, attention_at__isnull=True)
    unrefunded = Round.objects.filter(state=RoundState.VOIDED, refunds_done_at__isnull=True, attention_at__isnull=True)
    if not lost_messages:
        settling_rounds = settling_rounds.filter(settling_at__lte=before)
        unrefunded = unrefunded.filter(voided_at__lte=before)
    settling = list(settling_rounds.values_list("pk", flat=True))
    refunds = list(unrefunded.values_list("pk", flat=True))
    for round_id in settling:
        _queue("round_settle", round_id)
    for round_id in refunds:
        _queue("round_void_refunds", round_id)
    closed = []
    for round_id in Round.objects.filter(state__in=ACTIVE_STATES, table__state=TableState.CLOSED).values_list(
        "pk", flat=True
    ):
        with transaction.atomic(durable=True):
            round = round_lock(round_id)
            if round.state in ACTIVE_STATES:
                _void(round, kind=VoidKind.TABLE_CLOSED, reason="Table closed", actor=None, now=now)
                closed.append(round_id)
    return {"settling": settling, "refunds": refunds, "closed": closed}

"""Helpers every round service shares: the clock, actor and reason checks, the table-playing check,
the compare-and-set state transition and queueing Celery work after commit.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.permissions import require_permission
from rounds.audit import event_add
from rounds.errors import IllegalTransition, InvalidRoundRequest, TableNotPlaying
from rounds.models import TRANSITIONS, Round, RoundState
from tables.models import Table, TableState

logger = logging.getLogger(__name__)


REASON_MAX_LENGTH = 2000

# Kombu's publish retries when the broker connection fails: about 5 s in all before giving up.
QUEUE_RETRY_POLICY = {"max_retries": 6, "interval_start": 0.2, "interval_step": 0.4, "interval_max": 1.5}


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _label(state: str) -> str:
    return RoundState(state).label.lower()


def _queue(task_name: str, round_id: int) -> None:
    from rounds import tasks

    task = getattr(tasks, task_name)

    def send() -> None:
        try:
            # A broker that is briefly away is waited for; past that, the recovery sweep queues it again.
            task.apply_async((round_id,), retry=True, retry_policy=QUEUE_RETRY_POLICY)
        except Exception:
            # The round's state is committed; the recovery sweep queues settles and refunds again.
            logger.exception("round %s: could not queue %s", round_id, task_name)

    transaction.on_commit(send)


def _reason_check(reason) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidRoundRequest("A reason is required.")
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidRoundRequest(f"A reason has at most {REASON_MAX_LENGTH} characters.")
    return reason.strip()


def _studio_check(actor) -> None:
    # None is the system (timers, sweeps); a person must be staff who runs tables.
    if actor is not None:
        require_permission(actor, "configure_tables")


def _table_playing(round: Round) -> None:
    state = getattr(round, "table_state", None)
    if state is None:
        state = Table.objects.filter(pk=round.table_id).values_list("state", flat=True).first()
    if state != TableState.OPEN:
        raise TableNotPlaying(
            f"Table {round.config['code']} is {state}: round {round.game_number} waits until it is resumed."
        )


def _transition(round: Round, to: str, *, now: datetime, actor_kind: str, actor=None, reason: str = "",
                **fields) -> None:
    """Compare-and-set the round's state; refuse a transition the state machine does not allow."""
    current = round.state
    if to not in TRANSITIONS[current]:
        raise IllegalTransition(f"Round {round.game_number} is {_label(current)}: it cannot become {_label(to)}.")
    updated = Round.objects.filter(pk=round.pk, state=current).update(state=to, **fields)
    if updated != 1:
        raise IllegalTransition(f"Round {round.game_number} changed meanwhile; reload it and try again.")
    round.state = to
    for name, value in fields.items():
        setattr(round, name, value)
    payload = {"from": current, "to": to} | ({"reason": reason} if reason else {})
    event_add(round, "state", actor_kind=actor_kind, actor=actor, payload=payload, at=now)


def _round_set(round: Round, **fields) -> None:
    Round.objects.filter(pk=round.pk).update(**fields)
    for name, value in fields.items():
        setattr(round, name, value)


def _seconds(round: Round, timer: str) -> int:
    return int(round.config["timers"][timer])

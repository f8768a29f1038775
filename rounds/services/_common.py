"""Helpers every round service shares: the clock, actor and reason checks, the table-playing check,
the compare-and-set state transition and queueing Celery work after commit.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.permissions import require_permission
from casino.checks import reason_check
from casino.queue import task_queue
from rounds.audit import event_add
from rounds.errors import IllegalTransition, InvalidRoundRequest, TableNotPlaying
from rounds.models import TRANSITIONS, Round, RoundState
from tables.models import Table, TableState

REASON_MAX_LENGTH = 2000

# Kombu's publish retries when the broker connection fails: about 5 s in all before giving up.
QUEUE_RETRY_POLICY = {"max_retries": 6, "interval_start": 0.2, "interval_step": 0.4, "interval_max": 1.5}


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _label(state: str) -> str:
    return RoundState(state).label.lower()


def _queue(task_name: str, round_id: int) -> None:
    """rounds.tasks.<task_name>(round_id) after commit; a broker briefly away is waited for, and a send that fails
    is queued again by the recovery sweep."""
    task_queue(name=f"rounds.tasks.{task_name}", args=(round_id,), retry_policy=QUEUE_RETRY_POLICY)


def _reason_check(reason, *, required: bool = True) -> str:
    return reason_check(reason, max_length=REASON_MAX_LENGTH, error=InvalidRoundRequest, required=required)


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

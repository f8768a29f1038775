"""Thin Celery tasks: round ids only, every one idempotent, acknowledged late so a killed worker's task is
delivered again (the services check the round's state, so a second delivery does nothing).

A settle or refund that meets a transient database error (a deadlock, a lock wait that ran out, a dropped
connection, a database restarting) is retried with exponential backoff and jitter: the first retry a quarter to
half a second later, then doubling to a cap of 2 s, 30 in all, about 45 s (under a minute at worst); each
countdown well below the broker's visibility timeout. The low cap is what brings a round back within about 2 s of
the database returning, however long it was away (with a cap of 8 s, the last wait could end 8 s after it was
back). A round that still fails, or fails for a reason that will not pass by itself, is marked for staff instead
of being retried for ever.
"""

import logging

from celery import shared_task
from django.db import close_old_connections

from casino.retry import backoff_delay, is_transient
from casino.worker_consumer import broker_reconnected
from rounds import services

logger = logging.getLogger(__name__)

RETRY_BASE_SECONDS = 0.5
RETRY_CAP_SECONDS = 2.0
MAX_RETRIES = 30


def _retry_or_flag(task, error: Exception, round_id: int, what: str) -> None:
    """Retry a transient failure within the bound; otherwise mark the round for staff (the error is logged)."""
    retries = task.request.retries
    if is_transient(error) and retries < MAX_RETRIES:
        countdown = backoff_delay(retries, base=RETRY_BASE_SECONDS, cap=RETRY_CAP_SECONDS)
        logger.warning("round %s: %s failed on a transient error, retry %d in %.1f s: %s", round_id, what,
                       retries + 1, countdown, error)
        raise task.retry(exc=error, countdown=countdown, max_retries=MAX_RETRIES)
    logger.exception("round %s: %s gave up; marked for staff", round_id, what)
    close_old_connections()  # a connection the error broke is opened again for the mark
    why = (f"still failing after {retries} retries: " if is_transient(error) else "") + f"{type(error).__name__}: {error}"
    services.round_attention_flag(round_id=round_id, reason=f"The {what} failed ({why}).")


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def round_settle(self, round_id: int) -> bool:
    try:
        return services.round_settle(round_id=round_id)
    except Exception as error:  # noqa: BLE001 - every failure is either retried or put before staff
        _retry_or_flag(self, error, round_id, "settlement")
        return False


def _refunds(task, round_id: int) -> bool:
    try:
        return services.round_void_refunds(round_id=round_id)
    except Exception as error:  # noqa: BLE001 - every failure is either retried or put before staff
        _retry_or_flag(task, error, round_id, "refund of the voided round")
        return False


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def round_void_refunds(self, round_id: int) -> bool:
    """Give back the money of a voided round in batches, resuming after the last (rounds.services.voids)."""
    return _refunds(self, round_id)


# The name this task had until the refunds got their own name: messages queued under it before a deploy still
# run. Nothing queues it any more; remove it once no queue can hold such a message.
@shared_task(bind=True, name="rounds.tasks.round_void", acks_late=True, reject_on_worker_lost=True)
def round_void_refunds_under_old_name(self, round_id: int) -> bool:
    return _refunds(self, round_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def round_advance(self, round_id: int) -> str:
    try:
        return services.round_advance(round_id=round_id)
    except Exception as error:
        # The timers sweep applies what is due anyway; a transient error is only retried sooner.
        if is_transient(error) and self.request.retries < MAX_RETRIES:
            raise self.retry(exc=error, max_retries=MAX_RETRIES, countdown=backoff_delay(
                self.request.retries, base=RETRY_BASE_SECONDS, cap=RETRY_CAP_SECONDS)) from error
        raise


def _skipped(sweep: str, error: Exception) -> None:
    """A periodic sweep that met a database that is away (restarting, a lost connection) is not an error to
    trace every second of the outage: the next one, seconds later, does its work. Anything else is raised."""
    if not is_transient(error):
        raise error
    logger.warning("%s skipped on a transient database error; the next one runs in seconds: %s", sweep, error)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rounds_timers_sweep() -> int | None:
    try:
        return len(services.rounds_timers_sweep())
    except Exception as error:  # noqa: BLE001 - _skipped raises all but a transient database error
        _skipped("the timers sweep", error)
        return None


@shared_task(acks_late=True, reject_on_worker_lost=True)
def continuations_sweep() -> int | None:
    try:
        return len(services.continuations_sweep())
    except Exception as error:  # noqa: BLE001 - _skipped raises all but a transient database error
        _skipped("the continuations sweep", error)
        return None


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True)
def rounds_recovery_sweep(self, lost_messages: bool = False) -> dict | None:
    try:
        return services.rounds_recovery_sweep(lost_messages=lost_messages)
    except Exception as error:  # noqa: BLE001 - _skipped raises all but a transient database error
        # The sweep after a broker loss is the one that cannot wait for the next beat (it takes the recent
        # rounds too): it retries, with the round tasks' backoff, while the database is away as well.
        if lost_messages and is_transient(error) and self.request.retries < MAX_RETRIES:
            raise self.retry(exc=error, max_retries=MAX_RETRIES, countdown=backoff_delay(
                self.request.retries, base=RETRY_BASE_SECONDS, cap=RETRY_CAP_SECONDS)) from error
        _skipped("the recovery sweep", error)
        return None


# A sweep queued on reconnecting that no worker started by then is dropped: the next reconnect or beat sweeps.
LOST_MESSAGES_SWEEP_EXPIRES_SECONDS = 30.0


@broker_reconnected.connect
def _sweep_after_broker_loss(sender, **_kwargs) -> None:
    """A worker is back on a broker that may have lost every queued settlement and refund: queue them again now,
    not when the beat's sweep finds them old enough (casino.worker_consumer). Runs in the worker's main process,
    which must not block: this only publishes, on the connection that has just come back."""
    rounds_recovery_sweep.apply_async(kwargs={"lost_messages": True}, expires=LOST_MESSAGES_SWEEP_EXPIRES_SECONDS)

"""Thin Celery tasks: round ids only, every one idempotent, acknowledged late so a killed worker's task is
delivered again (the services check the round's state, so a second delivery does nothing)."""

from celery import shared_task

from rounds import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def round_settle(round_id: int) -> bool:
    return services.round_settle(round_id=round_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def round_void_refunds(round_id: int) -> bool:
    """Refund every stake of a voided round (once: the wallet refuses a second resolution of any bet)."""
    return services.round_void_refunds(round_id=round_id)


# The name this task had until the refunds got their own name: messages queued under it before a deploy still
# run. Nothing queues it any more; remove it once no queue can hold such a message.
@shared_task(name="rounds.tasks.round_void", acks_late=True, reject_on_worker_lost=True)
def round_void_refunds_under_old_name(round_id: int) -> bool:
    return services.round_void_refunds(round_id=round_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def round_advance(round_id: int) -> str:
    return services.round_advance(round_id=round_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rounds_timers_sweep() -> int:
    return len(services.rounds_timers_sweep())


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rounds_recovery_sweep() -> dict:
    return services.rounds_recovery_sweep()

"""Thin Celery tasks of the back office."""

from celery import shared_task

from backoffice import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rtp_rollups_refresh() -> list[str]:
    """Recompute yesterday's and recently changed days' RTP totals (idempotent: a day is rewritten whole)."""
    return [day.isoformat() for day in services.rtp_rollups_refresh()]

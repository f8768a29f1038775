"""Thin Celery tasks of the back office."""

from celery import shared_task

from backoffice import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rtp_rollups_refresh() -> list[str]:
    """Recompute yesterday's and recently changed days' RTP totals (idempotent: a day is rewritten whole)."""
    return [day.isoformat() for day in services.rtp_rollups_refresh()]


@shared_task(acks_late=True, reject_on_worker_lost=True)
def rtp_alerts_check() -> int:
    """Raise and clear the dashboard's RTP alerts (tables outside their 99.7 % band)."""
    return len(services.rtp_alerts_check())

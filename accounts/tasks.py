import socket

from celery import shared_task

from accounts import services


@shared_task(acks_late=True)
def worker_heartbeat_answer(probe_id: int) -> bool:
    return services.worker_heartbeat_answer(probe_id=probe_id, worker=f"celery@{socket.gethostname()}")

import socket

from celery import shared_task

from accounts import services


@shared_task(acks_late=True)
def worker_heartbeat_answer(probe_id: int) -> bool:
    return services.worker_heartbeat_answer(probe_id=probe_id, worker=f"celery@{socket.gethostname()}")


@shared_task
def worker_ping() -> str:
    """Answers at once. Behind other work on a queue that one solo worker consumes, its answer means everything
    queued before it has run: the test suite waits on it before each flush of the database."""
    return f"celery@{socket.gethostname()}"

from celery import shared_task

from tables import services


@shared_task(acks_late=True)
def rtp_simulation_run(run_id: int) -> str:
    return services.rtp_run_execute(run_id=run_id).state

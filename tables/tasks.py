from celery import shared_task

from tables import services


# Acknowledged on receipt: a run of millions of hands outlasts the broker's visibility timeout (settings), and a
# late-acknowledged message still running then is delivered again, each copy taking a worker. A worker killed
# mid-run leaves the run 'running', and an operator starts another.
@shared_task(acks_late=False)
def rtp_simulation_run(run_id: int) -> str:
    return services.rtp_run_execute(run_id=run_id).state

from celery import shared_task

from tables import services


# Acknowledged on receipt: a run of millions of hands outlasts the broker's visibility timeout (settings), and a
# late-acknowledged message still running then is delivered again, each copy taking a worker. A worker killed
# mid-run leaves the run 'running', and an operator starts another.
@shared_task(acks_late=False)
def rtp_simulation_run(run_id: int) -> str:
    return services.rtp_run_execute(run_id=run_id).state


# The main game's exact analysis of a configuration an operator is previewing (seconds); the page polls its
# progress mark. Idempotent: a second delivery finds the figures cached and returns them.
@shared_task(acks_late=True, reject_on_worker_lost=True)
def rtp_exact_compute(rules: dict) -> float:
    from tables import rtp_exact

    return rtp_exact.main_game_figures(rtp_exact.rtp_rules_load(rules), report_progress=True)["rtp"]

import pytest
from django.urls import reverse

from tables import services
from tables.models import TableRtpRun
from tests.factories import TableFactory
from tests.helpers import wait_for

HANDS = 200_000


@pytest.mark.worker
def test_the_simulation_runs_in_the_real_worker_and_its_result_is_stored(celery_worker, client_for, operator):
    TableFactory(code="SIM1", profile="classic")
    client = client_for(operator)
    started = client.post(reverse("table_rtp_start", args=["SIM1"]), {"hands": "100000"}, HTTP_HX_REQUEST="true")
    assert started.status_code == 200 and "<progress" in started.content.decode()
    run = TableRtpRun.objects.get()
    done = wait_for(lambda: TableRtpRun.objects.filter(pk=run.pk, state="done").first(), timeout=120,
                    what="the worker to finish the simulation")
    assert (done.hands_done, done.config_version) == (100_000, 1)
    assert done.started_at <= done.finished_at
    # 100,000 hands: one standard error is about 0.36 %.
    assert 0.002 < done.standard_error < 0.006
    assert abs(done.estimate - 0.9949) < 5 * done.standard_error
    poll = client.get(reverse("table_rtp_run", args=["SIM1", run.pk]), HTTP_HX_REQUEST="true")
    assert poll.status_code == 286  # tells htmx to stop polling
    body = poll.content.decode()
    assert f"{done.estimate * 100:.3f} % ± {done.standard_error * 100:.3f} %" in body and "hx-get" not in body


@pytest.mark.worker
def test_a_run_is_reproducible_from_its_seed_and_a_finished_run_is_never_rerun(celery_worker, operator):
    table = TableFactory(code="SIM2", profile="free_bet")
    first = services.rtp_run_start(actor=operator, table=table, hands=HANDS, seed=42)
    services.table_update(actor=operator, reason="test change", table=table, decks=6)
    second = services.rtp_run_start(actor=operator, table=table, hands=HANDS, seed=42)
    third = services.rtp_run_start(actor=operator, table=table, hands=HANDS, seed=42)
    finished = wait_for(
        lambda: list(TableRtpRun.objects.filter(state="done").order_by("pk")) if TableRtpRun.objects.filter(
            state="done").count() == 3 else None,
        timeout=120, what="three simulations")
    a, b, c = finished
    assert (a.pk, b.pk, c.pk) == (first.pk, second.pk, third.pk)
    # Run 1 simulated the 8-deck rules it was started with, not the 6-deck edit that followed.
    assert (a.rules["decks"], b.rules["decks"], a.config_version, b.config_version) == (8, 6, 1, 2)
    assert b.estimate == c.estimate and a.estimate != b.estimate
    again = services.rtp_run_execute(run_id=a.pk)
    assert (again.estimate, again.finished_at) == (a.estimate, a.finished_at)

import pytest
from django.urls import reverse

from tests.helpers import wait_for


@pytest.mark.worker
def test_task_queued_from_a_request_runs_in_the_real_worker(celery_worker, client_for, operator):
    from accounts.models import WorkerHeartbeat

    client = client_for(operator)
    response = client.post(reverse("worker_health_probe"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    probe = WorkerHeartbeat.objects.get()
    answered = wait_for(
        lambda: WorkerHeartbeat.objects.filter(pk=probe.pk, answered_at__isnull=False).first(),
        what="the worker to answer the probe",
    )
    assert answered.worker.startswith("celery@")
    status = client.get(reverse("worker_health_probe_status", args=[probe.pk]), HTTP_HX_REQUEST="true")
    assert status.status_code == 286  # tells htmx to stop polling
    assert "answered by" in status.content.decode()

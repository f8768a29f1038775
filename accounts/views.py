from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts import selectors, services
from accounts.models import WorkerHeartbeat
from accounts.permissions import permission_required
from accounts.staffaudit import origin_from_request


@login_required
def home(request):
    return render(request, "accounts/home.html")


def permission_denied(request, exception=None):
    reason = str(exception) if exception and str(exception) else "Your account lacks the permission this page needs."
    return render(request, "errors/403.html", {"reason": reason}, status=403)


def page_not_found(request, exception=None):
    return render(request, "errors/404.html", status=404)


@permission_required("view_dashboard")
def worker_health(request):
    return render(request, "accounts/worker_health.html", {"probes": selectors.worker_heartbeats_recent()})


@require_POST
@permission_required("view_dashboard")
def worker_health_probe(request):
    probe = services.worker_heartbeat_request(user=request.user, origin=origin_from_request(request))
    if request.htmx:
        return render(request, "accounts/_heartbeat.html", {"probe": probe})
    return redirect("worker_health")


@permission_required("view_dashboard")
def worker_health_probe_status(request, probe_id: int):
    probe = get_object_or_404(WorkerHeartbeat, pk=probe_id)
    response = render(request, "accounts/_heartbeat.html", {"probe": probe})
    if probe.answered_at:
        # htmx stops polling on 286
        response.status_code = 286 if request.htmx else 200
    return response


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="accounts/login.html",
                                                redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("ops/worker/", views.worker_health, name="worker_health"),
    path("ops/worker/probe/", views.worker_health_probe, name="worker_health_probe"),
    path("ops/worker/probe/<int:probe_id>/", views.worker_health_probe_status, name="worker_health_probe_status"),
    path("healthz", views.healthz, name="healthz"),
]

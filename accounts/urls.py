from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import password_views, second_factor_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="accounts/login.html",
                                                redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("verify/", second_factor_views.second_factor_verify, name="second_factor_verify"),
    path("verify/enrol/", second_factor_views.second_factor_enrol, name="second_factor_enrol"),
    path("me/settings/password/", password_views.password_change, name="password_change"),
    path("support/players/<int:user_id>/password-reset/", password_views.player_password_reset,
         name="player_password_reset"),
    path("support/players/<int:user_id>/api-keys/revoke/", password_views.player_api_tokens_revoke,
         name="player_api_tokens_revoke"),
    path("ops/worker/", views.worker_health, name="worker_health"),
    path("ops/worker/probe/", views.worker_health_probe, name="worker_health_probe"),
    path("ops/worker/probe/<int:probe_id>/", views.worker_health_probe_status, name="worker_health_probe_status"),
    path("healthz", views.healthz, name="healthz"),
]

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import IsAuthenticated

from casino.admin_shortcut import admin_shortcut
from players import urls as players_urls
from responsible import urls as responsible_urls

handler400 = "casino.api_errors.bad_request"
handler403 = "accounts.views.permission_denied"
handler404 = "casino.api_errors.page_not_found"
handler500 = "casino.api_errors.server_error"

urlpatterns = [
    # Before the admin's own route of the same shape, which it replaces.
    path("admin/r/<int:content_type_id>/<path:object_id>/", admin.site.admin_view(admin_shortcut),
         name="admin_shortcut"),
    path("admin/", admin.site.urls),
    # Signed-in people only (docs/security.md: staff, and players for the game-client part they call).
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[IsAuthenticated]), name="api-schema"),
    # The split view serves its start-up script as a file, so no inline script runs; Swagger UI's page template
    # has one inline <style>, allowed on this page only (styles cannot run code).
    path("api/docs/", login_required(csp_update({"style-src": [SELF, UNSAFE_INLINE]})(SpectacularSwaggerSplitView.as_view(
        url_name="api-schema", permission_classes=[IsAuthenticated]))), name="api-docs"),
    path("api/auth/", include("accounts.api_urls")),
    path("api/wallet/", include("wallet.api_urls")),
    path("api/tables/", include("tables.api_urls")),
    path("api/rounds/", include("rounds.api_urls")),
    path("api/players/", include("players.api_urls")),
    path("api/responsible/", include("responsible.api_urls")),
    path("api/chat/", include("chat.api_urls")),
    path("wallet/", include("wallet.urls")),
    path("tables/", include("tables.urls")),
    path("rounds/", include("rounds.urls")),
    path("me/responsible/", include(responsible_urls.player_urlpatterns)),
    path("support/responsible/", include(responsible_urls.staff_urlpatterns)),
    path("me/", include("players.urls")),
    path("support/players/", include(players_urls.staff_urlpatterns)),
    path("me/", include("chat.player_urls")),
    path("support/chat/", include("chat.urls")),
    path("dashboard/reconciliation/", include("backoffice.reconciliation_urls")),
    path("", include("backoffice.urls")),
    path("", include("accounts.urls")),
]

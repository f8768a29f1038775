from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

handler400 = "casino.api_errors.bad_request"
handler403 = "accounts.views.permission_denied"
handler404 = "casino.api_errors.page_not_found"
handler500 = "casino.api_errors.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/auth/", include("accounts.api_urls")),
    path("api/wallet/", include("wallet.api_urls")),
    path("api/tables/", include("tables.api_urls")),
    path("api/rounds/", include("rounds.api_urls")),
    path("api/players/", include("players.api_urls")),
    path("wallet/", include("wallet.urls")),
    path("tables/", include("tables.urls")),
    path("rounds/", include("rounds.urls")),
    path("me/", include("players.urls")),
    path("", include("backoffice.urls")),
    path("", include("accounts.urls")),
]

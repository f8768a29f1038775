from django.urls import path

from tables import views

urlpatterns = [
    path("", views.tables_list, name="tables_list"),
    path("new/", views.table_new, name="table_new"),
    path("<str:code>/", views.table_detail, name="table_detail"),
    path("<str:code>/edit/", views.table_edit, name="table_edit"),
    path("<str:code>/edit/preview/", views.table_edit_preview, name="table_edit_preview"),
    path("<str:code>/limits/", views.table_limits, name="table_limits"),
    path("<str:code>/paytables/<str:side_bet>/", views.table_paytable, name="table_paytable"),
    path("<str:code>/state/", views.table_state, name="table_state"),
    path("<str:code>/history/", views.table_history, name="table_history"),
    path("<str:code>/strategy/", views.table_strategy, name="table_strategy"),
    path("<str:code>/rtp/", views.table_rtp_start, name="table_rtp_start"),
    path("<str:code>/rtp/<int:run_id>/", views.table_rtp_run, name="table_rtp_run"),
]

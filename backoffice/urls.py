from django.urls import path

from backoffice import ggr_views, staff_activity, views

urlpatterns = [
    path("search/", views.search, name="backoffice_search"),
    path("support/rounds/<str:game_number>/", views.round_page, name="backoffice_round"),
    path("support/rounds/<str:game_number>/void/", views.round_void, name="backoffice_round_void"),
    path("support/rounds/<str:game_number>/retry/", views.round_attention_retry, name="backoffice_round_retry"),
    path("support/rounds/<str:game_number>/void/progress/", views.round_void_progress,
         name="backoffice_round_void_progress"),
    path("support/players/<int:user_id>/", views.player_page, name="backoffice_player"),
    path("support/players/<int:user_id>/games.csv", views.player_games_csv, name="backoffice_player_games_csv"),
    path("support/players/<int:user_id>/notes/", views.player_note, name="backoffice_player_note"),
    path("support/players/<int:user_id>/chat/", views.player_chat, name="backoffice_player_chat"),
    path("support/players/<int:user_id>/golden-chips/", views.player_golden_chips,
         name="backoffice_player_golden_chips"),
    path("support/transactions/<int:transaction_id>/", views.transaction_page, name="backoffice_transaction"),
    path("dashboard/", views.dashboard, name="backoffice_dashboard"),
    path("dashboard/rtp/", views.rtp_report, name="backoffice_rtp"),
    path("dashboard/rtp.csv", views.rtp_report_csv, name="backoffice_rtp_csv"),
    path("reports/ggr/", ggr_views.ggr_page, name="backoffice_ggr"),
    path("reports/ggr.csv", ggr_views.ggr_csv, name="backoffice_ggr_csv"),
    path("staff-activity/", staff_activity.staff_activity, name="staff_activity"),
    path("staff-activity.csv", staff_activity.staff_activity_csv, name="staff_activity_csv"),
]

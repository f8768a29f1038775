from django.urls import path

from players import game_views, statement_views, views

urlpatterns = [
    path("games/", game_views.my_games, name="player_games"),
    path("games.csv", game_views.my_games_csv, name="player_games_csv"),
    path("games/<str:game_number>/", game_views.my_game, name="player_game"),
    path("statement/", statement_views.my_statement, name="player_statement"),
    path("statement.csv", statement_views.my_statement_csv, name="player_statement_csv"),
    path("settings/", views.player_settings, name="player_settings"),
    path("tables/", views.player_tables, name="player_tables"),
    path("tables/<str:code>/", views.player_table, name="player_table"),
    path("tables/<str:code>/help/", views.player_table_help, name="player_table_help"),
    path("tables/<str:code>/join/", views.player_table_join, name="player_table_join"),
    path("tables/<str:code>/leave/", views.player_table_leave, name="player_table_leave"),
    path("tables/<str:code>/tip/", views.player_table_tip, name="player_table_tip"),
]

# Support's view of a player's statement, mounted under support/players/ (casino/urls.py).
staff_urlpatterns = [
    path("<int:user_id>/statement/", statement_views.player_statement, name="support_player_statement"),
    path("<int:user_id>/statement.csv", statement_views.player_statement_csv, name="support_player_statement_csv"),
]

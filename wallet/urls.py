from django.urls import path

from wallet import views

urlpatterns = [
    path("", views.wallet_home, name="wallet_home"),
    path("history.csv", views.history_csv, name="wallet_history_csv"),
    path("cashier/", views.cashier, name="wallet_cashier"),
    path("players/", views.players, name="wallet_players"),
    path("players/<int:user_id>/", views.player_wallet, name="wallet_player"),
    path("players/<int:user_id>/history.csv", views.player_history_csv, name="wallet_player_history_csv"),
]

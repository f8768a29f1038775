from django.urls import path

from wallet import api

urlpatterns = [
    path("balances/", api.BalancesView.as_view(), name="api_wallet_balances"),
    path("history/", api.HistoryView.as_view(), name="api_wallet_history"),
    path("deposit/", api.DepositView.as_view(), name="api_wallet_deposit"),
    path("withdraw/", api.WithdrawView.as_view(), name="api_wallet_withdraw"),
    path("players/<int:user_id>/balances/", api.PlayerBalancesView.as_view(), name="api_wallet_player_balances"),
    path("players/<int:user_id>/history/", api.PlayerHistoryView.as_view(), name="api_wallet_player_history"),
]

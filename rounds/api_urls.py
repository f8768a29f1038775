from django.urls import path

from rounds import api

urlpatterns = [
    path("", api.RoundListApi.as_view(), name="api_rounds"),
    path("mine/", api.MyRoundsApi.as_view(), name="api_rounds_mine"),
    path("tables/<str:code>/current/", api.TableCurrentRoundApi.as_view(), name="api_rounds_table_current"),
    path("tables/<str:code>/pause/", api.TablePauseApi.as_view(), name="api_rounds_table_pause"),
    path("tables/<str:code>/resume/", api.TableResumeApi.as_view(), name="api_rounds_table_resume"),
    path("tables/<str:code>/close/", api.TableCloseApi.as_view(), name="api_rounds_table_close"),
    path("tables/<str:code>/shoe/", api.TableShoeApi.as_view(), name="api_rounds_table_shoe"),
    path("<str:game_number>/", api.RoundApi.as_view(), name="api_round"),
    path("<str:game_number>/close-betting/", api.CloseBettingApi.as_view(), name="api_round_close_betting"),
    path("<str:game_number>/cards/", api.CardApi.as_view(), name="api_round_cards"),
    path("<str:game_number>/dealer-complete/", api.DealerCompleteApi.as_view(), name="api_round_dealer_complete"),
    path("<str:game_number>/void/", api.VoidApi.as_view(), name="api_round_void"),
    path("<str:game_number>/reverse/", api.ReverseApi.as_view(), name="api_round_reverse"),
    path("<str:game_number>/bets/", api.BetsApi.as_view(), name="api_round_bets"),
    path("<str:game_number>/bets/repeat/", api.BetsRepeatApi.as_view(), name="api_round_bets_repeat"),
    path("<str:game_number>/bets/double/", api.BetsDoubleApi.as_view(), name="api_round_bets_double"),
    path("<str:game_number>/confirm/", api.ConfirmApi.as_view(), name="api_round_confirm"),
    path("<str:game_number>/leave/", api.LeaveApi.as_view(), name="api_round_leave"),
    path("<str:game_number>/insurance/", api.InsuranceApi.as_view(), name="api_round_insurance"),
    path("<str:game_number>/decisions/", api.DecisionApi.as_view(), name="api_round_decisions"),
    path("<str:game_number>/continuation/", api.ContinuationApi.as_view(), name="api_round_continuation"),
    path("<str:game_number>/continuation/reconnect/", api.ContinuationReconnectApi.as_view(),
         name="api_round_continuation_reconnect"),
    path("<str:game_number>/continuation/decisions/", api.ContinuationDecisionApi.as_view(),
         name="api_round_continuation_decisions"),
    path("<str:game_number>/stats/", api.StatsApi.as_view(), name="api_round_stats"),
    path("<str:game_number>/record/", api.RecordApi.as_view(), name="api_round_record"),
    path("<str:game_number>/replay/", api.ReplayApi.as_view(), name="api_round_replay"),
]

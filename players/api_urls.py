from django.urls import path

from players import api, tables_api

urlpatterns = [
    path("me/settings/", api.MySettings.as_view(), name="api_player_settings"),
    path("tables/<str:code>/help/", api.TableHelp.as_view(), name="api_table_help"),
    path("tables/", tables_api.LobbyApi.as_view(), name="api_lobby"),
    path("me/tables/", tables_api.MyTablesApi.as_view(), name="api_player_tables"),
    path("me/tables/<str:code>/join/", tables_api.TableJoinApi.as_view(), name="api_player_table_join"),
    path("me/tables/<str:code>/leave/", tables_api.TableLeaveApi.as_view(), name="api_player_table_leave"),
    path("me/tables/<str:code>/switch/", tables_api.TableSwitchApi.as_view(), name="api_player_table_switch"),
]

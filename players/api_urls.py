from django.urls import path

from players import api

urlpatterns = [
    path("me/settings/", api.MySettings.as_view(), name="api_player_settings"),
    path("tables/<str:code>/help/", api.TableHelp.as_view(), name="api_table_help"),
]

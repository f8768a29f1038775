from django.urls import path

from responsible import api

urlpatterns = [
    path("me/", api.MyState.as_view(), name="api_responsible_state"),
    path("reality-check/", api.RealityCheckAnswerApi.as_view(), name="api_responsible_reality_check"),
]

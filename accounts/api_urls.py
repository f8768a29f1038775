from django.urls import path

from accounts import api

urlpatterns = [
    path("tokens/", api.ApiTokens.as_view(), name="api_tokens"),
    path("tokens/<int:token_id>/", api.ApiTokenDetail.as_view(), name="api_token"),
]

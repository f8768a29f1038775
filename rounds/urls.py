from django.urls import path

from rounds import views

urlpatterns = [
    path("", views.round_lookup, name="round_lookup"),
    path("<str:game_number>/", views.round_detail, name="round_detail"),
    path("<str:game_number>/replay/", views.round_replay_check, name="round_replay"),
]

from django.urls import path

from chat import views

# Under /me/, beside the player's other table pages (players.urls).
urlpatterns = [
    path("tables/<str:code>/chat/", views.player_table_chat, name="player_table_chat"),
]

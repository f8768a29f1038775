from django.urls import path

from chat import views

urlpatterns = [
    path("", views.chat_log, name="chat_log"),
    path("messages/<int:message_id>/disable-chat/", views.chat_message_disable_chat, name="chat_message_disable"),
]

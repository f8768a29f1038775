from django.urls import path

from chat import api

urlpatterns = [
    path("tables/<str:code>/messages/", api.TableChatApi.as_view(), name="api_chat_table"),
    path("tables/<str:code>/host-messages/", api.HostChatApi.as_view(), name="api_chat_host"),
]

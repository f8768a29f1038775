from django.urls import path

from tables import api

urlpatterns = [
    path("", api.TableListApi.as_view(), name="api_tables_list"),
    path("<str:code>/", api.TableDetailApi.as_view(), name="api_table_detail"),
]

from django.urls import path

from responsible import staff_views, views

player_urlpatterns = [
    path("", views.responsible_page, name="responsible_page"),
    path("reality-check/", views.reality_check_answer, name="responsible_reality_answer"),
]

staff_urlpatterns = [
    path("players/<int:user_id>/", staff_views.player_responsible, name="responsible_support_player"),
    path("register/", staff_views.register_page, name="responsible_register"),
    path("register/<int:entry_id>/remove/", staff_views.register_remove, name="responsible_register_remove"),
    path("players/<int:user_id>/exclusion-end/", staff_views.player_exclusion_end,
         name="responsible_support_exclusion_end"),
    path("jurisdictions/", staff_views.jurisdictions_page, name="responsible_jurisdictions"),
    path("jurisdictions/<str:jurisdiction>/", staff_views.jurisdiction_page, name="responsible_jurisdiction"),
]

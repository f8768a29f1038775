from django.urls import path

from backoffice import reconciliation_views

urlpatterns = [
    path("", reconciliation_views.reconciliation, name="backoffice_reconciliation"),
    path("reconciliation.csv", reconciliation_views.reconciliation_csv, name="backoffice_reconciliation_csv"),
]

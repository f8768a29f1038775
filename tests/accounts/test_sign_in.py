"""accounts.sign_in.client_sign_in, the one way the tests (client_for) and the simulator sign a client in: a real
login (its receivers write the session's clocks and the login record) with one session row written."""

from django.contrib.auth import SESSION_KEY
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django_otp import DEVICE_ID_SESSION_KEY

from accounts.middleware import LOGIN_AT_KEY
from accounts.models import LoginEvent, LoginRecord
from accounts.sign_in import client_sign_in


def _session_statements(queries, verb: str) -> int:
    return sum(1 for q in queries if q["sql"].startswith(verb) and '"django_session"' in q["sql"])


def test_a_staff_sign_in_is_a_real_login_writing_one_session_with_its_second_factor(operator):
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        client_sign_in(client, operator)
    # No empty session saved first and replaced (Client.force_login's), no second write for the device.
    assert _session_statements(queries, "INSERT") == 1
    assert _session_statements(queries, "DELETE") == 0
    session = client.session
    assert int(session[SESSION_KEY]) == operator.pk
    assert LOGIN_AT_KEY in session  # the login receiver started the session's clocks
    assert DEVICE_ID_SESSION_KEY in session
    assert LoginRecord.objects.filter(user=operator, event=LoginEvent.LOGIN).count() == 1
    assert client.get(reverse("backoffice_dashboard")).status_code == 200  # verified: staff pages open


def test_a_password_alone_leaves_staff_at_the_second_factor(operator):
    client = Client()
    client_sign_in(client, operator, second_factor=False)
    assert DEVICE_ID_SESSION_KEY not in client.session
    assert "/verify/" in client.get(reverse("backoffice_dashboard"))["Location"]


def test_a_client_keeps_its_session_through_the_sign_in(player):
    client = Client()
    session = client.session
    session["before"] = "kept"
    session.save()
    client_sign_in(client, player)
    assert client.session["before"] == "kept"
    assert int(client.session[SESSION_KEY]) == player.pk

"""Staff pass a TOTP second factor before any staff page, API call or the admin opens; players are not asked."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import LoginEvent, LoginRecord
from accounts.sign_in import staff_authenticator, totp_code_now
from tests.helpers import totp_code_for_secret

pytestmark = pytest.mark.django_db

OPEN = {"login", "logout", "healthz", "second_factor_verify", "second_factor_enrol"}


def _every_path() -> list[str]:
    """Every route of the site with made-up arguments (the refusal comes before any view looks at them)."""
    paths = []

    def walk(patterns, prefix):
        for entry in patterns:
            route = str(entry.pattern)
            if route.startswith("^"):  # the admin's regex routes: its index and model pages cover them
                route = re.sub(r"\(\?P<\w+>[^)]*\)", "auth", route.strip("^$"))
            route = re.sub(r"<int:\w+>", "1", route)
            route = re.sub(r"<(?:str|slug|path):\w+>", "X", route)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + route)
            elif isinstance(entry, URLPattern) and entry.name not in OPEN and "(?" not in route:
                paths.append("/" + prefix + route)

    walk(get_resolver().url_patterns, "")
    return sorted(set(paths))


EVERY_PATH = _every_path()


def test_the_route_list_reaches_pages_the_api_and_the_admin():
    for expected in ("/dashboard/", "/support/players/1/", "/tables/", "/api/rounds/", "/api/wallet/balances/",
                     "/admin/", "/admin/auth/user/", "/ops/worker/", "/me/settings/password/"):
        assert expected in EVERY_PATH


@pytest.mark.parametrize("persona", ["operator", "support", "admin"])
def test_a_staff_password_alone_opens_nothing(client_for, personas, persona):
    user = personas.get(persona) or get_user_model().objects.create_superuser("root", "root@example.test", "pw")
    client = client_for(user, second_factor=False)
    for path in EVERY_PATH:
        response = client.get(path)
        if path.startswith("/api/"):
            assert response.status_code == 403, path
            assert response.json()["code"] == "second_factor_required", path
        else:
            assert response.status_code == 302, path
            assert response["Location"].startswith("/verify/?next="), (path, response["Location"])
    assert client.post("/api/rounds/", {"table": "FB01"}, content_type="application/json").status_code == 403


def test_an_htmx_request_sends_the_whole_page_to_the_step(client_for, operator):
    response = client_for(operator, second_factor=False).get("/dashboard/", headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert response["HX-Redirect"] == "/verify/?next=%2Fdashboard%2F"


def test_players_are_not_asked_for_a_second_factor(client_for, player):
    client = client_for(player, second_factor=False)
    assert client.get("/me/settings/").status_code == 200
    assert client.get("/api/wallet/balances/").status_code == 200
    assert client.get("/verify/").status_code == 302  # nothing to verify: back to where they were going


def test_first_login_enrols_with_a_qr_code_and_the_secret_as_text_then_shows_recovery_codes(client_for, support):
    client = client_for(support, second_factor=False)
    assert client.get("/verify/?next=/search/")["Location"] == "/verify/enrol/?next=%2Fsearch%2F"
    page = client.get("/verify/enrol/?next=/search/")
    body = page.content.decode()
    assert "<svg" in body
    secret = re.search(r"data-secret>([A-Z2-7 ]+)<", body).group(1)
    assert client.get("/verify/enrol/").content.decode().count(secret) == 1  # a reload keeps the same secret
    wrong = client.post("/verify/enrol/", {"code": "000000", "next": "/search/"})
    assert wrong.status_code == 400 and "does not match" in wrong.content.decode()
    # django-otp's throttle makes a second try wait a second after a wrong code (tested below): lifted, not waited.
    TOTPDevice.objects.filter(user=support, confirmed=False).update(throttling_failure_count=0,
                                                                     throttling_failure_timestamp=None)
    done = client.post("/verify/enrol/", {"code": totp_code_for_secret(secret), "next": "/search/"})
    assert done.status_code == 200
    codes = re.findall(r"<li><code>([a-z2-7]+)</code></li>", done.content.decode())
    assert len(codes) == 10 and set(codes) == set(StaticToken.objects.values_list("token", flat=True))
    assert client.get("/search/").status_code == 200
    assert TOTPDevice.objects.get(user=support).confirmed


def test_a_code_verifies_the_session_and_sends_it_back_where_it_was_going(client_for, operator):
    device = staff_authenticator(user=operator)
    device.last_t = -1
    device.save()
    client = client_for(operator, second_factor=False)
    assert client.get("/dashboard/")["Location"] == "/verify/?next=%2Fdashboard%2F"
    refused = client.post("/verify/", {"code": "123456", "next": "/dashboard/"})
    assert refused.status_code == 400 and "wrong" in refused.content.decode()
    device.refresh_from_db()
    device.throttling_failure_count, device.throttling_failure_timestamp = 0, None  # the throttle is tested below
    device.save()
    before = client.cookies["sessionid"].value
    response = client.post("/verify/", {"code": totp_code_now(device), "next": "/dashboard/"})
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    assert client.cookies["sessionid"].value != before  # a new session key once the second factor is in
    assert client.get("/dashboard/").status_code == 200
    events = list(LoginRecord.objects.filter(user=operator).values_list("event", flat=True).order_by("id"))
    assert events[-2:] == [LoginEvent.SECOND_FACTOR_FAILED, LoginEvent.SECOND_FACTOR]


def test_a_recovery_code_works_once(client_for, operator):
    staff_authenticator(user=operator)
    code = StaticToken.objects.filter(device__user=operator).first().token
    first = client_for(operator, second_factor=False)
    assert first.post("/verify/", {"code": code.upper(), "next": "/dashboard/"})["Location"] == "/dashboard/"
    second = client_for(operator, second_factor=False)
    assert second.post("/verify/", {"code": code, "next": "/dashboard/"}).status_code == 400
    assert second.get("/dashboard/").status_code == 302


def test_wrong_codes_in_a_row_are_throttled(client_for, operator):
    device = staff_authenticator(user=operator)
    client = client_for(operator, second_factor=False)
    for _ in range(2):
        client.post("/verify/", {"code": "000000"})
    response = client.post("/verify/", {"code": totp_code_now(device)})
    assert response.status_code == 400 and "Too many wrong codes" in response.content.decode()


def test_an_open_redirect_is_not_followed(client_for, operator):
    device = staff_authenticator(user=operator)
    device.last_t = -1
    device.save()
    client = client_for(operator, second_factor=False)
    assert client.post("/verify/", {"code": totp_code_now(device), "next": "https://evil.example/"})["Location"] == "/"


def test_resetting_a_lost_device_ends_verified_sessions_and_asks_for_enrolment(client_for, operator):
    client = client_for(operator)
    assert client.get("/dashboard/").status_code == 200
    call_command("second_factor_reset", "olivia_operator", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert not TOTPDevice.objects.filter(user=operator).exists()
    assert client.get("/dashboard/")["Location"] == "/verify/?next=%2Fdashboard%2F"
    assert client.get("/verify/")["Location"] == "/verify/enrol/?next=%2F"

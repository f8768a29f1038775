"""The browser's protections on every response: CSP without inline scripts, HSTS over HTTPS, no framing, no
MIME sniffing, a same-origin referrer, secure HttpOnly cookies; HTTP is redirected to HTTPS in production."""

import os
import runpy
from pathlib import Path

import pytest
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def assert_protected(response):
    csp = response["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in csp.split(";") if part.strip())
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response["Strict-Transport-Security"] == "max-age=31536000"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_a_page_carries_the_security_headers(client_for, player):
    response = client_for(player).get(reverse("player_games"), secure=True)
    assert response.status_code == 200
    assert_protected(response)


def test_an_api_response_carries_the_security_headers(client_for, player):
    response = client_for(player).get(reverse("api_wallet_balances"), secure=True)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert_protected(response)


def test_a_refused_request_carries_them_too():
    assert_protected(Client().get("/search/?q=%00", secure=True))


def test_the_session_and_csrf_cookies_are_secure_and_http_only(client, player):
    page = client.get(reverse("login"), secure=True)
    signed_in = client.post(reverse("login"), {"username": "pat_player", "password": "pw-pat_player"}, secure=True)
    assert signed_in.status_code == 302
    for name in ("csrftoken", "sessionid"):
        cookie = (signed_in.cookies.get(name) or page.cookies.get(name))
        assert cookie["secure"] and cookie["httponly"], name


def test_pages_have_no_inline_script_or_style():
    offenders = []
    for path in (REPO / "templates").rglob("*.html"):
        text = path.read_text()
        for bad in ("<script>", "style=", "<style", " onclick=", " onload=", " onsubmit=", "hx-on", "javascript:"):
            if bad in text:
                offenders.append(f"{path.relative_to(REPO)}: {bad}")
    assert offenders == []


@override_settings(SECURE_SSL_REDIRECT=True)
def test_plain_http_is_redirected_to_https():
    response = Client().get("/login/")
    assert response.status_code == 301 and response["Location"] == "https://testserver/login/"


SETTINGS_FILE = REPO / "casino" / "settings.py"
SECURITY_SETTINGS = ("SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SESSION_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER")


def settings_under(**env) -> dict:
    """The security settings casino/settings.py gives under an environment without the suite's SECURE_* and DEBUG
    values: the file is run afresh in this process (its module-level code only reads the environment), not
    imported by a second Python that starts again (1.6 s of CPU each)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [k for k in os.environ if k.startswith(("SECURE_", "DEBUG"))]:
            patch.delenv(name)
        for name, value in env.items():
            patch.setenv(name, value)
        namespace = runpy.run_path(str(SETTINGS_FILE))
    return {name: namespace[name] for name in SECURITY_SETTINGS}


def test_production_defaults_are_strict_and_debug_relaxes_them():
    assert settings_under(DEBUG="0") == {"SECURE_SSL_REDIRECT": True, "SECURE_HSTS_SECONDS": 31536000,
                                         "SESSION_COOKIE_SECURE": True, "SECURE_PROXY_SSL_HEADER": None}
    assert settings_under(DEBUG="1") == {"SECURE_SSL_REDIRECT": False, "SECURE_HSTS_SECONDS": 0,
                                         "SESSION_COOKIE_SECURE": False, "SECURE_PROXY_SSL_HEADER": None}
    behind_proxy = settings_under(DEBUG="0", SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert behind_proxy["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")

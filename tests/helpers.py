"""Plain helpers the tests import (fixtures live in tests/fixtures/, factories in tests/factories.py)."""

import socket
import threading
import time
from pathlib import Path

from wallet import selectors as wallet_selectors
from wallet.models import AccountKind

REPO = Path(__file__).resolve().parents[1]
# Logs of the worker and screenshots of the browser tests.
OUTPUT = REPO / "var" / "test-output"


def free_port() -> int:
    """A loopback port nothing listens on now, for a server a test starts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, *, timeout: float = 20.0, interval: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def cash(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency)


def chips(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency, kind=AccountKind.PLAYER_GOLDEN_CHIPS)


def totp_code_for_secret(secret: str) -> str:
    """The code an authenticator app shows now for the base32 secret an enrolment page shows."""
    from base64 import b32decode

    from django_otp.oath import TOTP

    return f"{TOTP(b32decode(secret.replace(' ', ''))).token():06d}"


def browser_sign_in(page, base_url: str, username: str, password: str | None = None) -> None:
    """Sign in through the real pages as a person would: the password, then for staff the second factor,
    enrolling an authenticator from the secret the page shows when they have none yet."""
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password or f"pw-{username}")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login/" not in url)
    if "/verify/enrol/" in page.url:
        page.get_by_label("Code from the app").fill(totp_code_for_secret(page.locator("[data-secret]").inner_text()))
        page.get_by_role("button", name="Confirm").click()
        page.get_by_role("link", name="I have saved them: continue").click()
        page.wait_for_url(lambda url: "/verify/" not in url)
    elif "/verify/" in page.url:
        from django_otp.plugins.otp_totp.models import TOTPDevice

        from accounts.sign_in import totp_code_now

        device = TOTPDevice.objects.get(user__username=username, confirmed=True)
        page.get_by_label("Code").fill(totp_code_now(device))
        page.get_by_role("button", name="Verify").click()
        page.wait_for_url(lambda url: "/verify/" not in url)


class RowLock:
    """Holds FOR UPDATE locks from a connection of its own until released (for tests of who waits on whom)."""

    def __init__(self, sql, params):
        self.sql, self.params = sql, params
        self.held, self.release = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        from django.db import connection, transaction

        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(self.sql, self.params)
                self.held.set()
                self.release.wait(30)
        finally:
            connection.close()

    def __enter__(self):
        self.thread.start()
        assert self.held.wait(10)
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.thread.join(10)


def golden_chips_grant_post(client, player, *, amount: str, reason: str, key: str, currency: str = "EUR", **extra):
    """A grant as staff make it: the form, then the confirmation of the amount the review read back. Returns the
    review's response and the confirmation's (None when the review refused the form)."""
    import re

    from django.urls import reverse

    url = reverse("backoffice_player_golden_chips", args=[player.pk])
    review = client.post(url, {"currency": currency, "amount": amount, "reason": reason, "idempotency_key": key},
                         **extra)
    if review.status_code != 200:
        return review, None
    minor = re.search(r'name="amount_minor" value="(\d+)"', review.content.decode()).group(1)
    confirm = client.post(url, {"step": "confirm", "currency": currency, "amount_minor": minor, "reason": reason,
                                "idempotency_key": key, "review": review_field(review)}, follow=True, **extra)
    return review, confirm


def review_field(response) -> str:
    """The review token a review page puts in its confirm form (casino.review_token)."""
    import html
    import re

    found = re.search(r'name="review" value="([^"]*)"', response.content.decode())
    assert found, "the page has no review token"
    return html.unescape(found.group(1))


def confirm_fields(response) -> dict[str, str]:
    """Every hidden input of a review page's confirm form (the one carrying the review token), as the browser
    posts them back with step=confirm."""
    import html
    import re

    page = response.content.decode()
    start = page.index('name="review"')
    form = page[page.rindex("<form", 0, start):page.index("</form>", start)]
    fields = {html.unescape(n): html.unescape(v)
              for n, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)}
    return fields | {"step": "confirm"}


def join_table(client, code: str) -> None:
    """Sit the client's player at the table in the client's session: every move of the game client needs it
    (rounds.presence)."""
    response = client.post(f"/api/players/me/tables/{code}/join/", content_type="application/json")
    assert response.status_code == 200, response.content


def round_void_post(client, game_number: str, *, reason: str, **extra):
    """Voiding (or reversing) a round as staff do it: the review, then the confirmation of exactly that review.
    Returns the confirmation's response."""
    from django.urls import reverse

    url = reverse("backoffice_round_void", args=[game_number])
    review = client.post(url, {"step": "review", "reason": reason}, **extra)
    assert review.status_code == 200, review.content
    return client.post(url, confirm_fields(review), **extra)


DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def wider_than_the_phone(page) -> list:
    """Elements reaching past a 390 px phone's right edge (tables scroll inside their own box)."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.table-scroll'))
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")

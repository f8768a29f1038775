"""Login lockout through every door that checks a password: 5 failures per username or per address lock it for
15 minutes (settings LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES); the page says so and when to try again."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.utils import timezone

from accounts.models import LoginRecord

pytestmark = pytest.mark.django_db

DOORS = {"login page": "/login/", "admin login": "/admin/login/"}


def attempt(client, door, username, password):
    return client.post(DOORS[door], {"username": username, "password": password, "next": "/"})


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("door", DOORS)
def test_five_wrong_passwords_lock_the_username_and_the_right_one_is_refused(operator, door):
    client = Client()
    for _ in range(4):
        assert attempt(client, door, "olivia_operator", "wrong").status_code == 200
    locked = attempt(client, door, "olivia_operator", "wrong")
    assert locked.status_code == 429
    right = attempt(Client(REMOTE_ADDR="10.9.9.9"), door, "olivia_operator", "pw-olivia_operator")
    assert right.status_code == 429 and not signed_in(client)
    page = right.content.decode()
    assert "After 5 wrong passwords in a row" in page and "locked for 15 minutes" in page
    assert "Try again after" in page and "UTC" in page


def test_one_address_is_locked_whatever_username_it_tries(player, player2):
    client = Client(REMOTE_ADDR="10.1.2.3")
    for index in range(5):
        attempt(client, "login page", f"nobody{index}", "wrong")
    assert attempt(client, "login page", "pat_player", "pw-pat_player").status_code == 429
    # Another address still signs in: the username had no failures of its own.
    other = Client(REMOTE_ADDR="10.1.2.4")
    assert attempt(other, "login page", "pat_player", "pw-pat_player").status_code == 302 and signed_in(other)


def test_a_successful_login_clears_the_usernames_failures(player):
    for _ in range(4):
        attempt(Client(REMOTE_ADDR="10.0.0.1"), "login page", "pat_player", "wrong")
    assert attempt(Client(REMOTE_ADDR="10.0.0.2"), "login page", "pat_player", "pw-pat_player").status_code == 302
    for _ in range(4):
        attempt(Client(REMOTE_ADDR="10.0.0.3"), "login page", "pat_player", "wrong")
    client = Client(REMOTE_ADDR="10.0.0.4")
    assert attempt(client, "login page", "pat_player", "pw-pat_player").status_code == 302 and signed_in(client)


def test_a_try_during_the_lockout_does_not_extend_it_and_it_ends_after_the_cool_off(player):
    client = Client(REMOTE_ADDR="10.5.5.5")
    for _ in range(5):
        attempt(client, "login page", "pat_player", "wrong")
    assert attempt(client, "login page", "pat_player", "pw-pat_player").status_code == 429
    assert AccessAttempt.objects.get().failures_since_start == 5  # the refused try was not counted
    # 15 minutes later (the failures' time moved back, as the clock would have moved on):
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert attempt(client, "login page", "pat_player", "pw-pat_player").status_code == 302 and signed_in(client)


def test_each_refusal_is_recorded_with_its_reason(player):
    client = Client(REMOTE_ADDR="10.6.6.6", HTTP_USER_AGENT="Mozilla/5.0 test")
    for _ in range(5):
        attempt(client, "login page", "pat_player", "wrong")
    attempt(client, "login page", "pat_player", "pw-pat_player")
    details = list(LoginRecord.objects.order_by("id").values_list("detail", flat=True))
    assert details == ["wrong username or password"] * 4 + ["wrong username or password; now locked out",
                                                             "refused: locked out (password not checked)"]
    assert set(LoginRecord.objects.values_list("user", "ip_address", "user_agent")) == {
        (player.pk, "10.6.6.6", "Mozilla/5.0 test")}

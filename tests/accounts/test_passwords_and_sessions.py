"""Passwords (staff rules, a player's own change, support's temporary reset), session limits and login records."""

import time

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client

from accounts.middleware import LOGIN_AT_KEY, SEEN_AT_KEY
from accounts.models import LoginEvent, LoginRecord

pytestmark = pytest.mark.django_db


def login(client, username, password):
    return client.post("/login/", {"username": username, "password": password, "next": "/"})


@pytest.mark.parametrize("password, reason", [("short-pass1", "at least 12"), ("olivia_operator1", "similar"),
                                              ("4815162342108", "entirely numeric"), ("password1234", "common")])
def test_staff_passwords_need_twelve_characters_not_like_the_username_not_common_not_numeric(operator, password,
                                                                                             reason):
    with pytest.raises(ValidationError) as refused:
        validate_password(password, operator)
    assert reason in " ".join(refused.value.messages)


def test_players_keep_the_rules_they_had(player):
    validate_password("pat_player1", player)  # similar to the username, 11 characters: still fine for a player
    with pytest.raises(ValidationError):
        validate_password("short", player)


def test_a_player_changes_their_password_with_the_old_one_and_other_sessions_end(client_for, player):
    here, elsewhere = client_for(player), client_for(player)
    wrong = here.post("/me/settings/password/", {"old_password": "nope", "new_password1": "a-new-secret-9",
                                                  "new_password2": "a-new-secret-9"})
    assert wrong.status_code == 400 and player.check_password("pw-pat_player")
    done = here.post("/me/settings/password/", {"old_password": "pw-pat_player", "new_password1": "a-new-secret-9",
                                                 "new_password2": "a-new-secret-9"})
    assert done.status_code == 302 and done["Location"] == "/me/settings/"
    assert here.get("/me/settings/").status_code == 200
    assert elsewhere.get("/me/settings/").status_code == 302  # signed out
    player.refresh_from_db()
    assert player.check_password("a-new-secret-9")


def test_support_resets_a_players_password_once_and_the_player_must_change_it(client_for, player, support):
    from accounts.models import StaffAction, StaffActionKind

    playing = client_for(player)
    page = client_for(support).post(f"/support/players/{player.pk}/password-reset/",
                                    {"reason": "caller verified by date of birth"}, REMOTE_ADDR="192.0.2.44")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert list(StaffAction.objects.values_list("actor", "action", "object_ref", "reason", "address")) == [
        (support.pk, StaffActionKind.PASSWORD_RESET, str(player.pk), "caller verified by date of birth",
         "192.0.2.44")]
    temporary = page.content.decode().split("data-temporary-password>")[1].split("<")[0]
    assert playing.get("/me/settings/").status_code == 302  # their sessions ended
    client = Client()
    assert login(client, "pat_player", temporary).status_code == 302
    assert client.get("/wallet/")["Location"] == "/me/settings/password/?next=%2Fwallet%2F"
    assert client.get("/api/wallet/balances/").json()["code"] == "password_change_required"
    client.post("/me/settings/password/", {"old_password": temporary, "new_password1": "mine-again-77",
                                           "new_password2": "mine-again-77"})
    assert client.get("/wallet/").status_code == 200
    assert "must choose" not in client_for(support).get(f"/support/players/{player.pk}/").content.decode()


def test_a_reset_without_a_reason_changes_nothing(client_for, player, support):
    from accounts.models import StaffAction

    page = client_for(support).post(f"/support/players/{player.pk}/password-reset/", {"reason": "  "})
    assert page.status_code == 302
    player.refresh_from_db()
    assert player.check_password("pw-pat_player")
    assert not StaffAction.objects.exists()


def test_only_lookup_staff_reset_and_never_a_staff_password(client_for, player, operator, support):
    assert client_for(operator).post(f"/support/players/{player.pk}/password-reset/").status_code == 403
    assert client_for(player).post(f"/support/players/{player.pk}/password-reset/").status_code == 403
    assert client_for(support).post(f"/support/players/{operator.pk}/password-reset/",
                                    {"reason": "asked"}).status_code == 403
    assert player.check_password("pw-pat_player") and operator.check_password("pw-olivia_operator")


def _age(client, *, seen_ago: float, login_ago: float | None = None) -> None:
    session = client.session
    now = time.time()
    session[SEEN_AT_KEY] = now - seen_ago
    session[LOGIN_AT_KEY] = now - (login_ago if login_ago is not None else seen_ago)
    session.save()


@pytest.mark.parametrize("persona, idle, stays", [("operator", 29 * 60, True), ("operator", 30 * 60, False),
                                                 ("player", 119 * 60, True), ("player", 120 * 60, False)])
def test_idle_sessions_end_after_30_minutes_for_staff_and_2_hours_for_players(client_for, personas, persona,
                                                                              idle, stays):
    client = client_for(personas[persona])
    _age(client, seen_ago=idle)
    page = "/dashboard/" if persona == "operator" else "/me/settings/"
    assert (client.get(page).status_code == 200) is stays
    if not stays:
        assert LoginRecord.objects.filter(event=LoginEvent.LOGOUT, detail="session expired").exists()


def test_a_busy_session_still_ends_12_hours_after_its_login(client_for, player):
    client = client_for(player)
    _age(client, seen_ago=5, login_ago=12 * 3600)
    assert client.get("/me/settings/").status_code == 302


def test_the_stored_expiry_is_the_idle_limit_and_moves_forward_about_once_a_minute(client_for, operator,
                                                                                  django_assert_num_queries):
    client = client_for(operator)
    assert 29 * 60 < client.session.get_expiry_age() <= 30 * 60
    # The session read with its user (accounts.sessions: the session above was read in this process, so whose
    # it is is known), the verified device: no session write.
    with django_assert_num_queries(2):
        client.get("/verify/")
    _age(client, seen_ago=61, login_ago=61)
    client.get("/verify/")
    assert time.time() - client.session[SEEN_AT_KEY] < 5  # refreshed (one write, once a minute)


def test_logins_logouts_and_failures_are_recorded_with_address_and_browser(client_for, player, settings):
    client = Client(REMOTE_ADDR="192.0.2.10", HTTP_USER_AGENT="A" * 400, HTTP_X_FORWARDED_FOR="198.51.100.1")
    login(client, "pat_player", "wrong")
    login(client, "nobody", "wrong")
    login(client, "pat_player", "pw-pat_player")
    client.post("/logout/")
    settings.TRUSTED_PROXY_COUNT = 1
    login(Client(REMOTE_ADDR="192.0.2.10", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.7"), "pat_player",
          "pw-pat_player")
    rows = list(LoginRecord.objects.order_by("id").values_list("event", "username", "user", "ip_address"))
    assert rows == [(LoginEvent.LOGIN_FAILED, "pat_player", player.pk, "192.0.2.10"),
                    (LoginEvent.LOGIN_FAILED, "nobody", None, "192.0.2.10"),
                    (LoginEvent.LOGIN, "pat_player", player.pk, "192.0.2.10"),
                    (LoginEvent.LOGOUT, "pat_player", player.pk, "192.0.2.10"),
                    (LoginEvent.LOGIN, "pat_player", player.pk, "198.51.100.7")]
    assert len(LoginRecord.objects.order_by("id").first().user_agent) == 300
    page = client_for(player).get("/me/settings/").content.decode()
    assert "Sign-in refused: wrong username or password" in page and "198.51.100.7" in page


def test_support_sees_a_players_last_sign_ins(client_for, player, support):
    login(Client(REMOTE_ADDR="192.0.2.44"), "pat_player", "pw-pat_player")
    page = client_for(support).get(f"/support/players/{player.pk}/").content.decode()
    assert "Last sign-ins" in page and "192.0.2.44" in page


def test_login_records_cannot_be_changed_or_deleted(player):
    login(Client(), "pat_player", "pw-pat_player")
    record = LoginRecord.objects.get()
    for statement in ("UPDATE accounts_loginrecord SET ip_address = '10.0.0.1'", "DELETE FROM accounts_loginrecord"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert LoginRecord.objects.get() == record

"""A session's user is read in the session's own statement once the process knows whose the session is, as
fresh as before: a user who may no longer sign in, or a session that names someone else, is never served."""

import pytest
from django.contrib.auth.models import Group, Permission

from accounts import sessions

pytestmark = pytest.mark.django_db
ME = "/api/players/me/tables/"


def test_the_session_and_its_user_are_one_statement_and_as_fresh_as_two(client_for, player,
                                                                          django_assert_num_queries):
    client = client_for(player)
    assert client.get(ME).status_code == 200  # the process learns whose the session is
    key = client.session.session_key
    assert sessions._owner(key) == player.pk
    with django_assert_num_queries(1) as captured:
        sessions.SessionStore(session_key=key).load()
    assert "auth_permission" in captured.captured_queries[0]["sql"]
    play = Permission.objects.get(codename="play", content_type__app_label="accounts")
    Group.objects.get(name="player").permissions.remove(play)
    assert client.get(ME).status_code == 403
    player.is_active = False
    player.save(update_fields=["is_active"])
    assert client.get(ME).status_code == 403


def test_a_session_naming_another_user_than_the_one_read_with_it_is_read_again(client_for, player, operator):
    client = client_for(player)
    assert client.get(ME).status_code == 200
    key = client.session.session_key
    sessions._owner_learn(key, operator.pk)  # as if the key had changed hands
    sessions.SessionStore(session_key=key).load()
    assert sessions.session_user.get() is None  # the operator read with it is dropped
    assert client.get(ME).status_code == 200  # the player's, read on their own
    assert sessions._owner(key) == player.pk


def test_the_role_in_every_page_header_is_read_with_the_session_and_as_fresh(client_for, player):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(player)
    assert client.get("/me/games/").status_code == 200  # the process learns whose the session is
    with CaptureQueriesContext(connection) as captured:
        page = client.get("/me/games/").content.decode()
    assert '<small class="role">player</small>' in page
    assert not [q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "auth_group"')]
    player.groups.clear()  # a role taken away is gone from the very next page
    home = client.get("/").content.decode()
    assert "a user with no role" in home and 'class="role"' not in home

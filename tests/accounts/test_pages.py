import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_login_page_renders_a_labelled_form(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    body = response.content.decode()
    assert '<label for="id_username">' in body and '<label for="id_password">' in body


def test_login_with_password_then_logout(client, player):
    response = client.post(reverse("login"), {"username": "pat_player", "password": "pw-pat_player"})
    assert response.status_code == 302 and response.url == reverse("home")
    assert "pat_player" in client.get(reverse("home")).content.decode()
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_wrong_password_is_refused_with_a_message(client, player):
    response = client.post(reverse("login"), {"username": "pat_player", "password": "nope"})
    assert response.status_code == 200
    assert "match. Please try again" in response.content.decode()


def test_anonymous_user_is_sent_to_login(client):
    response = client.get(reverse("home"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize(
    ("persona", "status"), [("operator", 200), ("support", 403), ("player", 403), ("player2", 403)]
)
def test_worker_health_page_is_for_operators_only(client_for, personas, persona, status):
    response = client_for(personas[persona]).get(reverse("worker_health"))
    assert response.status_code == status
    if status == 403:
        body = response.content.decode()
        assert "read the operator dashboard" in body and "operator" in body


def test_navigation_shows_each_role_its_own_pages(client_for, personas):
    operator_nav = client_for(personas["operator"]).get(reverse("home")).content.decode()
    player_nav = client_for(personas["player"]).get(reverse("home")).content.decode()
    assert reverse("worker_health") in operator_nav
    assert reverse("worker_health") not in player_nav


def test_roles_come_from_the_data_migration(db):
    from django.contrib.auth.models import Group

    groups = {group.name: {p.codename for p in group.permissions.all()} for group in Group.objects.all()}
    assert groups["operator"] >= {"configure_tables", "void_rounds"}
    assert groups["support"] >= {"lookup_players", "void_rounds", "view_backoffice"}
    assert groups["player"] == {"play"}


def test_unknown_page_is_a_404_page(client_for, player):
    response = client_for(player).get("/no-such-page/")
    assert response.status_code == 404

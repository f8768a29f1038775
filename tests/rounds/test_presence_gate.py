"""The play gate (rounds.presence): every move of the game client needs the player's presence at the round's table
in this session. A session another device took over, or one that never joined or has left, is refused with a
clear 409 and nothing changes."""

import pytest
from django.urls import reverse

from rounds.models import RoundBet, RoundEvent
from tests.helpers import cash, join_table
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db

API = "/api/rounds/"
MOVES = [
    ("bets/", {"currency": "EUR", "bets": {"main": 1000}}),
    ("bets/repeat/", None),
    ("bets/double/", None),
    ("confirm/", None),
    ("leave/", None),
    ("insurance/", {"take": True}),
    ("decisions/", {"action": "stand"}),
    ("continuation/reconnect/", None),
    ("continuation/decisions/", {"action": "stand"}),
]


def post(client, url, data=None, **headers):
    return client.post(url, data or {}, content_type="application/json", headers=headers)


def _counts():
    return RoundBet.objects.count(), RoundEvent.objects.count(), LedgerTransaction.objects.count()


@pytest.fixture
def betting(play, free_bet_table, funded):
    """A round with betting open at FB01 and a player with a stake on it from their current session."""
    round = play(free_bet_table).round
    player = funded(cash=100_00)
    return round, player


@pytest.mark.parametrize(("move", "body"), MOVES, ids=[m for m, _ in MOVES])
def test_a_session_another_device_took_over_is_refused_every_move(client_for, betting, move, body):
    round, player = betting
    old, new = client_for(player), client_for(player)
    join_table(old, "FB01")
    assert post(old, f"{API}{round.game_number}/bets/", {"currency": "EUR", "bets": {"main": 500}}).status_code == 201
    join_table(new, "FB01")  # the same player from another browser: play moves there
    before, balance = _counts(), cash(player)
    response = post(old, f"{API}{round.game_number}/{move}", body)
    assert response.status_code == 409, response.json()
    assert response.json()["code"] == "session_replaced"
    assert "another device or browser" in response.json()["message"]
    assert (_counts(), cash(player)) == (before, balance)


def test_the_session_that_took_over_plays_on(client_for, betting):
    round, player = betting
    old, new = client_for(player), client_for(player)
    join_table(old, "FB01")
    join_table(new, "FB01")
    assert post(new, f"{API}{round.game_number}/bets/", {"currency": "EUR", "bets": {"main": 500}}).status_code == 201
    # and joining back from the first takes play back there
    join_table(old, "FB01")
    refused = post(new, f"{API}{round.game_number}/bets/double/")
    assert (refused.status_code, refused.json()["code"]) == (409, "session_replaced")
    assert post(old, f"{API}{round.game_number}/bets/double/").status_code == 201


@pytest.mark.parametrize(("move", "body"), MOVES, ids=[m for m, _ in MOVES])
def test_a_player_who_never_joined_the_table_is_told_to_join_it(client_for, betting, move, body):
    round, player = betting
    before = _counts()
    response = post(client_for(player), f"{API}{round.game_number}/{move}", body)
    assert (response.status_code, response.json()["code"]) == (409, "not_at_table"), response.json()
    assert "Join table FB01" in response.json()["message"]
    assert _counts() == before


def test_presence_at_another_table_does_not_count(client_for, betting, classic_table):
    round, player = betting
    client = client_for(player)
    join_table(client, classic_table.code)
    response = post(client, f"{API}{round.game_number}/bets/", {"currency": "EUR", "bets": {"main": 500}})
    assert (response.status_code, response.json()["code"]) == (409, "not_at_table")


def test_a_player_who_left_the_table_cannot_bet_at_it(client_for, betting):
    round, player = betting
    client = client_for(player)
    join_table(client, "FB01")
    assert post(client, "/api/players/me/tables/FB01/leave/").json()["left"] is True
    response = post(client, f"{API}{round.game_number}/bets/", {"currency": "EUR", "bets": {"main": 500}})
    assert (response.status_code, response.json()["code"]) == (409, "not_at_table")


def test_each_api_key_is_a_device_of_its_own(client, betting):
    from accounts.services import api_token_create

    round, player = betting
    phone, tablet = (api_token_create(user=player, name=name)[1] for name in ("phone", "tablet"))

    def call(key, url, data=None):
        return client.post(url, data or {}, content_type="application/json", headers={"Authorization": f"Token {key}"})

    bet = {"currency": "EUR", "bets": {"main": 500}}
    assert call(phone, "/api/players/me/tables/FB01/join/").status_code == 200
    assert call(phone, f"{API}{round.game_number}/bets/", bet).status_code == 201
    assert call(tablet, "/api/players/me/tables/FB01/join/").status_code == 200
    refused = call(phone, f"{API}{round.game_number}/bets/", bet)
    assert (refused.status_code, refused.json()["code"]) == (409, "session_replaced")
    assert call(tablet, f"{API}{round.game_number}/bets/double/").status_code == 201


def test_a_tip_from_a_replaced_session_is_refused_and_says_why(client_for, funded):
    from tests.factories import TableFactory

    TableFactory(code="PL01", state="open", currencies=["EUR"])
    player = funded(cash=100_00)
    old, new = client_for(player), client_for(player)
    old.post(reverse("player_table_join", args=["PL01"]))
    new.post(reverse("player_table_join", args=["PL01"]))
    response = old.post(reverse("player_table_tip", args=["PL01"]),
                        {"currency": "EUR", "amount": "2.00", "idempotency_key": "tip-1"})
    assert response.status_code == 409
    assert "from another window or device, so you have left it here" in response.content.decode()
    assert cash(player) == 100_00

"""The races over HTTP: concurrent bets through the live server keep the table maximum, and a bet that cannot
get its locks in time is a JSON 409 that changed nothing, never a 500."""

import json
import threading
import urllib.error
import urllib.request

import pytest
from django.db import connection

from rounds.models import Round, RoundBet
from tests.helpers import RowLock, cash, join_table
from tests.rounds.test_api import API, post

pytestmark = pytest.mark.django_db(transaction=True)


def api_key(user) -> str:
    from accounts.services import api_token_create

    return api_token_create(user=user, name="race client")[1]


def http_post(url: str, key: str, body: dict) -> tuple[int, dict]:
    # The game client authenticates each request with its API key (accounts.tokens), as a real one does.
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Token {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the test's own server
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_concurrent_main_bets_over_http_cannot_pass_the_table_maximum(live_server, client_for, operator,
                                                                      free_bet_table, funded):
    player = funded(cash=10_000_00)
    opened = post(client_for(operator), API, {"table": "FB01"}).json()
    round = Round.objects.get(game_number=opened["game_number"])
    main = round.config["limits"]["main"]["EUR"]
    url = f"{live_server.url}{API}{round.game_number}/bets/"
    key = api_key(player)
    assert http_post(f"{live_server.url}/api/players/me/tables/FB01/join/", key, {})[0] == 200
    assert http_post(url, key, {"currency": "EUR", "bets": {"main": main["min"]}})[0] == 201
    stake = main["max"] * 6 // 10 // 2 * 2
    barrier = threading.Barrier(4)
    answers = []

    def bet():
        barrier.wait()
        answers.append(http_post(url, key, {"currency": "EUR", "bets": {"main": stake}}))

    threads = [threading.Thread(target=bet) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201, 400, 400, 400], answers
    assert {body["code"] for status, body in answers if status == 400} == {"bet_limit"}
    assert sum(RoundBet.objects.filter(round=round).values_list("amount", flat=True)) == main["min"] + stake


def test_a_bet_that_cannot_get_its_lock_in_time_is_a_json_409_and_changes_nothing(client_for, operator, funded,
                                                                                  free_bet_table):
    player = funded()
    game = post(client_for(operator), API, {"table": "FB01"}).json()["game_number"]
    client = client_for(player)
    join_table(client, "FB01")
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '100ms'")  # this session's: the view runs on it
    try:
        with RowLock("SELECT id FROM rounds_round WHERE game_number = %s FOR UPDATE", [game]):
            response = post(client, f"{API}{game}/bets/", {"currency": "EUR", "bets": {"main": 1000}})
        assert response.status_code == 409, response.content
        assert response.json()["code"] == "busy" and "nothing was changed" in response.json()["message"]
        assert RoundBet.objects.count() == 0 and cash(player) == 1_000_00
        assert post(client, f"{API}{game}/bets/", {"currency": "EUR", "bets": {"main": 1000}}).status_code == 201
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")

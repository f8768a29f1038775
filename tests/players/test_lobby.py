"""The lobby (API and the player's tables page) and pauses told to players (the round's API view, the table page,
the lobby) until the table resumes or the round is cancelled."""

import pytest
from django.urls import reverse

from rounds import services
from rounds.table_now import PAUSED_MESSAGE
from tables.models import BetLimit
from tests.factories import RoundTableFactory
from tests.helpers import join_table

pytestmark = pytest.mark.django_db

LOBBY = "/api/players/tables/"


def by_code(rows):
    return {row["code"]: row for row in rows}


def test_the_lobby_tells_each_tables_limits_dealing_profile_seats_and_features(client_for, player, funded, play):
    eu = RoundTableFactory(profile="classic", code="LB01", currencies=["EUR", "GBP"])
    us = RoundTableFactory(profile="classic", code="LB02", dealing="us_peek_before", multi_game=False)
    common = RoundTableFactory(profile="free_bet", code="FB01")
    RoundTableFactory(profile="classic", code="SHUT", state="closed")
    seated = funded(cash=100_00)
    play(eu).bet(seated, {"main": 1000}, seat=3)
    client = client_for(player)
    join_table(client, "FB01")
    rows = by_code(client.get(LOBBY).json())
    assert set(rows) == {"LB01", "LB02", "FB01"}  # a closed table is not in the lobby
    lb01, lb02, fb01 = rows["LB01"], rows["LB02"], rows["FB01"]
    main = {limit.currency: limit for limit in BetLimit.objects.filter(table=eu, bet_type="main")}
    assert [(x["currency"], x["min"], x["max"]) for x in lb01["main_limits"]] == [
        (c, main[c].min, main[c].max) for c in ("EUR", "GBP")]
    assert lb01["main_limits"][0]["min_text"].endswith("EUR")
    assert (lb01["dealing"], lb02["dealing"], fb01["dealing"]) == ("eu", "us", "us")
    assert lb01["dealing_text"].startswith("European") and lb02["dealing_text"].startswith("American")
    assert lb01["profile"] == "classic" and "seven seats" in lb01["profile_text"]
    assert (lb01["seats"], lb01["seats_free"], lb01["seats_text"]) == (eu.seats, eu.seats - 1,
                                                                      f"{eu.seats - 1} of {eu.seats} seats free")
    assert (fb01["seats"], fb01["seats_free"]) == (None, None) and "everyone" in fb01["seats_text"]
    assert (lb01["bet_behind"], fb01["bet_behind"]) == (eu.bet_behind, False)
    assert (lb01["multi_game"], lb02["multi_game"]) == (True, False) and "on its own" in lb02["multi_game_text"]
    assert {code: row["state"] for code, row in rows.items()} == {"LB01": "open", "LB02": "open", "FB01": "open"}
    assert (fb01["seated"], fb01["here"], lb01["seated"]) == (True, True, False)
    assert us.pk and common.pk


def test_the_tables_page_shows_the_lobby(client_for, player):
    RoundTableFactory(profile="classic", code="LB02", dealing="us_peek_before", multi_game=False)
    page = client_for(player).get(reverse("player_tables")).content.decode()
    assert "American: the dealer takes a face-down second card" in page
    assert "seats free" in page and "Played on its own" in page and "Main bet" in page


def test_a_pause_is_told_to_players_until_the_table_resumes(client_for, operator, player, funded, play):
    table = RoundTableFactory(profile="free_bet", code="FB01")
    round = play(table).round
    client = client_for(player)
    join_table(client, "FB01")
    view = f"/api/rounds/{round.game_number}/"
    assert client.get(view).json()["paused"] is None
    studio = client_for(operator)
    assert studio.post("/api/rounds/tables/FB01/pause/", {"reason": "card reader fault at shoe 2"},
                       content_type="application/json").status_code == 200
    paused = client.get(view).json()["paused"]
    assert paused["message"] == PAUSED_MESSAGE and paused["since"]
    assert client.get("/api/rounds/tables/FB01/current/").json()["paused"]["message"] == PAUSED_MESSAGE
    page = client.get(reverse("player_table", args=["FB01"]), headers={"HX-Request": "true"}).content.decode()
    assert "Paused" in page and "paused while the studio sorts out a problem" in page
    assert "card reader" not in page and "card reader" not in str(client.get(view).json())  # staff words stay staff's
    lobby = by_code(client.get(LOBBY).json())["FB01"]
    assert lobby["state"] == "paused" and lobby["paused"]["message"] == PAUSED_MESSAGE
    assert "paused while the studio" in client.get(reverse("player_tables")).content.decode()
    assert studio.post("/api/rounds/tables/FB01/resume/", content_type="application/json").status_code == 200
    assert client.get(view).json()["paused"] is None
    assert "paused while" not in client.get(reverse("player_table", args=["FB01"])).content.decode()
    assert by_code(client.get(LOBBY).json())["FB01"]["paused"] is None


def test_a_cancelled_round_no_longer_says_paused(client_for, operator, support, player, play):
    table = RoundTableFactory(profile="free_bet", code="FB01")
    round = play(table).round
    client = client_for(player)
    join_table(client, "FB01")
    services.table_pause(table=table, actor=operator, reason="camera down")
    assert client.get(f"/api/rounds/{round.game_number}/").json()["paused"]["message"] == PAUSED_MESSAGE
    services.round_void(round_id=round.pk, reason="camera down for good", actor=support)
    assert client.get(f"/api/rounds/{round.game_number}/").json()["paused"] is None

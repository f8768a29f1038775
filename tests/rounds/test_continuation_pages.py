"""The non-live continuation on the pages: support's round page, the player's game page and game history show it
apart from the live hand (carried-over cards, drawn cards, decisions with times, result), in plain words."""

import re

import pytest
from django.urls import reverse

from rounds.game_history import player_game_history
from rounds.models import Continuation, RoundState
from tests.rounds.test_continuation import _live_round_finish, _seated_round
from tests.rounds.test_e2e import ApiTable

pytestmark = [pytest.mark.worker]


def _plain(response) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def _continued_round(client_for, operator, a, b):
    table = ApiTable(client_for, operator, "LB01")
    _seated_round(table, a, b)
    table.cards("Th", "9c", "7s", "6d", "9h")
    table.ok(table.client(a), table.url("leave/"))
    _live_round_finish(table, b)
    return table


def test_the_pages_show_an_unfinished_continuation_apart_from_the_live_seat(
    celery_worker, client_for, operator, support, classic_table, funded
):
    a, b = funded(), funded()
    table = _continued_round(client_for, operator, a, b)
    round = table.round
    assert round.state == RoundState.SETTLED
    staff = _plain(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    assert "Non-live continuation" in staff and "The player disconnected after betting closed" in staff
    assert "Carried over from the live round Th 6d; dealer 7s" in staff and "No decision taken yet" in staff
    assert "The live seat, played on by the timeout rule" in staff
    assert "waiting for the player to reconnect" in staff and "Non-live continuation in play" in staff
    # The history does not call the round lost on the side bet alone while the continuation is open.
    row = player_game_history(player=a).rows[0]
    assert row.result == "non-live continuation in play" and row.net is None and row.spot_nets is None
    games = _plain(client_for(a).get(reverse("player_games")))
    assert "Non-live continuation in play" in games


def test_the_pages_show_a_finished_continuation_with_its_drawn_cards_decisions_and_result(
    celery_worker, client_for, operator, support, classic_table, funded
):
    a, b = funded(), funded()
    table = _continued_round(client_for, operator, a, b)
    round = table.round
    table.ok(table.client(a), table.url("continuation/reconnect/"))
    hit = table.client(a).post(table.url("continuation/decisions/"), {"action": "hit", "seat": 1},
                               content_type="application/json", HTTP_IDEMPOTENCY_KEY="p1")
    assert hit.status_code == 200
    continuation = Continuation.objects.get(round=round)
    if continuation.finished_at is None:
        stand = table.client(a).post(table.url("continuation/decisions/"), {"action": "stand", "seat": 1},
                                     content_type="application/json", HTTP_IDEMPOTENCY_KEY="p2")
        assert stand.status_code == 200
    continuation.refresh_from_db()
    net = continuation.settlement["net"]
    drawn = continuation.stream[0]  # the hit: the first card the server drew for the hand
    mine = _plain(client_for(a).get(reverse("player_game", args=[round.game_number])))
    assert "You disconnected after betting closed" in mine
    assert f"Drawn by the server {drawn} to the hand" in mine
    assert "hit the player" in mine  # the decision, with its time and who took it
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d 1 hit the player", mine)
    assert "finished by the player" in mine
    expected = "Won" if net > 0 else "Lost" if net < 0 else "Even"
    assert f"Non-live continuation {expected}" in mine
    # The game's net is the side bet settled live plus the continuation's own result.
    row = player_game_history(player=a).rows[0]
    assert row.net == {"EUR": -100 + net} and row.spot_nets == {"seat1": -100 + net}
    assert row.result == ("won" if -100 + net > 0 else "lost" if -100 + net < 0 else "even")
    staff = _plain(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    assert "finished by the player" in staff and f"{drawn} to the hand" in staff

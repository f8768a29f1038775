"""Sitting at tables through the game-client API: join (add a table), leave (a disconnection during a round),
switch (leave one, join another in one step), and tables not played alongside others (multi_game off)."""

import pytest

from players.models import PresenceEnd, TablePresence
from rounds.models import RoundBet, RoundEvent
from tables.models import Table, TableChange
from tests.factories import RoundTableFactory
from tests.helpers import cash

pytestmark = pytest.mark.django_db

ME = "/api/players/me/tables/"


def post(client, url, data=None):
    return client.post(url, data or {}, content_type="application/json")


def live(player) -> set[str]:
    return set(TablePresence.objects.filter(player=player, ended_at__isnull=True).values_list("table__code", flat=True))


@pytest.fixture
def three(db):
    """FB01 and LB01 play alongside others; SOLO is played on its own."""
    return (RoundTableFactory(profile="free_bet", code="FB01"), RoundTableFactory(profile="classic", code="LB01"),
            RoundTableFactory(profile="classic", code="SOLO", multi_game=False))


def test_a_player_adds_tables_and_lists_them_here_and_elsewhere(client_for, player, three):
    phone, laptop = client_for(player), client_for(player)
    assert post(phone, f"{ME}FB01/join/").json()["table"] == "FB01"
    assert post(laptop, f"{ME}LB01/join/").status_code == 200
    mine = {row["table"]: row["here"] for row in phone.get(ME).json()}
    assert mine == {"FB01": True, "LB01": False}
    assert post(phone, f"{ME}NOPE/join/").status_code == 404


def test_a_table_played_on_its_own_refuses_a_player_at_other_tables_and_the_other_way(client_for, player, three):
    client = client_for(player)
    post(client, f"{ME}FB01/join/")
    refused = post(client, f"{ME}SOLO/join/")
    assert (refused.status_code, refused.json()["code"]) == (409, "not_alongside_others")
    assert "SOLO is played on its own, and you are at FB01" in refused.json()["message"]
    assert live(player) == {"FB01"}
    post(client, f"{ME}FB01/leave/")
    assert post(client, f"{ME}SOLO/join/").status_code == 200
    refused = post(client, f"{ME}LB01/join/")
    assert (refused.status_code, refused.json()["code"]) == (409, "not_alongside_others")
    assert "You are at table SOLO, which is played on its own" in refused.json()["message"]
    # another device taking SOLO over is no second table
    assert post(client_for(player), f"{ME}SOLO/join/").status_code == 200
    assert live(player) == {"SOLO"}


def test_switching_tables_works_where_adding_does_not_and_is_one_step(client_for, player, three):
    client = client_for(player)
    post(client, f"{ME}FB01/join/")
    switched = post(client, f"{ME}FB01/switch/", {"to": "SOLO"})
    assert switched.status_code == 200 and switched.json()["table"] == "SOLO"
    assert live(player) == {"SOLO"}
    assert TablePresence.objects.get(player=player, table__code="FB01").end_reason == PresenceEnd.LEFT
    assert post(client, f"{ME}SOLO/switch/", {"to": "LB01"}).status_code == 200
    assert live(player) == {"LB01"}


def test_a_refused_switch_changes_nothing(client_for, player, three):
    client = client_for(player)
    post(client, f"{ME}FB01/join/")
    post(client, f"{ME}LB01/join/")
    before = list(TablePresence.objects.order_by("id").values_list("id", "ended_at"))
    # SOLO would be beside LB01 still
    refused = post(client, f"{ME}FB01/switch/", {"to": "SOLO"})
    assert (refused.status_code, refused.json()["code"]) == (409, "not_alongside_others")
    Table.objects.filter(code="SOLO").update(state="closed")
    for body, status, code in (({"to": "SOLO"}, 409, "table_not_open"), ({"to": "FB01"}, 400,
                                                                          "invalid_player_request"),
                               ({"to": "NOPE"}, 404, "not_found"), ({}, 400, "invalid")):
        answer = post(client, f"{ME}FB01/switch/", body)
        assert (answer.status_code, answer.json()["code"]) == (status, code), answer.json()
    # a session that is not at the table it switches from
    answer = post(client_for(player), f"{ME}FB01/switch/", {"to": "LB01"})
    assert (answer.status_code, answer.json()["code"]) == (409, "not_at_table")
    assert list(TablePresence.objects.order_by("id").values_list("id", "ended_at")) == before


def test_leaving_during_a_round_is_a_disconnection_and_a_replaced_session_cannot_leave(
    client_for, play, free_bet_table, funded
):
    player = funded(cash=100_00)
    round = play(free_bet_table).round
    old, new = client_for(player), client_for(player)
    post(old, f"{ME}FB01/join/")
    assert post(old, f"/api/rounds/{round.game_number}/bets/",
                {"currency": "EUR", "bets": {"main": 1000}}).status_code == 201
    post(new, f"{ME}FB01/join/")
    ignored = post(old, f"{ME}FB01/leave/").json()
    assert ignored == {"table": "FB01", "left": False, "disconnection": None}
    assert not RoundEvent.objects.filter(round=round, kind="disconnected").exists()
    left = post(new, f"{ME}FB01/leave/").json()
    assert left["left"] is True
    assert left["disconnection"]["policy"] == "void_while_betting" and left["disconnection"]["refunded"] is True
    assert RoundEvent.objects.filter(round=round, kind="disconnected").count() == 1
    assert live(player) == set()
    assert RoundBet.objects.filter(round=round).count() == 1  # held, then refunded by the void of the spot
    assert cash(player) == 100_00


def test_multi_game_is_a_versioned_setting_the_round_snapshot_carries(operator, three):
    from tables import services

    solo = three[2]
    version = solo.config_version
    services.table_update(table=solo, actor=operator, multi_game=True, reason="open to multi-game")
    solo.refresh_from_db()
    assert solo.multi_game is True and solo.config_version == version + 1
    change = TableChange.objects.filter(table=solo).latest("id")
    assert (change.before["multi_game"], change.after["multi_game"]) == (False, True)
    from tables.selectors import table_config_snapshot

    assert table_config_snapshot(solo)["features"]["multi_game"] is True


def test_switching_away_during_a_round_disconnects_from_it_and_a_refused_switch_does_not(
    client_for, play, funded, three
):
    player = funded(cash=100_00)
    round = play(three[0]).round  # FB01
    client = client_for(player)
    post(client, f"{ME}FB01/join/")
    post(client, f"{ME}LB01/join/")
    assert post(client, f"/api/rounds/{round.game_number}/bets/",
                {"currency": "EUR", "bets": {"main": 1000}}).status_code == 201
    assert post(client, f"{ME}FB01/switch/", {"to": "SOLO"}).status_code == 409  # LB01 is still beside it
    assert not RoundEvent.objects.filter(round=round, kind="disconnected").exists()
    assert cash(player) == 100_00 - 1000
    post(client, f"{ME}LB01/leave/")
    assert post(client, f"{ME}FB01/switch/", {"to": "SOLO"}).status_code == 200
    assert RoundEvent.objects.filter(round=round, kind="disconnected").count() == 1
    assert cash(player) == 100_00 and live(player) == {"SOLO"}  # void_while_betting: the stake came back

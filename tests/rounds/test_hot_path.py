"""The game client's bet request stays lean: the statements it runs, the user and permission read that
sees a role change at once, and the per-process config memo that can never serve another round's row."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission

from rounds import selectors, snapshots
from rounds.models import Round
from tests.helpers import join_table
from tests.rounds.test_api import API, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_round(client_for, operator, free_bet_table):
    response = post(client_for(operator), API, {"table": "FB01"})
    assert response.status_code == 201, response.json()
    return response.json()["game_number"]


def test_a_bet_request_runs_a_bounded_number_of_statements(client_for, player, open_round,
                                                          django_assert_max_num_queries):
    from wallet import services as wallet

    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="dep")
    client = client_for(player)
    join_table(client, "FB01")
    assert post(client, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": 1000}}).status_code == 201
    # The session, the user with their permissions, the round id, the player's presence at its table (the play
    # gate, rounds.presence), then bets_place: its transaction (a savepoint pair here, BEGIN and COMMIT outside a
    # test), the request row, the round lock, the spots, the wallet's one statement (wallet.sql hold_one_account)
    # in its savepoint pair, the bets, the event and the request's result: 15; and the player's
    # responsible-gambling state in one statement (responsible.checks.bet_allowed): 16. (bench/http_bench.py
    # counted 13 besides BEGIN and COMMIT, with the connection's health check, before the gate and that read; it
    # counted 21, then 15, before the one-statement hold.)
    with django_assert_max_num_queries(16):
        response = post(client, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": 1000}})
    assert response.status_code == 201, response.json()


def test_taking_the_play_permission_from_the_role_refuses_the_next_bet(client_for, player, open_round):
    from wallet import services as wallet

    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="dep")
    client = client_for(player)
    join_table(client, "FB01")
    url, body = f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": 1000}}
    assert post(client, url, body).status_code == 201
    play = Permission.objects.get(codename="play", content_type__app_label="accounts")
    Group.objects.get(name="player").permissions.remove(play)
    assert post(client, url, body).status_code == 403
    player.user_permissions.add(play)  # a permission of the user's own counts as well
    assert post(client, url, body).status_code == 201
    player.is_active = False
    player.save(update_fields=["is_active"])
    assert post(client, url, body).status_code == 403


def test_the_config_memo_serves_only_the_round_it_was_read_for(play, free_bet_table):
    r = play(free_bet_table)
    round = Round.objects.get(pk=r.id)
    first = selectors.round_rules(round)
    assert selectors.round_rules(Round.objects.get(pk=r.id)) is first  # parsed once
    # The same id with another game number or opening time (a re-created database) is read again.
    other = Round.objects.get(pk=r.id)
    other.game_number, other.opened_at = "XX01-20200101-000000", round.opened_at - timedelta(days=1)
    other.config = {**round.config, "rules": {**round.config["rules"]}}
    assert snapshots.snapshot(other).game_number == "XX01-20200101-000000"
    assert snapshots.snapshot(round).game_number == round.game_number

"""The bet request's lean door: the body read as BetPlaceSerializer reads it, the round and the play gate in
one statement, and a bet request of three statements in all."""

import pytest
from rest_framework.exceptions import ValidationError

from rounds.api.serializers import BetPlaceSerializer, BetResultSerializer, bet_place_data, bet_result_data
from tests.helpers import join_table
from tests.rounds.test_api import API, post

BODIES = [
    {"currency": "EUR", "bets": {"main": 1000}},
    {"currency": "EUR", "bets": {"main": 1000, "hot3": 200}, "seat": None, "behind": False, "extra": 1},
    {"currency": "EUR", "bets": {"main": 1000}, "seat": 3, "behind": True},
    {"currency": "EUR", "bets": {}},
    {"currency": "EUR", "bets": {"main": "1000"}},  # coerced by the serializer
    {"currency": "EUR", "bets": {"main": 10.0}},
    {"currency": "EUR", "bets": {"main": True}},
    {"currency": "EUR", "bets": {"main": "ten"}},
    {"currency": " EUR ", "bets": {"main": 1000}},
    {"currency": "EURO", "bets": {"main": 1000}},
    {"currency": "", "bets": {"main": 1000}},
    {"currency": 978, "bets": {"main": 1000}},
    {"currency": "E\x00R", "bets": {"main": 1000}},
    {"currency": "EUR", "bets": {"main": 1000}, "seat": "2", "behind": "true"},
    {"currency": "EUR", "bets": {"main": 1000}, "seat": True},
    {"currency": "EUR", "bets": {"main": 1000}, "behind": None},
    {"currency": "EUR", "bets": [1000]},
    {"currency": "EUR"},
    {"bets": {"main": 1000}},
    [],
    "EUR",
]


def serializer_answer(body):
    serializer = BetPlaceSerializer(data=body)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    return ("invalid", serializer.errors)


def lean_answer(body):
    try:
        return dict(bet_place_data(body))
    except ValidationError as error:
        return ("invalid", error.detail)


@pytest.mark.parametrize("body", BODIES)
def test_the_lean_read_of_a_bet_body_answers_as_the_serializer(body):
    assert lean_answer(body) == serializer_answer(body)


@pytest.mark.parametrize("result", [
    {"spot": 1, "bets": [2, 3]}, {"spot": 1, "bets": [2], "replayed": True}, {"spots": [1, 4], "bets": [2, 5]},
])
def test_the_bet_result_is_what_the_serializer_gives(result):
    assert bet_result_data(result) == BetResultSerializer(result).data


@pytest.mark.django_db
def test_a_common_draw_bet_request_is_three_statements(client_for, operator, player, free_bet_table,
                                                      django_assert_num_queries):
    from wallet import services as wallet

    response = post(client_for(operator), API, {"table": "FB01"})
    game_number = response.json()["game_number"]
    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="dep")
    client = client_for(player)
    join_table(client, "FB01")
    url, body = f"{API}{game_number}/bets/", {"currency": "EUR", "bets": {"main": 1000}}
    assert post(client, url, body).status_code == 201
    # The session with its user and their permissions (accounts.sessions), the round with the session's presence
    # at its table, the placement (rounds.placement_sql).
    with django_assert_num_queries(3):
        response = post(client, url, body)
    assert response.status_code == 201, response.json()
    assert set(response.json()) == {"spot", "bets", "replayed"}

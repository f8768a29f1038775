"""The rounds API: who may call what, JSON errors for every refusal, idempotency keys, paging, the schema."""

import pytest
from django.urls import include, path

from rounds.models import RoundBet
from tests.helpers import cash, join_table

pytestmark = pytest.mark.django_db

API = "/api/rounds/"


def post(client, url, data=None, **headers):
    return client.post(url, data or {}, content_type="application/json", headers=headers)


@pytest.fixture
def open_round(client_for, operator, free_bet_table):
    response = post(client_for(operator), API, {"table": "FB01"})
    assert response.status_code == 201, response.json()
    return response.json()["game_number"]


@pytest.mark.parametrize(("persona", "status"), [("operator", 201), ("support", 403), ("player", 403), (None, 403)])
def test_only_studio_staff_open_rounds(client_for, personas, free_bet_table, persona, status):
    response = post(client_for(personas.get(persona)), API, {"table": "FB01"})
    assert response.status_code == status
    if status == 403:
        assert response.json()["code"] in ("permission_denied", "not_authenticated")


@pytest.mark.parametrize(("persona", "status"), [("player", 201), ("operator", 403), ("support", 403)])
def test_only_players_bet(client_for, personas, open_round, persona, status):
    from wallet import services as wallet

    user = personas[persona]
    wallet.deposit(player=user, currency="EUR", amount=100_00, idempotency_key=f"d-{persona}")
    client = client_for(user)
    if persona == "player":
        join_table(client, "FB01")
    response = post(client, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": 1000}})
    assert response.status_code == status


@pytest.mark.parametrize(("persona", "void_status", "record_status"), [
    ("support", 200, 200), ("operator", 200, 200), ("player", 403, 403),
])
def test_staff_void_and_read_records_players_do_not(client_for, personas, open_round, persona, void_status,
                                                    record_status):
    client = client_for(personas[persona])
    assert client.get(f"{API}{open_round}/record/").status_code == record_status
    response = post(client, f"{API}{open_round}/void/", {"reason": "camera failure"})
    assert response.status_code == void_status
    if void_status == 200:
        assert response.json()["state"] == "voided"


def test_bad_input_gets_a_json_error_and_never_a_500(client_for, operator, player, open_round):
    studio, gamer = client_for(operator), client_for(player)
    join_table(gamer, "FB01")
    cases = [
        (post(studio, f"{API}{open_round}/cards/", {"card": "Zz"}), 400, "invalid_card"),
        (post(studio, f"{API}{open_round}/cards/", {"card": "Ah"}), 409, "card_refused"),
        (post(studio, f"{API}NOPE-1/cards/", {"card": "Ah"}), 404, "not_found"),
        (post(studio, f"{API}{open_round}/cards/", {}), 400, "invalid"),
        (post(studio, f"{API}{open_round}/dealer-complete/"), 409, "illegal_transition"),
        (post(studio, API, {"table": "NOPE"}), 404, "not_found"),
        (post(gamer, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": "lots"}}), 400, "invalid"),
        (post(gamer, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": {"main": 1000}}), 409,
         "insufficient_funds"),
        (post(gamer, f"{API}{open_round}/bets/", {"currency": "EUR", "bets": []}), 400, "invalid"),
        (post(gamer, f"{API}{open_round}/decisions/", {"action": "surrender"}), 400, "invalid"),
        (post(gamer, f"{API}{open_round}/decisions/", {"action": "hit"}), 409, "illegal_transition"),
        (post(gamer, f"{API}{open_round}/insurance/", {"take": "maybe"}), 400, "invalid"),
        (post(studio, f"{API}{open_round}/void/", {}), 400, "invalid"),
        (post(studio, f"{API}{open_round}/reverse/", {"reason": "x"}), 409, "illegal_transition"),
        (post(studio, f"{API}tables/FB01/pause/", {"reason": ""}), 400, "invalid"),
        (post(studio, f"{API}tables/FB01/shoe/", {"burn_card": "7h"}), 409, "illegal_transition"),
        (studio.get(f"{API}?state=bogus"), 400, "invalid"),
        (gamer.get(f"{API}"), 403, "permission_denied"),
    ]
    for response, status, code in cases:
        body = response.json()
        assert (response.status_code, body["code"]) == (status, code), (response.request["PATH_INFO"], body)
        assert body["message"]


def test_a_retried_bet_with_the_same_idempotency_key_is_held_once(client_for, player, open_round):
    from wallet import services as wallet

    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="dep")
    client = client_for(player)
    join_table(client, "FB01")
    body = {"currency": "EUR", "bets": {"main": 1000, "hot3": 100}}
    first = post(client, f"{API}{open_round}/bets/", body, **{"Idempotency-Key": "k-1"})
    again = post(client, f"{API}{open_round}/bets/", body, **{"Idempotency-Key": "k-1"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == {**first.json(), "replayed": True}
    assert RoundBet.objects.count() == 2 and cash(player) == 100_00 - 1100
    other = post(client, f"{API}{open_round}/bets/", {**body, "bets": {"main": 2000}}, **{"Idempotency-Key": "k-1"})
    assert (other.status_code, other.json()["code"]) == (409, "idempotency_conflict")


def test_my_rounds_are_paged_newest_first_by_cursor(client_for, operator, player, free_bet_table):
    from rounds import services
    from wallet import services as wallet

    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="dep")
    numbers = []
    for index in range(3):
        round = services.round_open(table=free_bet_table, actor=operator)
        services.bets_place(round_id=round.pk, player=player, currency="EUR", bets={"main": 1000},
                            idempotency_key=f"b{index}")
        services.round_void(round_id=round.pk, actor=operator, reason="test")
        services.round_void_refunds(round_id=round.pk)
        numbers.append(round.game_number)
    client = client_for(player)
    page = client.get(f"{API}mine/?page_size=2").json()
    assert [row["game_number"] for row in page["results"]] == numbers[:0:-1]
    assert page["results"][0]["staked"] == {"EUR": 1000} and page["results"][0]["returned"] == {"EUR": 1000}
    rest = client.get(page["next"]).json()
    assert [row["game_number"] for row in rest["results"]] == [numbers[0]] and rest["next"] is None
    assert client_for(operator).get(f"{API}mine/").status_code == 403


def test_the_rounds_schema_builds_without_warnings(client_for, operator):
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    schema = SchemaGenerator(patterns=[path("api/rounds/", include("rounds.api_urls"))]).get_schema(public=True)
    assert not GENERATOR_STATS, "drf-spectacular warned about the rounds API"
    assert "/api/rounds/{game_number}/decisions/" in schema["paths"]
    headers = schema["paths"]["/api/rounds/{game_number}/bets/"]["post"]["parameters"]
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in headers)
    assert client_for(operator).get("/api/schema/").status_code == 200

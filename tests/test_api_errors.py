"""Every app's API answers every error with the same body, {"code", "message"} (and "fields" for invalid input):
DRF's refusals, our services' refusals, Django's own 404 under /api/, parser errors, throttling and a database
that cannot answer in time."""

import json

import pytest
from django.db import connection, connections
from rest_framework.exceptions import Throttled

from casino.api_errors import exception_handler
from tests.factories import new_key

pytestmark = pytest.mark.django_db



def error_of(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) <= {"code", "message", "fields"} and {"code", "message"} <= set(body), body
    assert isinstance(body["code"], str) and body["code"] and isinstance(body["message"], str) and body["message"]
    if "fields" in body:
        assert isinstance(body["fields"], dict), body
    if code is not None:
        assert body["code"] == code, body
    return body


def send(client, method, url, body=None, content_type="application/json", **headers):
    data = body if isinstance(body, str) else json.dumps(body or {})
    return client.generic(method, url, data, content_type=content_type, headers=headers)


@pytest.fixture
def game(client_for, operator, classic_table):
    response = send(client_for(operator), "POST", "/api/rounds/", {"table": classic_table.code})
    assert response.status_code == 201
    return response.json()["game_number"]


APP_READS = ["/api/wallet/balances/", "/api/tables/", "/api/rounds/mine/", "/api/players/me/settings/"]


@pytest.mark.parametrize("url", APP_READS)
def test_a_visitor_is_told_to_sign_in(client_for, url):
    response = client_for(None).get(url)
    assert response.status_code in (401, 403)
    error_of(response, response.status_code, "not_authenticated")


@pytest.mark.parametrize("url", ["/api/wallet/balances/", "/api/rounds/mine/", "/api/players/me/settings/"])
def test_a_role_without_the_permission_is_refused(client_for, support, url):
    body = error_of(client_for(support).get(url), 403, "permission_denied")
    assert "play" in body["message"]  # it says which permission is missing


@pytest.mark.parametrize("url", ["/api/tables/NOPE/", "/api/rounds/NOPE-1/", "/api/rounds/tables/NOPE/current/",
                                 "/api/wallet/players/999999/balances/"])
def test_an_object_that_does_not_exist_is_404(client_for, operator, url):
    error_of(client_for(operator).get(url), 404)


@pytest.mark.parametrize("url", ["/api/nowhere/", "/api/wallet/players/abc/balances/", "/api/players/me/",
                                 "/api/rounds/mine/?cursor=not-a-cursor"])
def test_djangos_own_404_under_api_is_the_same_json(client_for, player, url):
    error_of(client_for(player).get(url), 404, "not_found")


def test_a_404_outside_the_api_is_still_the_page(client_for, player):
    response = client_for(player).get("/nowhere/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(("method", "url"), [("DELETE", "/api/wallet/balances/"), ("PUT", "/api/tables/"),
                                             ("DELETE", "/api/rounds/mine/"), ("POST", "/api/players/me/settings/")])
def test_a_method_the_operation_does_not_offer_is_405(client_for, player, method, url):
    error_of(send(client_for(player), method, url), 405, "method_not_allowed")


def test_invalid_input_is_400_in_every_app(client_for, player, operator, game):
    gamer = client_for(player)
    error_of(gamer.get("/api/wallet/history/?limit=0"), 400, "invalid_request")
    body = error_of(client_for(operator).get("/api/tables/?state=bogus"), 400, "invalid")
    assert "state" in body["fields"]
    body = error_of(send(gamer, "POST", f"/api/rounds/{game}/bets/", {"currency": "EUR"}), 400, "invalid")
    assert "bets" in body["fields"]
    error_of(send(gamer, "PUT", "/api/players/me/settings/", {"sound_volume": 500}), 400, "invalid")


def test_a_view_refusal_in_one_sentence_is_the_message(client_for, operator, game):
    body = error_of(client_for(operator).get(f"/api/rounds/{game}/stats/"), 400, "invalid")
    assert body["message"] == "Decision statistics are served for common-draw rounds only."


@pytest.mark.parametrize(("method", "url"), [("POST", "/api/wallet/deposit/"), ("POST", "/api/rounds/{game}/bets/"),
                                             ("PUT", "/api/players/me/settings/")])
def test_a_body_that_is_not_json_is_400_and_an_unknown_media_type_415(client_for, player, game, method, url):
    client, url = client_for(player), url.format(game=game)
    error_of(send(client, method, url, '{"currency": "EUR",', **{"Idempotency-Key": new_key()}), 400, "parse_error")
    error_of(send(client, method, url, "currency=EUR", content_type="text/plain",
                  **{"Idempotency-Key": new_key()}), 415, "unsupported_media_type")


def test_a_refusal_of_the_state_is_409_in_every_app_that_has_one(client_for, player, operator, game):
    from wallet import services

    services.deposit(player=player, currency="EUR", amount=100, idempotency_key=new_key())
    body = {"currency": "EUR", "amount": 200}
    error_of(send(client_for(player), "POST", "/api/wallet/withdraw/", body, **{"Idempotency-Key": new_key()}), 409,
             "insufficient_funds")
    error_of(send(client_for(operator), "POST", f"/api/rounds/{game}/dealer-complete/"), 409, "illegal_transition")


def test_throttling_answers_429_with_the_same_body_and_when_to_retry():
    response = exception_handler(Throttled(wait=7), {})
    assert response.status_code == 429 and response["Retry-After"] == "7"
    assert response.data["code"] == "throttled" and "7 seconds" in response.data["message"]


@pytest.mark.django_db(transaction=True)
def test_a_lock_that_cannot_be_had_in_time_is_409_busy_and_changes_nothing(client_for, roles):
    """Another transaction holds the player's cash account; the deposit gives up after its lock timeout: a
    collision, answered 409 busy (casino.api_errors: a database that is away is the 503)."""
    from accounts.services import user_create
    from wallet import selectors, services
    from wallet.models import Account

    pat = user_create(username="pat_waits", password="pw-pat_waits", role="player")
    services.deposit(player=pat, currency="EUR", amount=1000, idempotency_key=new_key())
    account = Account.objects.get(player=pat, kind="player_cash")
    client = client_for(pat)
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT id FROM wallet_account WHERE id = %s FOR UPDATE", [account.pk])
            with connection.cursor() as mine:
                mine.execute("SET lock_timeout = '200ms'")
            try:
                response = send(client, "POST", "/api/wallet/deposit/", {"currency": "EUR", "amount": 5000},
                                **{"Idempotency-Key": new_key()})
            finally:
                with connection.cursor() as mine:
                    mine.execute("RESET lock_timeout")
            cursor.execute("ROLLBACK")
    finally:
        other.close()
    error_of(response, 409, "busy")
    assert selectors.player_balance(player=pat, currency="EUR") == 1000


def test_the_schema_documents_the_errors_of_every_operation_with_the_one_body():
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert not GENERATOR_STATS, "drf-spectacular warned while building the schema"
    error_schemas = {name for name in schema["components"]["schemas"] if "error" in name.lower()}
    assert error_schemas == {"ApiError"}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            codes = {int(code) for code in responses}
            for code in codes - set(range(400)):
                ref = responses[str(code)]["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/ApiError", (method, path, code)
            assert {401, 403, 503} <= codes, (method, path)
            assert 404 in codes or "{" not in path, (method, path)
            assert {400, 415} <= codes or "requestBody" not in operation, (method, path)
            assert any(200 <= code < 300 for code in codes), (method, path)

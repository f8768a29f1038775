"""Game clients use revocable API keys (no CSRF), the browser its session (CSRF checked); no Basic auth."""

import base64
import hashlib

import pytest
from django.test import Client

from accounts.models import ApiToken

pytestmark = pytest.mark.django_db

TOKENS = "/api/auth/tokens/"


def create(client, name="phone"):
    return client.post(TOKENS, {"name": name}, content_type="application/json")


def test_a_player_creates_a_key_shown_once_and_stored_only_as_a_digest(client_for, player):
    response = create(client_for(player))
    assert response.status_code == 201
    key = response.json()["key"]
    token = ApiToken.objects.get()
    assert token.digest == hashlib.sha256(key.encode()).hexdigest() and key not in str(token.__dict__)
    assert token.prefix == key[:8]
    listed = client_for(player).get(TOKENS).json()
    assert [row["name"] for row in listed] == ["phone"] and "key" not in listed[0]


def test_a_key_authenticates_without_csrf_and_revoking_it_ends_it(client_for, player):
    key = create(client_for(player)).json()["key"]
    game = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {key}")
    assert game.get("/api/wallet/balances/").status_code == 200
    assert game.post("/api/wallet/deposit/", {"currency": "EUR", "amount": 500}, content_type="application/json",
                     headers={"Idempotency-Key": "k1"}).status_code == 201
    token_id = ApiToken.objects.get().pk
    assert game.delete(f"{TOKENS}{token_id}/").status_code == 204
    refused = game.get("/api/wallet/balances/")
    # 403, not 401: the session scheme comes first, so every API refusal keeps one status (as before keys).
    assert refused.status_code == 403 and refused.json()["message"] == "This API key is unknown or revoked."


def test_a_session_write_without_its_csrf_token_is_refused(client_for, player):
    client = client_for(player, enforce_csrf_checks=True)
    response = client.post("/api/wallet/deposit/", {"currency": "EUR", "amount": 500},
                           content_type="application/json", headers={"Idempotency-Key": "k2"})
    assert response.status_code == 403 and "CSRF" in response.json()["message"]


def test_basic_auth_is_not_accepted(player):
    credentials = base64.b64encode(b"pat_player:pw-pat_player").decode()
    client = Client(HTTP_AUTHORIZATION=f"Basic {credentials}")
    assert client.get("/api/wallet/balances/").status_code == 403


def test_a_player_cannot_revoke_another_players_key_but_support_can(client_for, player, player2, support):
    create(client_for(player))
    token = ApiToken.objects.get()
    assert client_for(player2).delete(f"{TOKENS}{token.pk}/").status_code == 404
    assert client_for(support).delete(f"{TOKENS}{token.pk}/").status_code == 204
    token.refresh_from_db()
    assert token.revoked_at is not None and token.revoked_by == support


def test_support_revokes_every_key_of_a_player_from_the_player_page(client_for, player, support):
    create(client_for(player), "phone"), create(client_for(player), "tablet")
    page = client_for(support).get(f"/support/players/{player.pk}/").content.decode()
    assert "phone (" in page and "tablet (" in page
    response = client_for(support).post(f"/support/players/{player.pk}/api-keys/revoke/")
    assert response.status_code == 302
    assert not ApiToken.objects.filter(revoked_at__isnull=True).exists()


def test_staff_cannot_hold_keys_and_a_bad_name_is_a_400(client_for, player, operator):
    assert create(client_for(operator)).status_code == 403
    assert create(client_for(player), "").status_code == 400
    assert not ApiToken.objects.exists()


def test_a_malformed_or_unknown_key_is_refused_with_the_reason(player):
    malformed = Client(HTTP_AUTHORIZATION="Token").get("/api/wallet/balances/")
    assert malformed.status_code == 403 and "must be `Token <key>`" in malformed.json()["message"]
    unknown = Client(HTTP_AUTHORIZATION="Token nope").get("/api/wallet/balances/")
    assert unknown.status_code == 403 and "unknown or revoked" in unknown.json()["message"]


def test_a_key_request_runs_one_statement_to_authenticate(client_for, player, django_assert_num_queries):
    key = create(client_for(player)).json()["key"]
    game = Client(HTTP_AUTHORIZATION=f"Token {key}")
    game.get("/api/players/me/settings/")
    with django_assert_num_queries(2):  # the key's user with permissions, then the profile read
        assert game.get("/api/players/me/settings/").status_code == 200


def test_the_schema_documents_both_ways_in(client_for, player):
    schema = client_for(player).get("/api/schema/?format=json").json()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["apiToken"] == {"type": "apiKey", "in": "header", "name": "Authorization",
                                   "description": schemes["apiToken"]["description"]}
    assert "cookieAuth" in schemes and "basicAuth" not in schemes

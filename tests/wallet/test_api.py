"""The wallet API for the game client and the back office: JSON in and out, errors as {"code", "message"}."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from tests.factories import DepositFactory, new_key
from wallet import selectors
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db


def post(client, name, body, key=None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post(reverse(name), body, content_type="application/json", **headers)


def test_balances_list_the_players_own_accounts(client_for, player, player2):
    DepositFactory(player=player, amount=12_34)
    DepositFactory(player=player2, amount=99_00)
    response = client_for(player).get(reverse("api_wallet_balances"))
    assert response.status_code == 200
    assert [(a["kind"], a["currency"], a["balance"], a["balance_display"]) for a in response.json()] == [
        ("player_cash", "EUR", 12_34, "12.34 EUR")]


def test_deposit_then_a_repeat_with_the_same_key_moves_money_once(client_for, player):
    client = client_for(player)
    first = post(client, "api_wallet_deposit", {"currency": "EUR", "amount": 50_00}, key="k-1")
    assert first.status_code == 201
    assert first.json() | {"created_at": None} == {
        "transaction_id": first.json()["transaction_id"], "kind": "deposit", "currency": "EUR", "amount": 50_00,
        "balance": 50_00, "created_at": None, "replayed": False}
    again = post(client, "api_wallet_deposit", {"currency": "EUR", "amount": 50_00}, key="k-1")
    assert (again.status_code, again.json()) == (201, {**first.json(), "replayed": True})
    assert (again["Idempotent-Replayed"], again["Location"]) == ("true", first["Location"])
    assert "Idempotent-Replayed" not in first
    conflict = post(client, "api_wallet_deposit", {"currency": "EUR", "amount": 60_00}, key="k-1")
    assert conflict.status_code == 409 and conflict.json()["code"] == "idempotency_conflict"
    withdrawn = post(client, "api_wallet_withdraw", {"currency": "EUR", "amount": 20_00}, key="k-2")
    assert withdrawn.status_code == 201 and withdrawn.json()["balance"] == 30_00
    assert selectors.player_balance(player=player, currency="EUR") == 30_00


@pytest.mark.parametrize(
    ("name", "body", "key", "status", "code"),
    [
        ("api_wallet_deposit", {"currency": "EUR", "amount": 10_00}, None, 400, "idempotency_key_required"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": 10_00}, "", 400, "idempotency_key_required"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": 0}, "k", 400, "invalid_amount"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": -5}, "k", 400, "invalid_amount"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": 12.5}, "k", 400, "invalid_amount"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": "ten"}, "k", 400, "invalid_amount"),
        ("api_wallet_deposit", {"currency": "EUR"}, "k", 400, "invalid_request"),
        ("api_wallet_deposit", {"currency": "XYZ", "amount": 10_00}, "k", 400, "unknown_currency"),
        ("api_wallet_deposit", {"currency": "EUR", "amount": 10**9}, "k", 400, "limit_exceeded"),
        ("api_wallet_deposit", ["not", "an", "object"], "k", 400, "invalid_request"),
        ("api_wallet_withdraw", {"currency": "EUR", "amount": 10_01}, "k", 409, "insufficient_funds"),
        ("api_wallet_withdraw", {"currency": "USD", "amount": 1_00}, "k", 400, "currency_mismatch"),
    ],
)
def test_bad_requests_get_a_specific_code_and_move_nothing(client_for, player, name, body, key, status, code):
    DepositFactory(player=player, amount=10_00)
    response = post(client_for(player), name, body, key=key)
    assert response.status_code == status
    assert response.json()["code"] == code and response.json()["message"]
    assert LedgerTransaction.objects.count() == 1


def test_history_pages_with_a_cursor_link(client_for, player):
    for amount in (1_00, 2_00, 3_00):
        DepositFactory(player=player, amount=amount)
    client = client_for(player)
    first = client.get(reverse("api_wallet_history"), {"limit": 2}).json()
    assert [row["amount"] for row in first["results"]] == [3_00, 2_00]
    assert first["account"]["balance"] == 6_00
    second = client.get(first["next"]).json()
    assert [row["amount"] for row in second["results"]] == [1_00] and second["next"] is None
    assert client.get(reverse("api_wallet_history"), {"limit": 0}).json()["code"] == "invalid_request"
    assert client.get(reverse("api_wallet_history"), {"before": "x"}).status_code == 400


def test_a_player_reads_no_one_elses_wallet(client_for, player, player2):
    DepositFactory(player=player, amount=10_00)
    theirs = Account.objects.get(player=player).pk
    client = client_for(player2)
    response = client.get(reverse("api_wallet_history"), {"account": theirs})
    assert response.status_code == 404 and response.json()["code"] == "unknown_account"
    for name in ("api_wallet_player_balances", "api_wallet_player_history"):
        denied = client.get(reverse(name, args=[player.pk]))
        assert denied.status_code == 403 and "10.00" not in denied.content.decode()


def test_staff_read_any_players_wallet_but_cannot_use_it(client_for, personas):
    DepositFactory(player=personas["player"], amount=10_00)
    client = client_for(personas["support"])
    balances = client.get(reverse("api_wallet_player_balances", args=[personas["player"].pk])).json()
    assert [b["balance"] for b in balances] == [10_00]
    history = client.get(reverse("api_wallet_player_history", args=[personas["player"].pk])).json()
    assert [row["kind"] for row in history["results"]] == ["deposit"]
    assert client.get(reverse("api_wallet_player_balances", args=[424242])).status_code == 404
    assert post(client, "api_wallet_deposit", {"currency": "EUR", "amount": 10_00}, key=new_key()).status_code == 403


def test_anonymous_requests_are_refused(client):
    assert client.get(reverse("api_wallet_balances")).status_code == 403


def test_the_schema_documents_the_idempotency_header(client_for, player):
    schema = client_for(player).get(reverse("api-schema"), {"format": "json"}).json()
    deposit = schema["paths"]["/api/wallet/deposit/"]["post"]
    assert {"name": "Idempotency-Key", "in": "header"}.items() <= deposit["parameters"][0].items()
    assert {"201", "400", "409"} <= set(deposit["responses"])
    assert "/api/wallet/players/{user_id}/history/" in schema["paths"]


@pytest.mark.no_audit
def test_ledger_audit_command_passes_a_sound_ledger_and_fails_a_broken_one(player, capsys):
    DepositFactory(player=player, amount=10_00)
    call_command("ledger_audit")
    assert "Ledger sound" in capsys.readouterr().out
    Account.objects.filter(player=player).update(balance=9_00)
    with pytest.raises(CommandError, match="1 discrepancies"):
        call_command("ledger_audit")
    assert f"account={Account.objects.get(player=player).pk}" in capsys.readouterr().err

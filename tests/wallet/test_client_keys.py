"""Idempotency keys that come with requests: scoped to their user and operation, out of the system's reach, and
refusals that say nothing about anyone else's keys, transactions or bets."""

import re

import pytest
from django.urls import reverse

from accounts.services import user_create
from tests.factories import TableFactory, new_key
from tests.helpers import golden_chips_grant_post
from wallet import selectors, services
from wallet.errors import InvalidIdempotencyKey
from wallet.keys import LEDGER_KEY_MAX_LENGTH, client_key
from wallet.models import LedgerTransaction, TransactionKind

pytestmark = pytest.mark.django_db


def api(client, name, body, key):
    return client.post(reverse(name), body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)


def cashier(client, operation: str, amount_minor: int, key: str):
    """The cashier page's two steps: the review of the amount, then its confirmation."""
    from tests.helpers import confirm_fields

    review = client.post(reverse("wallet_cashier"), {
        "step": "review", "operation": operation, "currency": "EUR", "amount": f"{amount_minor / 100:.2f}",
        "idempotency_key": key})
    if 'name="review"' not in review.content.decode():
        return review
    return client.post(reverse("wallet_cashier"), confirm_fields(review), follow=True)


def test_two_players_may_send_the_same_key_and_each_gets_their_own_deposit(client_for, player, player2):
    first = api(client_for(player), "api_wallet_deposit", {"currency": "EUR", "amount": 10_00}, "same-key")
    second = api(client_for(player2), "api_wallet_deposit", {"currency": "EUR", "amount": 20_00}, "same-key")
    assert (first.status_code, second.status_code) == (201, 201), second.json()
    assert not second.json()["replayed"]
    assert (selectors.player_balance(player=player, currency="EUR"),
            selectors.player_balance(player=player2, currency="EUR")) == (10_00, 20_00)


def test_a_withdrawal_above_the_balance_answers_the_same_whether_another_player_used_the_key(
        client_for, player, player2):
    # player2's deposit takes the key first; player then asks for more than they hold with that key.
    assert api(client_for(player2), "api_wallet_deposit", {"currency": "EUR", "amount": 50_00}, "taken").status_code \
        == 201
    services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    client = client_for(player)
    with_taken = api(client, "api_wallet_withdraw", {"currency": "EUR", "amount": 30_00}, "taken")
    with_fresh = api(client, "api_wallet_withdraw", {"currency": "EUR", "amount": 30_00}, new_key())
    assert (with_taken.status_code, with_taken.json()) == (with_fresh.status_code, with_fresh.json())
    assert with_taken.json()["code"] == "insufficient_funds"
    assert selectors.player_balance(player=player, currency="EUR") == 10_00


def test_reusing_my_key_for_another_request_is_refused_without_naming_any_transaction(client_for, player):
    client = client_for(player)
    first = api(client, "api_wallet_deposit", {"currency": "EUR", "amount": 50_00}, "mine")
    conflict = api(client, "api_wallet_deposit", {"currency": "EUR", "amount": 60_00}, "mine")
    assert (conflict.status_code, conflict.json()["code"]) == (409, "idempotency_conflict")
    message = conflict.json()["message"]
    assert "different deposit" in message and "new key" in message
    assert "transaction" not in message and not re.search(r"\d", message), message
    assert str(first.json()["transaction_id"]) not in message


def test_a_request_cannot_take_a_key_the_system_derives(client_for, player):
    """A player who deposits with `round7:settle` reserves nothing of round 7's: the key is stored in the
    player's own namespace, and the wallet refuses plain keys in that namespace from any caller."""
    response = api(client_for(player), "api_wallet_deposit", {"currency": "EUR", "amount": 10_00}, "round7:settle")
    assert response.status_code == 201
    stored = LedgerTransaction.objects.get(pk=response.json()["transaction_id"]).idempotency_key
    assert stored == f"client:{player.pk}:deposit:round7:settle"
    assert not LedgerTransaction.objects.filter(idempotency_key="round7:settle").exists()
    with pytest.raises(InvalidIdempotencyKey, match="client_key"):
        services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=stored)
    with pytest.raises(InvalidIdempotencyKey, match="client_key"):
        services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=f"client:{player.pk + 1}:x")


def test_client_keys_never_meet_across_users_or_operations_and_fit_the_ledger(player, player2):
    made = {client_key(user=user, operation=op, key=key)
            for user in (player, player2) for op in ("deposit", "withdraw") for key in ("a", "a:b", "b")}
    assert len(made) == 12
    # A user id that ends where another begins cannot be confused: the colon after the id ends it.
    assert client_key(user=player, operation="deposit", key="1:x") != f"client:{player.pk}1:deposit:x"
    longest = client_key(user=player, operation="d" * 32, key="k" * 200)
    assert len(longest) <= LEDGER_KEY_MAX_LENGTH <= LedgerTransaction._meta.get_field("idempotency_key").max_length
    txn = services.deposit(player=player, currency="EUR", amount=10_00,
                           idempotency_key=client_key(user=player, operation="deposit", key="k" * 200))
    assert not txn.replayed
    for bad in ("", "   ", "k" * 201, None):
        with pytest.raises(InvalidIdempotencyKey):
            client_key(user=player, operation="deposit", key=bad)


def test_a_key_check_runs_after_input_validation(client_for, player):
    client = client_for(player)
    assert api(client, "api_wallet_deposit", {"currency": "EUR", "amount": 50_00}, "k").status_code == 201
    # Same key, a request that fails validation: the validation error, not a word about the key.
    too_big = api(client, "api_wallet_deposit", {"currency": "EUR", "amount": 10**9}, "k")
    assert (too_big.status_code, too_big.json()["code"]) == (400, "limit_exceeded")
    no_currency = api(client, "api_wallet_deposit", {"amount": 10_00}, "k")
    assert (no_currency.status_code, no_currency.json()["code"]) == (400, "invalid_request")


def test_the_cashier_form_scopes_its_key_to_the_player_and_operation(client_for, player, player2):
    services.deposit(player=player2, currency="EUR", amount=100_00, idempotency_key=new_key())
    taken = cashier(client_for(player2), "withdraw", 10_00, "form-key")
    assert "Withdrew 10.00 EUR." in taken.content.decode()
    mine = cashier(client_for(player), "deposit", 25_00, "form-key")
    assert "Deposited 25.00 EUR." in mine.content.decode()
    # The same key for my other operation is a new request of that operation (here refused for funds alone, at
    # its review already).
    short = cashier(client_for(player), "withdraw", 30_00, "form-key")
    assert short.status_code == 400 and "You have 25.00 EUR in cash" in short.content.decode()
    assert selectors.player_balance(player=player, currency="EUR") == 25_00
    assert list(LedgerTransaction.objects.filter(actor=player).values_list("idempotency_key", flat=True)) == [
        f"client:{player.pk}:deposit:form-key"]


def test_the_tip_form_scopes_its_key_to_the_player(client_for, player, player2):
    TableFactory(code="TK01", state="open", currencies=["EUR"])
    url = reverse("player_table_tip", args=["TK01"])
    for user in (player, player2):
        services.deposit(player=user, currency="EUR", amount=20_00, idempotency_key=new_key())
        client = client_for(user)
        client.post(reverse("player_table_join", args=["TK01"]))
        assert client.post(url, {"currency": "EUR", "amount": "2.50", "idempotency_key": "tip-key"}).status_code \
            == 302
        assert selectors.player_balance(player=user, currency="EUR") == 20_00 - 250
    assert LedgerTransaction.objects.filter(kind=TransactionKind.TIP).count() == 2


def test_the_golden_chip_grant_form_scopes_its_key_to_the_operator(client_for, operator, player, player2):
    other = user_create(username="otto_operator", password="pw-otto", role="operator")
    for staff, receiver in ((operator, player), (other, player2)):
        _, response = golden_chips_grant_post(client_for(staff), receiver, amount="5.00", reason="Welcome",
                                              key="grant-key")
        assert f"5.00 EUR in Golden Chips granted to {receiver.get_username()}" in response.content.decode()
    assert LedgerTransaction.objects.filter(kind=TransactionKind.GOLDEN_CHIP_GRANT).count() == 2

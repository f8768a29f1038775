"""No request can reach the keys a round derives for its money: a player who sends `round<id>:settle` (or the
void's, or another player's insurance key) through any door of the wallet stops nothing. And the keys a round
derives from a player's own request keys are scoped to that player and operation."""

import pytest
from django.urls import reverse
from django.utils import timezone

from rounds import services
from rounds.models import RoundBet, RoundRequest, RoundState
from tests.helpers import cash
from tests.rounds.test_play import LATER
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db


def deposit_with_key(client, key: str, amount: int = 10_00):
    response = client.post(reverse("api_wallet_deposit"), {"currency": "EUR", "amount": amount},
                           content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 201, response.json()
    return response


def test_a_deposit_with_a_rounds_settle_key_does_not_stop_it_settling(client_for, play, classic_table, funded):
    victim, attacker = funded(), funded()
    r = play(classic_table)
    r.bet(victim, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "6c", "Kd")
    r.decide(victim, "stand", seat=1)
    r.cards("Ts", "9s")
    r.complete()
    deposit_with_key(client_for(attacker), f"round{r.id}:settle")
    assert r.settle().state == RoundState.SETTLED
    assert cash(victim) == 1_000_00 + 1000
    assert LedgerTransaction.objects.filter(idempotency_key=f"round{r.id}:settle", kind="payout").exists()


def test_a_cashier_deposit_with_another_players_insurance_key_does_not_block_their_insurance(
        client_for, play, free_bet_table, funded):
    victim, attacker = funded(), funded()
    r = play(free_bet_table)
    r.bet(victim, {"main": 1000})
    r.close()
    r.cards("9h", "As", "9d", "Kc")
    assert r.refresh().state == RoundState.INSURANCE
    from tests.helpers import confirm_fields

    review = client_for(attacker).post(reverse("wallet_cashier"), {
        "step": "review", "operation": "deposit", "currency": "EUR", "amount": "10.00",
        "idempotency_key": f"round{r.id}:insurance:{victim.pk}"})
    response = client_for(attacker).post(reverse("wallet_cashier"), confirm_fields(review), follow=True)
    assert "Deposited 10.00 EUR." in response.content.decode()
    r.insurance(victim, True)
    r.advance(now=timezone.now() + LATER)
    r.settle()
    assert cash(victim) == 1_000_00  # main lost, insurance paid 2:1
    assert cash(attacker) == 1_000_00 + 10_00


def test_a_tip_with_a_rounds_void_key_does_not_stop_its_refunds(client_for, operator, play, free_bet_table,
                                                                funded):
    victim, attacker = funded(), funded()
    r = play(free_bet_table)
    r.bet(victim, {"main": 1000})
    client = client_for(attacker)
    client.post(reverse("player_table_join", args=[free_bet_table.code]))
    tipped = client.post(reverse("player_table_tip", args=[free_bet_table.code]),
                         {"currency": "EUR", "amount": "1.00", "idempotency_key": f"round{r.id}:void"})
    assert tipped.status_code == 302
    services.round_void(round_id=r.id, actor=operator, reason="camera failure")
    assert services.round_void_refunds(round_id=r.id) is True
    assert r.refresh().refunds_done_at is not None
    assert cash(victim) == 1_000_00 and cash(attacker) == 1_000_00 - 100


def test_my_bet_keys_are_scoped_to_me_and_the_operation(play, classic_table, funded):
    """Place with key "K:0", then double with key "K": the double's first ledger key used to be the place's."""
    player, other = funded(), funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1, key="K:0")
    r.bet(other, {"main": 1000}, seat=2, key="K:0")  # another player's same key is theirs alone
    doubled = services.bets_double(round_id=r.id, player=player, idempotency_key="K")
    assert not doubled.get("replayed")
    assert cash(player) == 1_000_00 - 2000 and cash(other) == 1_000_00 - 1000
    assert RoundBet.objects.filter(spot__player=player).count() == 2
    keys = set(LedgerTransaction.objects.filter(kind="bet").values_list("idempotency_key", flat=True))
    assert keys == {f"client:{player.pk}:bets_place:K:0", f"client:{other.pk}:bets_place:K:0",
                    f"client:{player.pk}:bets_double:K:0"}


def test_a_key_used_for_one_operation_is_free_for_another(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000}, key="same")
    r.close()
    r.cards("9h", "As", "9d", "Kc")
    answer = services.insurance_decide(round_id=r.id, player=player, take=False, idempotency_key="same")
    assert not answer.get("replayed")
    assert list(RoundRequest.objects.filter(user=player).order_by("id").values_list("operation", "key")) == [
        ("bets_place", "same"), ("insurance", "same")]
    again = services.insurance_decide(round_id=r.id, player=player, take=False, idempotency_key="same")
    assert again == {**answer, "replayed": True}

"""The game client's double and split offers tell the truth: `double_funded` / `split_funded` say whether the
player's cash covers the paid action at that moment (the wallet's own balance read), so an offer that reads
funded is played as offered and one that does not would fall back (docs/rules.md, Not enough balance)."""

import pytest
from django.urls import reverse

from tests.factories import new_key
from wallet import services as wallet

pytestmark = pytest.mark.django_db


def offer(client_for, player, r) -> dict:
    response = client_for(player).get(reverse("api_round", args=[r.round.game_number]))
    assert response.status_code == 200, response.content
    [spot] = [spot for spot in response.json()["spots"] if spot["mine"]]
    return spot["decision"]


def deposit(player, amount: int) -> None:
    wallet.deposit(player=player, currency="EUR", amount=amount, idempotency_key=new_key())


def withdraw(player, amount: int) -> None:
    wallet.withdraw(player=player, currency="EUR", amount=amount, idempotency_key=new_key())


def test_a_player_with_no_cash_left_is_offered_a_paid_double_and_split_as_unfunded_until_money_arrives(
    client_for, play, classic_table, funded
):
    player = funded(cash=1000)
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)  # the last 10.00 EUR
    r.close()
    r.cards("8h", "6c", "8d")  # EU: seat 1 holds 8-8 against a 6
    point = offer(client_for, player, r)
    assert point["actions"] == ["hit", "stand", "double", "split"]
    assert (point["double"], point["double_cost"], point["double_funded"]) == ("paid", 1000, False)
    assert (point["split"], point["split_cost"], point["split_funded"]) == ("paid", 1000, False)
    deposit(player, 1099)
    withdraw(player, 100)  # 9.99 EUR: one cent short
    point = offer(client_for, player, r)
    assert (point["double_funded"], point["split_funded"]) == (False, False)
    deposit(player, 100)  # 10.99 EUR
    point = offer(client_for, player, r)
    assert (point["double_funded"], point["split_funded"]) == (True, True)
    assert r.decide(player, "split", seat=1)["funded"] is True  # what the offer said


def test_an_offer_read_as_unfunded_is_played_as_its_fallback(client_for, play, classic_table, funded):
    player = funded(cash=1500)
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("6h", "6c", "5d")  # 11 against a 6
    point = offer(client_for, player, r)
    assert (point["double"], point["double_funded"]) == ("paid", False)  # 5.00 EUR left of 10.00
    result = r.decide(player, "double", seat=1)
    assert (result["effective"], result["funded"]) == ("hit", False)


def test_a_golden_chip_position_doubles_with_cash_so_its_chips_never_make_an_offer_funded(
    client_for, play, classic_table, funded
):
    player = funded(cash=0, golden_chips=5000)
    r = play(classic_table)
    r.bet(player, {"golden_chip": 1000}, seat=1)  # 40.00 EUR of chips left, no cash
    r.close()
    r.cards("5h", "6c", "6d")  # 11 against a 6
    point = offer(client_for, player, r)
    assert (point["double"], point["double_cost"], point["double_funded"]) == ("paid", 1000, False)
    deposit(player, 1000)
    point = offer(client_for, player, r)
    assert point["double_funded"] is True
    result = r.decide(player, "double", seat=1)
    assert (result["effective"], result["funded"]) == ("double", True)


def test_a_free_double_is_funded_without_any_cash(client_for, play, free_bet_table, funded):
    player = funded(cash=1000)
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.close()
    r.cards("7h", "Ts", "4d", "7c")  # hard 11: a free double
    point = offer(client_for, player, r)
    assert (point["double"], point["double_cost"], point["double_funded"]) == ("free", 0, True)

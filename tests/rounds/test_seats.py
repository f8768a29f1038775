"""Multi Seat seat changes while betting is open: move to a free seat with the bets, or give one seat up and get
its bets back; never with confirmed bets, never a stake released twice."""

import pytest

from rounds import errors, selectors, services
from rounds.models import RoundEvent, Spot
from tests.factories import RoundTableFactory, new_key
from tests.helpers import cash, join_table
from tests.rounds.test_concurrency import race
from wallet.models import BetResolution, LedgerTransaction

START = 1_000_00


def move(r, player, from_seat, to_seat, key=None):
    return services.seat_move(round_id=r.id, player=player, from_seat=from_seat, to_seat=to_seat,
                              idempotency_key=key or new_key())


def give_up(r, player, seat, key=None):
    return services.seat_give_up(round_id=r.id, player=player, seat=seat, idempotency_key=key or new_key())


def seats_of(r, player) -> list[int]:
    return sorted(Spot.objects.filter(round=r.round, player=player, voided_at__isnull=True, behind=False)
                  .values_list("seat", flat=True))


@pytest.mark.django_db
def test_a_player_moves_to_a_free_seat_with_the_bets_and_no_money_moves(play, classic_table, funded):
    player, other = funded(), funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000, "21+3": 500}, seat=2)
    r.bet(other, {"main": 1000}, seat=4)
    transactions = LedgerTransaction.objects.count()
    assert move(r, player, 2, 6)["seat"] == 6
    assert seats_of(r, player) == [6] and LedgerTransaction.objects.count() == transactions
    with pytest.raises(errors.BetRefused, match="Seat 4 is taken by another player"):
        move(r, player, 6, 4)
    with pytest.raises(errors.BetRefused, match="no bet on seat 2"):
        move(r, player, 2, 3)
    with pytest.raises(errors.BetRefused, match="from 1 to 7"):
        move(r, player, 6, 9)
    # Seat 2 is free again, and the round deals to seat 4 then seat 6, as the audit trail also says.
    r.bet(funded(), {"main": 1000}, seat=2)
    record = selectors.round_record_from_events(r.round).record
    assert sorted(s.seat for s in record.spots if not s.voided) == [2, 4, 6]
    r.close()
    assert [r.cards(card)[0]["seat"] for card in ("Th", "9c", "8d")] == [2, 4, 6]
    assert RoundEvent.objects.filter(round=r.round, kind="spot_moved").count() == 1


@pytest.mark.django_db
def test_giving_up_one_seat_returns_its_bets_and_keeps_the_others(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.bet(player, {"main": 2000, "perfect_pairs": 500}, seat=2)
    result = give_up(r, player, 2)
    assert len(result["returned"]) == 2 and seats_of(r, player) == [1]
    assert cash(player) == START - 1000
    with pytest.raises(errors.BetRefused, match="no bet on seat 2"):
        give_up(r, player, 2)


@pytest.mark.django_db
def test_seats_do_not_change_once_bets_are_confirmed_or_betting_closed(play, funded):
    table = RoundTableFactory(profile="classic", code="LBH2", auto_confirm=False)
    player = funded()
    r = play(table)
    r.bet(player, {"main": 1000}, seat=1)
    r.bet(player, {"main": 1000}, seat=2)
    services.bets_confirm(round_id=r.id, player=player)
    with pytest.raises(errors.BetRefused, match="confirmed: seats can no longer change"):
        move(r, player, 1, 3)
    with pytest.raises(errors.BetRefused, match="confirmed: seats can no longer change"):
        give_up(r, player, 2)
    r.close()
    with pytest.raises(errors.IllegalTransition, match="Betting is closed"):
        move(r, player, 1, 3)


@pytest.mark.django_db
def test_the_seat_api_moves_and_gives_up_seats(client_for, personas, play, classic_table):
    from wallet import services as wallet

    pat = personas["player"]
    wallet.deposit(player=pat, currency="EUR", amount=100_00, idempotency_key=new_key())
    r = play(classic_table)
    r.bet(pat, {"main": 1000}, seat=1)
    r.bet(pat, {"main": 1000}, seat=2)
    client = client_for(pat)
    join_table(client, classic_table.code)  # the game client sits at the table first (rounds.presence)
    base = f"/api/rounds/{r.round.game_number}/seats/"
    assert client.post(base + "move/", {"from_seat": 1, "to_seat": "x"},
                       content_type="application/json").status_code == 400
    moved = client.post(base + "move/", {"from_seat": 1, "to_seat": 5}, content_type="application/json")
    assert moved.status_code == 200 and moved.json()["seat"] == 5
    given = client.post(base + "give-up/", {"seat": 2}, content_type="application/json")
    assert given.status_code == 200 and len(given.json()["returned"]) == 1
    assert cash(pat) == 100_00 - 1000 and seats_of(r, pat) == [5]


@pytest.mark.django_db(transaction=True)
def test_two_players_moving_to_one_free_seat_at_once_get_one_seat_and_one_refusal(play, classic_table, funded):
    a, b = funded(), funded()
    r = play(classic_table)
    r.bet(a, {"main": 1000}, seat=1)
    r.bet(b, {"main": 1000}, seat=2)
    results = race(lambda: move(r, a, 1, 7), lambda: move(r, b, 2, 7))
    moved = [res for res in results if isinstance(res, dict)]
    refused = [res for res in results if not isinstance(res, dict)]
    assert len(moved) == 1 and len(refused) == 1, results
    assert isinstance(refused[0], errors.BetRefused) and "taken" in str(refused[0])
    assert Spot.objects.filter(round=r.round, seat=7, voided_at__isnull=True).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_seat_given_up_twice_at_once_returns_its_bets_once(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.bet(player, {"main": 2000}, seat=3)
    first, second = race(lambda: give_up(r, player, 3), lambda: give_up(r, player, 3))
    assert sorted(type(res).__name__ for res in (first, second)) == ["BetRefused", "dict"], (first, second)
    assert cash(player) == START - 1000 and BetResolution.objects.count() == 1

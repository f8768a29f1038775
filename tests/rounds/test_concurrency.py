"""Requests that race: the database, not luck, decides (run on PostgreSQL with real concurrent connections)."""

import threading

import pytest
from django.db import connection

from rounds import errors, services
from rounds.models import RoundBet, RoundEvent, Spot
from tests.factories import new_key
from tests.helpers import cash
from wallet import errors as wallet_errors


def race(*calls):
    """Run the calls at the same moment, each on its own connection; returns each result or exception."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects what each caller got
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


@pytest.mark.django_db(transaction=True)
def test_a_bet_retried_at_the_same_moment_with_one_key_is_held_once(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)

    def place():
        return services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                   idempotency_key="same-tap")

    first, second = race(place, place)
    assert sorted([first.get("replayed", False), second.get("replayed", False)]) == [False, True]
    assert RoundBet.objects.count() == 1 and cash(player) == 1_000_00 - 1000


@pytest.mark.django_db(transaction=True)
def test_two_players_taking_one_seat_at_once_get_one_seat_and_one_clear_refusal(play, seated_table, funded):
    a, b = funded(), funded()
    r = play(seated_table)

    def take(player):
        return lambda: services.bets_place(round_id=r.id, player=player, seat=5, currency="EUR",
                                           bets={"main": 1000}, idempotency_key=new_key())

    results = race(take(a), take(b))
    refused = [result for result in results if isinstance(result, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], errors.BetRefused) and "Seat 5" in str(refused[0])
    assert Spot.objects.filter(seat=5).count() == 1
    assert sorted([cash(a), cash(b)]) == [1_000_00 - 1000, 1_000_00]


@pytest.mark.django_db(transaction=True)
def test_a_bet_racing_the_betting_close_is_either_in_before_it_or_refused(play, free_bet_table, funded):
    players = [funded() for _ in range(4)]
    r = play(free_bet_table)

    def bet(player):
        return lambda: services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                           idempotency_key=new_key())

    results = race(*[bet(p) for p in players], lambda: services.round_betting_close(round_id=r.id, actor=r.studio))
    placed = [res for res in results[:-1] if isinstance(res, dict)]
    for res in results[:-1]:
        assert isinstance(res, dict | errors.IllegalTransition | wallet_errors.WalletError), res
    assert RoundBet.objects.count() == len(placed)
    # The close waited for the bets in flight: in the audit trail every accepted bet comes before it.
    kinds = list(RoundEvent.objects.filter(round=r.round).exclude(kind="opened").values_list("kind", flat=True))
    assert kinds == ["bets_placed"] * len(placed) + ["state"] + (["state"] if not placed else [])

"""Rounds played through the real services for the back office pages: a settled classic round with two players,
a settled common-draw round, and a round still in play. The round fixtures of tests/rounds are reused."""

import pytest

from tests.rounds import conftest as rounds_fixtures
from tests.rounds.factories import new_key
from wallet import services as wallet

# The fixtures of tests/rounds, shared here: tables, funded players, the round driver, the ledger audit.
classic_table = rounds_fixtures.classic_table
free_bet_table = rounds_fixtures.free_bet_table
funded = rounds_fixtures.funded
play = rounds_fixtures.play
ledger_is_sound_after_each_test = rounds_fixtures.ledger_is_sound_after_each_test


def settle_classic(play, table, *players):
    """Seat 1 stands on 20 and wins; seat 2 (if any) stands on 16 and loses: dealer 9 then T 9 = 19."""
    r = play(table)
    r.bet(players[0], {"main": 1000}, seat=1)
    if len(players) > 1:
        r.bet(players[1], {"main": 3000}, seat=2)
    r.close()
    if len(players) > 1:
        r.cards("Th", "Ts", "9c", "Kd", "6c")  # seat 1, seat 2, dealer up, seat 1, seat 2 (EU: no hole card)
    else:
        r.cards("Th", "9c", "Kd")
    r.decide(players[0], "stand", seat=1)
    if len(players) > 1:
        r.decide(players[1], "stand", seat=2)
    r.cards("Ts")
    r.complete()
    return r.settle()


@pytest.fixture
def alice(funded):
    return funded(username="alice_plays", cash=500_00)


@pytest.fixture
def bob(funded):
    return funded(username="bob_plays", cash=500_00)


@pytest.fixture
def settled(play, classic_table, alice, bob):
    return settle_classic(play, classic_table, alice, bob)


@pytest.fixture
def in_play(play, classic_table, alice):
    """A round at LB01 with alice's bet held and betting closed, dealt: waiting for her decision."""
    r = play(classic_table)
    r.bet(alice, {"main": 1000}, seat=3)
    r.close()
    r.cards("8h", "9c", "8d")
    return r


@pytest.fixture
def golden(alice, operator):
    return wallet.golden_chips_grant(player=alice, currency="EUR", amount=25_00, staff=operator,
                                     reason="Birthday chips", idempotency_key=new_key())

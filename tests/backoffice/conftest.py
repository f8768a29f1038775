"""Rounds played through the real services for the back office pages: a settled classic round with two players,
a settled common-draw round, and a round still in play (the round fixtures are tests/fixtures/rounds.py)."""

import pytest

from tests.backoffice.scenarios import settle_classic
from tests.factories import new_key
from wallet import services as wallet


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

"""Request rate limits: bets per player and per address, sign-in attempts per user name and per address. A
refusal is a 429 with Retry-After and a message, and moves nothing. The counts live in the real Redis cache."""

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from casino.ratelimit import window_key
from rounds.models import RoundBet
from tests.helpers import join_table
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db
WINDOW = 60


@pytest.fixture
def fresh_counts():
    """Clear the windows a test counts in: they outlive the test database (a new run reuses user ids)."""
    used = []

    def forget(*keys):
        used.extend(window_key(key, WINDOW) for key in keys)
        cache.delete_many(used)

    yield forget
    cache.delete_many(used)


def bet(client, game_number, seat, address="10.9.8.7"):
    return client.post(reverse("api_round_bets", args=[game_number]),
                       {"currency": "EUR", "seat": seat, "bets": {"main": 100}}, content_type="application/json",
                       REMOTE_ADDR=address)


@override_settings(RATE_LIMIT_BETS_PER_USER=(2, WINDOW), RATE_LIMIT_BETS_PER_ADDRESS=(1000, WINDOW))
def test_a_player_over_the_bet_limit_gets_429_with_retry_after_and_no_bet(client_for, play, classic_table, funded,
                                                                          fresh_counts):
    player = funded(cash=100_00)
    fresh_counts(f"bets:user:{player.pk}", "bets:address:10.9.8.7")
    round = play(classic_table).round
    client = client_for(player)
    join_table(client, classic_table.code)
    assert bet(client, round.game_number, 1).status_code == 201
    assert bet(client, round.game_number, 2).status_code == 201
    bets, transactions = RoundBet.objects.count(), LedgerTransaction.objects.count()
    refused = bet(client, round.game_number, 3)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= WINDOW
    assert refused.json()["code"] == "throttled" and "seconds" in refused.json()["message"]
    assert (RoundBet.objects.count(), LedgerTransaction.objects.count()) == (bets, transactions)


@override_settings(RATE_LIMIT_BETS_PER_USER=(1000, WINDOW), RATE_LIMIT_BETS_PER_ADDRESS=(2, WINDOW))
def test_players_behind_one_address_share_its_bet_limit(client_for, play, classic_table, funded, fresh_counts):
    first, second = funded(cash=100_00), funded(cash=100_00)
    fresh_counts(f"bets:user:{first.pk}", f"bets:user:{second.pk}", "bets:address:10.9.8.6")
    round = play(classic_table).round
    first_client, second_client = client_for(first), client_for(second)
    join_table(first_client, classic_table.code)
    join_table(second_client, classic_table.code)
    assert bet(first_client, round.game_number, 1, "10.9.8.6").status_code == 201
    assert bet(second_client, round.game_number, 2, "10.9.8.6").status_code == 201
    assert bet(second_client, round.game_number, 3, "10.9.8.6").status_code == 429
    assert bet(second_client, round.game_number, 3, "10.9.8.5").status_code == 201


def sign_in(client, username, address, accept="text/html"):
    return client.post(reverse("login"), {"username": username, "password": "wrong"}, REMOTE_ADDR=address,
                       HTTP_ACCEPT=accept)


@override_settings(RATE_LIMIT_LOGIN_PER_USERNAME=(3, WINDOW), RATE_LIMIT_LOGIN_PER_ADDRESS=(1000, WINDOW))
def test_sign_in_attempts_for_one_user_name_are_limited_from_any_address(client, player, fresh_counts):
    from casino.ratelimit import _hashed

    fresh_counts(f"login:user:{_hashed('pat_player')}", *(f"login:address:10.0.0.{n}" for n in range(5)))
    for n in range(3):
        assert sign_in(client, "pat_player", f"10.0.0.{n}").status_code == 200  # the form, with its error
    refused = sign_in(client, "PAT_player", "10.0.0.3")
    assert refused.status_code == 429 and refused["Retry-After"]
    assert b"Too many sign-in attempts" in refused.content
    api_style = sign_in(client, "pat_player", "10.0.0.4", accept="application/json")
    assert api_style.status_code == 429 and api_style.json()["code"] == "rate_limited"


@override_settings(RATE_LIMIT_LOGIN_PER_USERNAME=(1000, WINDOW), RATE_LIMIT_LOGIN_PER_ADDRESS=(2, WINDOW))
def test_sign_in_attempts_from_one_address_are_limited_across_user_names(client, fresh_counts):
    from casino.ratelimit import _hashed

    fresh_counts("login:address:10.0.1.1", *(f"login:user:{_hashed(f'user{n}')}" for n in range(3)))
    assert sign_in(client, "user0", "10.0.1.1").status_code == 200
    assert sign_in(client, "user1", "10.0.1.1").status_code == 200
    assert sign_in(client, "user2", "10.0.1.1").status_code == 429

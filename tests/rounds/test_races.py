"""Bets racing a disconnection and each other: a stake is only ever attached to a live spot, under that spot's
lock, so the table maximum holds and no hold is stranded on a voided spot (real concurrent connections)."""

import pytest
from django.db import OperationalError

from rounds import errors, services
from rounds.models import RoundBet, Spot
from tests.factories import new_key
from tests.helpers import cash
from tests.rounds.test_concurrency import race
from wallet.models import BetResolution

pytestmark = pytest.mark.django_db(transaction=True)


def limit(r, bet_type: str) -> dict:
    return r.round.config["limits"][bet_type]["EUR"]


def even(amount: int) -> int:
    return amount - amount % 2


def stranded_stakes() -> list[RoundBet]:
    """Round bets on a voided spot whose wallet hold was never resolved: nothing would ever give them back."""
    resolved = BetResolution.objects.values("bet_id")
    return list(RoundBet.objects.filter(spot__voided_at__isnull=False).exclude(wallet_bet_id__in=resolved))


def test_bets_racing_the_players_disconnection_are_never_stranded_and_never_deadlock(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    for _ in range(3):
        r = play(free_bet_table)
        r.bet(player, {"main": 1000})

        def bet(round_id=r.id):
            return services.bets_place(round_id=round_id, player=player, currency="EUR", bets={"main": 1000},
                                       idempotency_key=new_key())

        def leave(round_id=r.id):
            return services.player_disconnect(round_id=round_id, player=player)

        results = race(*[bet] * 6, leave)
        failures = [res for res in results if isinstance(res, Exception)]
        assert not [f for f in failures if isinstance(f, OperationalError)], failures  # no deadlock
        assert not failures, failures
        assert stranded_stakes() == []
        live = Spot.objects.filter(round=r.round, voided_at__isnull=True)
        # Every bet that came after the disconnection is on the one live spot, held and unresolved.
        assert RoundBet.objects.filter(spot__in=live).count() == sum(
            1 for res in results[:-1] if res["spot"] in set(live.values_list("pk", flat=True)))
        services.round_void(round_id=r.id, reason="test over")
        services.round_void_refunds(round_id=r.id)
    assert cash(player) == 10_000_00


def test_concurrent_main_bets_cannot_pass_the_table_maximum(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    r = play(free_bet_table)
    main = limit(r, "main")
    r.bet(player, {"main": main["min"]})
    stake = even(main["max"] * 6 // 10)

    def bet():
        return services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": stake},
                                   idempotency_key=new_key())

    results = race(*[bet] * 4)
    placed = [res for res in results if isinstance(res, dict)]
    refused = [res for res in results if not isinstance(res, dict)]
    assert len(placed) == 1, results
    assert all(isinstance(res, errors.BetLimitError) for res in refused), refused
    spot_total = sum(RoundBet.objects.filter(round=r.round).values_list("amount", flat=True))
    assert spot_total == main["min"] + stake <= main["max"]
    assert cash(player) == 10_000_00 - spot_total


def test_concurrent_side_bets_cannot_pass_the_side_bet_maximum(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    r = play(free_bet_table)
    side = next(iter(r.round.config["side_bets"]))
    side_limit = limit(r, side)
    r.bet(player, {"main": limit(r, "main")["min"]})
    stake = side_limit["max"] * 6 // 10

    def bet():
        return services.bets_place(round_id=r.id, player=player, currency="EUR", bets={side: stake},
                                   idempotency_key=new_key())

    results = race(*[bet] * 4)
    assert sum(isinstance(res, dict) for res in results) == 1, results
    assert all(isinstance(res, dict | errors.BetLimitError) for res in results), results
    assert sum(RoundBet.objects.filter(round=r.round, kind=side).values_list("amount", flat=True)) == stake


def test_concurrent_bet_behinds_cannot_pass_the_bet_behind_maximum(play, seated_table, funded):
    seated, behind = funded(cash=10_000_00), funded(cash=10_000_00)
    r = play(seated_table)
    r.bet(seated, {"main": limit(r, "main")["min"]}, seat=3)
    behind_limit = limit(r, "bet_behind")
    r.bet(behind, {"main": even(behind_limit["min"])}, seat=3, behind=True)
    stake = even(behind_limit["max"] * 6 // 10)

    def bet():
        return services.bets_place(round_id=r.id, player=behind, seat=3, behind=True, currency="EUR",
                                   bets={"main": stake}, idempotency_key=new_key())

    results = race(*[bet] * 4)
    assert sum(isinstance(res, dict) for res in results) == 1, results
    assert all(isinstance(res, dict | errors.BetLimitError) for res in results), results
    total = sum(RoundBet.objects.filter(round=r.round, kind="bet_behind").values_list("amount", flat=True))
    assert total == even(behind_limit["min"]) + stake <= behind_limit["max"]


def test_first_bets_of_one_player_at_the_same_moment_make_one_spot(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    r = play(free_bet_table)

    def bet():
        return services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                   idempotency_key=new_key())

    results = race(*[bet] * 4)
    assert all(isinstance(res, dict) for res in results), results
    assert Spot.objects.filter(round=r.round).count() == 1
    assert RoundBet.objects.filter(round=r.round).count() == 4

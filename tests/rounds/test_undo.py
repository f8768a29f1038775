"""UNDO (the Free Bet text): the last bet placed goes back first, again and again; holding it takes back every
bet. Each undone stake is released through the ledger exactly once, while betting is open, and a retried or a
concurrent request never releases one twice."""

import pytest

from rounds import errors, selectors, services
from rounds.models import RoundBet, RoundEvent, RoundState, Spot
from tests.factories import new_key
from tests.helpers import cash, join_table
from tests.rounds.test_concurrency import race
from wallet.models import BetResolution, LedgerTransaction

START = 1_000_00


def undo(r, player, *, everything=False, key=None):
    return services.bets_undo(round_id=r.id, player=player, everything=everything,
                              idempotency_key=key or new_key())


def standing(r, player) -> list[tuple[str, int]]:
    """The player's bets the round still counts, as the engine sees them (returned bets and voided spots out)."""
    record = selectors.round_record_load(r.round)
    live = {spot.id for spot in record.spots if not spot.voided and spot.player_id == player.pk}
    return [(bet.kind, bet.amount) for bet in record.bets if bet.spot_id in live]


@pytest.mark.django_db
def test_undo_takes_back_the_last_bet_placed_again_and_again(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.bet(player, {"any_pair": 500})
    r.bet(player, {"main": 2000})
    assert cash(player) == START - 3500

    first = undo(r, player)
    assert standing(r, player) == [("main", 1000), ("any_pair", 500)]
    assert cash(player) == START - 1500
    assert len(first["returned"]) == 1 and first["spots_voided"] == []
    undo(r, player)
    assert standing(r, player) == [("main", 1000)]
    last = undo(r, player)
    assert standing(r, player) == [] and len(last["spots_voided"]) == 1
    assert cash(player) == START
    with pytest.raises(errors.BetRefused, match="no bets in round .* to undo"):
        undo(r, player)
    # Each stake went back once: a voided resolution per bet, and the audit trail says which.
    assert BetResolution.objects.filter(outcome="voided").count() == 3
    assert RoundEvent.objects.filter(round=r.round, kind="bets_returned").count() == 2
    assert RoundEvent.objects.filter(round=r.round, kind="spot_voided").count() == 1


@pytest.mark.django_db
def test_an_undo_retried_with_its_key_returns_the_first_answer_and_moves_nothing(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.bet(player, {"main": 1000})
    first = undo(r, player, key="undo-tap")
    transactions = LedgerTransaction.objects.count()
    again = undo(r, player, key="undo-tap")
    assert again == {**first, "replayed": True}
    assert LedgerTransaction.objects.count() == transactions
    assert cash(player) == START - 1000 and standing(r, player) == [("main", 1000)]


@pytest.mark.django_db
def test_holding_undo_clears_every_bet_and_no_side_bet_outlives_its_main(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000, "21+3": 500}, seat=1)
    r.bet(player, {"main": 2000}, seat=3)
    r.bet(player, {"perfect_pairs": 500}, seat=3)
    result = undo(r, player, everything=True)
    assert len(result["returned"]) == 4 and len(result["spots_voided"]) == 2
    assert cash(player) == START
    assert not Spot.objects.filter(round=r.round, voided_at__isnull=True).exists()
    # The seats are free again: someone else may sit there.
    other = funded()
    r.bet(other, {"main": 1000}, seat=1)


@pytest.mark.django_db
def test_an_undo_that_leaves_no_main_bet_takes_the_side_bets_with_it(play, free_bet_table, funded):
    """A side bet placed with its main bet in one placement goes back with it."""
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000, "hot3": 500})
    result = undo(r, player)
    assert len(result["returned"]) == 2 and len(result["spots_voided"]) == 1
    assert cash(player) == START


@pytest.mark.django_db
def test_undo_is_refused_once_betting_closes_and_the_round_settles_without_the_undone_bets(
        play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.bet(player, {"main": 3000, "any_pair": 500})
    undo(r, player)
    r.close()
    with pytest.raises(errors.IllegalTransition, match="Betting is closed"):
        undo(r, player)
    r.cards("Th", "6c", "Kd", "Ts")
    r.decide(player, "stand")
    r.cards("9s")
    r.complete()
    assert r.settle().state == RoundState.SETTLED
    assert cash(player) == START + 1000  # the 10.00 main bet won; the undone 35.00 was never played
    replay = selectors.round_replay(round=r.refresh())
    assert (replay.differences, replay.error, replay.matches) == ([], "", True)
    # The audit trail alone gives the same bets as the tables.
    assert selectors.round_record_from_events(r.round).record.bets == selectors.round_record_load(r.round).bets


@pytest.mark.django_db
def test_the_limits_and_double_count_only_bets_still_standing(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    r = play(free_bet_table)
    maximum = r.round.config["limits"]["main"]["EUR"]["max"]
    r.bet(player, {"main": maximum - 1000})
    r.bet(player, {"main": 1000})
    undo(r, player)
    r.bet(player, {"main": 1000})  # at the maximum again, not over it: the undone 10.00 no longer counts
    undo(r, player)
    r.bet(player, {"any_pair": 500})
    undo(r, player)
    # Doubling doubles what stands: the main bet up to its maximum, and no undone side bet.
    services.bets_double(round_id=r.id, player=player, idempotency_key=new_key())
    assert standing(r, player) == [("main", maximum - 1000), ("main", 1000)]
    assert cash(player) == 10_000_00 - maximum


@pytest.mark.django_db
def test_repeat_places_again_the_bets_that_stood_not_the_undone_ones(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.bet(player, {"main": 500 * 2, "any_pair": 500})
    undo(r, player)
    services.round_void(round_id=r.id, reason="studio test over")
    services.round_void_refunds(round_id=r.id)
    nxt = play(free_bet_table)
    services.bets_repeat(round_id=nxt.id, player=player, idempotency_key=new_key())
    assert standing(nxt, player) == [("main", 1000)]


@pytest.mark.django_db(transaction=True)
def test_concurrent_undos_each_take_back_a_different_bet_and_none_twice(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    for amount in (1000, 2000):
        r.bet(player, {"main": amount})

    def tap():
        return undo(r, player)

    results = race(tap, tap, tap)
    done = [res for res in results if isinstance(res, dict)]
    refused = [res for res in results if not isinstance(res, dict)]
    assert len(done) == 2, results
    assert all(isinstance(res, errors.BetRefused) for res in refused), refused
    returned = [bet for res in done for bet in res["returned"]]
    assert sorted(returned) == sorted(RoundBet.objects.filter(round=r.round).values_list("pk", flat=True))
    assert cash(player) == START
    assert BetResolution.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_undo_alls_release_every_stake_once(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.bet(player, {"main": 1000, "21+3": 200}, seat=2)
    r.bet(player, {"perfect_pairs": 200}, seat=2)

    def hold():
        return undo(r, player, everything=True)

    first, second = race(hold, hold)
    outcomes = sorted([type(first).__name__, type(second).__name__])
    assert outcomes == ["BetRefused", "dict"], (first, second)
    assert cash(player) == START
    assert BetResolution.objects.count() == 4


@pytest.mark.django_db
def test_the_undo_api_takes_back_bets_and_refuses_bad_input(client_for, personas, play, free_bet_table):
    from wallet import services as wallet

    pat = personas["player"]
    wallet.deposit(player=pat, currency="EUR", amount=100_00, idempotency_key=new_key())
    r = play(free_bet_table)
    r.bet(pat, {"main": 1000})
    r.bet(pat, {"main": 1000})
    client = client_for(pat)
    join_table(client, free_bet_table.code)  # the game client sits at the table first (rounds.presence)
    url = f"/api/rounds/{r.round.game_number}/bets/undo/"
    bad = client.post(url, {"all": "please"}, content_type="application/json")
    assert bad.status_code == 400 and cash(pat) == 100_00 - 2000
    one = client.post(url, {}, content_type="application/json", headers={"Idempotency-Key": "u1"})
    assert one.status_code == 200 and len(one.json()["returned"]) == 1
    assert client.post(url, {}, content_type="application/json",
                       headers={"Idempotency-Key": "u1"}).json()["replayed"] is True
    everything = client.post(url, {"all": True}, content_type="application/json")
    assert everything.status_code == 200 and cash(pat) == 100_00
    nothing = client.post(url, {"all": True}, content_type="application/json")
    assert nothing.status_code == 409 or nothing.status_code == 400, nothing.json()
    assert "no bets" in nothing.json()["message"]


@pytest.mark.django_db
def test_a_bet_behind_on_a_seat_its_player_undid_is_refunded_at_the_close_unless_someone_sits(
        play, classic_table, funded):
    seat_player, newcomer, behind_1, behind_2 = funded(), funded(), funded(), funded()
    r = play(classic_table)
    r.bet(seat_player, {"main": 1000}, seat=1)
    r.bet(seat_player, {"main": 1000}, seat=2)
    r.bet(behind_1, {"main": 1000}, seat=1, behind=True)
    r.bet(behind_2, {"main": 1000}, seat=2, behind=True)
    undo(r, seat_player, everything=True)
    assert cash(behind_1) == cash(behind_2) == START - 1000  # they stand while betting is open
    r.bet(newcomer, {"main": 1000}, seat=2)
    r.close()
    assert cash(behind_1) == START and cash(behind_2) == START - 1000
    assert Spot.objects.get(round=r.round, player=behind_1).void_reason == "the seat player placed no bet"

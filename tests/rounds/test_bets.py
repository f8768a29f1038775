"""Betting: every check a bet goes through, the hold in the wallet, idempotency, repeat/double, Deal Now and
disconnections. A refused bet writes nothing: no spot, no round bet, no wallet movement."""

from datetime import timedelta

import pytest

from rounds import errors, services
from rounds.models import RoundBet, RoundState, Spot
from tests.factories import new_key
from tests.helpers import cash, chips
from wallet import errors as wallet_errors
from wallet.models import Bet, LedgerTransaction

pytestmark = pytest.mark.django_db


def nothing_written(player, balance=1_000_00):
    assert (Spot.objects.count(), RoundBet.objects.count(), Bet.objects.count()) == (0, 0, 0)
    assert cash(player) == balance


@pytest.mark.parametrize(("bets", "error", "message"), [
    ({"main": 50}, errors.BetLimitError, "between 1.00 EUR and 5,000.00 EUR; 0.50 EUR is not"),
    ({"main": 600_000}, errors.BetLimitError, "5,000.00 EUR; 6,000.00 EUR is not"),
    ({"main": 1001}, errors.BetLimitError, "even number of minor units"),
    ({"main": 0}, errors.BetLimitError, "positive whole number"),
    ({"main": "10"}, errors.BetLimitError, "positive whole number"),
    ({"jackpot": 100}, errors.BetRefused, "Unknown bet 'jackpot'"),
    ({"perfect_pairs": 100, "main": 1000}, errors.BetRefused, "perfect_pairs is not offered"),
    ({"any_pair": 100}, errors.BetRefused, "A side bet needs a main bet"),
    ({"golden_chip": 1000}, errors.BetRefused, "does not accept Golden Chips"),
    ({}, errors.BetRefused, "at least one bet"),
])
def test_a_bet_that_breaks_a_rule_is_refused_and_writes_nothing(play, free_bet_table, funded, bets, error, message):
    player = funded()
    r = play(free_bet_table)
    with pytest.raises(error, match=message):
        r.bet(player, bets)
    nothing_written(player)


def test_a_bet_in_a_currency_the_table_does_not_take_or_at_a_seat_of_a_common_draw_is_refused(
    play, free_bet_table, funded
):
    player = funded()
    r = play(free_bet_table)
    with pytest.raises(errors.BetRefused, match="takes bets in EUR, not 'USD'"):
        r.bet(player, {"main": 1000}, currency="USD")
    with pytest.raises(errors.BetRefused, match="common draw: there are no seats"):
        r.bet(player, {"main": 1000}, seat=1)
    nothing_written(player)


def test_a_placed_bet_is_held_in_the_wallet_in_the_same_transaction(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    result = r.bet(player, {"main": 1000, "hot3": 200})
    held = list(RoundBet.objects.filter(pk__in=result["bets"]).select_related("wallet_bet").order_by("id"))
    assert [(b.kind, b.amount, b.wallet_bet.amount, b.wallet_bet.reference) for b in held] == [
        ("main", 1000, 1000, r.round.game_number), ("hot3", 200, 200, r.round.game_number)]
    assert cash(player) == 1_000_00 - 1200


def test_not_enough_balance_refuses_the_whole_placement(play, free_bet_table, funded):
    player = funded(cash=1000)
    r = play(free_bet_table)
    with pytest.raises(wallet_errors.InsufficientFunds, match="you hold 10.00 EUR in cash but these bets need 12"):
        r.bet(player, {"main": 1000, "any_pair": 200})
    nothing_written(player, 1000)


def test_limits_count_the_total_of_a_spot_not_each_placement(play, free_bet_table, funded):
    player = funded(cash=10_000_00)
    r = play(free_bet_table)
    r.bet(player, {"main": 400_000})
    with pytest.raises(errors.BetLimitError, match="6,000.00 EUR is not"):
        r.bet(player, {"main": 200_000})
    assert RoundBet.objects.count() == 1


def test_the_same_idempotency_key_places_once_and_other_content_is_a_conflict(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    first = r.bet(player, {"main": 1000}, key="tap-1")
    again = r.bet(player, {"main": 1000}, key="tap-1")
    assert again == {**first, "replayed": True}
    with pytest.raises(errors.IdempotencyConflict, match="already used for a different request"):
        r.bet(player, {"main": 2000}, key="tap-1")
    assert RoundBet.objects.count() == 1 and cash(player) == 1_000_00 - 1000


def test_seats_belong_to_one_player_and_multi_seat_needs_the_feature(play, seated_table, classic_table, funded):
    a, b = funded(), funded()
    r = play(seated_table)
    r.bet(a, {"main": 1000}, seat=2)
    with pytest.raises(errors.BetRefused, match="Seat 2 is taken by another player"):
        r.bet(b, {"main": 1000}, seat=2)
    with pytest.raises(errors.BetRefused, match="You play seat 2; table FS01 has no Multi Seat"):
        r.bet(a, {"main": 1000}, seat=3)
    with pytest.raises(errors.BetRefused, match="Choose a seat from 1 to 7"):
        r.bet(b, {"main": 1000}, seat=8)
    multi = play(classic_table)
    multi.bet(a, {"main": 1000}, seat=1)
    multi.bet(a, {"main": 1000}, seat=7)
    assert set(Spot.objects.filter(round=multi.round, player=a).values_list("seat", flat=True)) == {1, 7}


def test_a_bet_behind_needs_someone_elses_occupied_seat_and_has_its_own_limits(play, seated_table, funded):
    a, b = funded(), funded()
    r = play(seated_table)
    with pytest.raises(errors.BetRefused, match="Seat 4 has no player with a bet"):
        r.bet(b, {"main": 1000}, seat=4, behind=True)
    r.bet(a, {"main": 1000}, seat=4)
    with pytest.raises(errors.BetRefused, match="cannot bet behind your own seat"):
        r.bet(a, {"main": 1000}, seat=4, behind=True)
    with pytest.raises(errors.BetLimitError, match="bet behind at table FS01 must be between 1.00 EUR and 1,000.00"):
        r.bet(b, {"main": 200_000}, seat=4, behind=True)
    r.bet(b, {"main": 1000, "perfect_pairs": 100}, seat=4, behind=True)
    behind = Spot.objects.get(behind=True)
    assert (behind.player, behind.seat, sorted(behind.bets.values_list("kind", flat=True))) == (
        b, 4, ["bet_behind", "perfect_pairs"])


def test_golden_chips_come_only_from_a_golden_chip_balance_and_never_mix_with_cash(play, classic_table, funded):
    rich, poor = funded(golden_chips=5000), funded()
    r = play(classic_table)
    with pytest.raises(wallet_errors.InsufficientFunds, match="0.00 EUR in Golden Chips"):
        r.bet(poor, {"golden_chip": 2000}, seat=1)
    r.bet(rich, {"golden_chip": 2000}, seat=2)
    assert (chips(rich), cash(rich)) == (3000, 1_000_00)
    with pytest.raises(errors.BetRefused, match="either cash or Golden Chips"):
        r.bet(rich, {"main": 1000}, seat=2)
    with pytest.raises(errors.BetRefused, match="Bet Behind is made in cash"):
        r.bet(poor, {"golden_chip": 1000}, seat=2, behind=True)


def test_repeat_places_the_last_rounds_opening_bets_again_with_every_check(play, classic_table, funded, operator):
    a, b = funded(), funded()
    first = play(classic_table)
    first.bet(a, {"main": 1000, "21+3": 100}, seat=3)
    first.bet(a, {"main": 2000}, seat=5)
    first.bet(b, {"main": 1000}, seat=1)
    first.bet(a, {"main": 400}, seat=1, behind=True)
    services.round_void(round_id=first.id, actor=operator, reason="studio lights")
    services.round_void_refunds(round_id=first.id)
    second = play(classic_table)
    with pytest.raises(errors.BetRefused, match="no earlier bets"):
        services.bets_repeat(round_id=second.id, player=funded(), idempotency_key=new_key())
    with pytest.raises(errors.BetRefused, match="Seat 1 has no player with a bet"):
        services.bets_repeat(round_id=second.id, player=a, idempotency_key=new_key())
    second.bet(b, {"main": 1000}, seat=1)
    services.bets_repeat(round_id=second.id, player=a, idempotency_key=new_key())
    placed = {(s.seat, s.behind): sorted((bet.kind, bet.amount) for bet in s.bets.all())
              for s in Spot.objects.filter(round=second.round, player=a)}
    assert placed == {(3, False): [("21+3", 100), ("main", 1000)], (5, False): [("main", 2000)],
                      (1, True): [("bet_behind", 400)]}
    with pytest.raises(errors.BetRefused, match="already have bets"):
        services.bets_repeat(round_id=second.id, player=a, idempotency_key=new_key())


def _stakes(player):
    totals = {}
    for bet in RoundBet.objects.filter(spot__player=player):
        key = (bet.spot.seat, bet.kind)
        totals[key] = totals.get(key, 0) + bet.amount
    return totals


def test_double_all_doubles_every_bet_each_up_to_its_maximum(play, classic_table, funded):
    # Limits: main 1.00-5,000.00 EUR, perfect pairs 1.00-250.00 EUR (the defaults).
    player = funded(cash=10_000_00)
    r = play(classic_table)
    r.bet(player, {"main": 1000, "perfect_pairs": 15_000}, seat=1)
    r.bet(player, {"main": 200_000}, seat=2)
    services.bets_double(round_id=r.id, player=player, idempotency_key=new_key())
    assert _stakes(player) == {(1, "main"): 2000, (1, "perfect_pairs"): 25_000, (2, "main"): 400_000}
    services.bets_double(round_id=r.id, player=player, idempotency_key=new_key())
    assert _stakes(player) == {(1, "main"): 4000, (1, "perfect_pairs"): 25_000, (2, "main"): 500_000}
    assert cash(player) == 10_000_00 - 529_000


def test_double_with_every_bet_at_its_maximum_is_refused_and_writes_nothing(play, classic_table, funded):
    player = funded(cash=10_000_00)
    r = play(classic_table)
    r.bet(player, {"main": 500_000}, seat=1)
    before = (RoundBet.objects.count(), LedgerTransaction.objects.count(), cash(player))
    with pytest.raises(errors.BetLimitError, match="already at the table's maximum"):
        services.bets_double(round_id=r.id, player=player, idempotency_key=new_key())
    assert (RoundBet.objects.count(), LedgerTransaction.objects.count(), cash(player)) == before


def test_double_the_balance_cannot_cover_is_refused_whole(play, classic_table, funded):
    # 3,000 + 1,500 placed from 6,000: doubling needs 4,500 more but 1,500 is left; no single bet is doubled.
    player = funded(cash=6000)
    r = play(classic_table)
    r.bet(player, {"main": 3000}, seat=1)
    r.bet(player, {"main": 1500}, seat=2)
    before = (RoundBet.objects.count(), LedgerTransaction.objects.count(), cash(player))
    with pytest.raises(wallet_errors.InsufficientFunds, match="doubling your bets needs 45.00 EUR in cash"):
        services.bets_double(round_id=r.id, player=player, idempotency_key=new_key())
    assert (RoundBet.objects.count(), LedgerTransaction.objects.count(), cash(player)) == before == (2, 3, 1500)


def test_deal_now_closes_betting_when_every_seated_player_confirmed(play, classic_table, seated_table, funded):
    a, b, behind = funded(), funded(), funded()
    r = play(classic_table)
    r.bet(a, {"main": 1000}, seat=1)
    r.bet(b, {"main": 1000}, seat=2)
    r.bet(behind, {"main": 1000}, seat=1, behind=True)
    with pytest.raises(errors.BetRefused, match="Only a seated player"):
        services.betting_confirm(round_id=r.id, player=behind)
    assert services.betting_confirm(round_id=r.id, player=a) == {"confirmed": True, "betting_closed": False}
    assert services.betting_confirm(round_id=r.id, player=b) == {"confirmed": True, "betting_closed": True}
    assert r.refresh().state == RoundState.BETTING_CLOSED
    other = play(seated_table)
    other.bet(a, {"main": 1000}, seat=1)
    with pytest.raises(errors.BetRefused, match="has no Deal Now"):
        services.betting_confirm(round_id=other.id, player=a)


def test_bets_after_the_close_or_the_timer_are_refused(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    with pytest.raises(errors.IllegalTransition, match="Betting time .* is over"):
        services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                            idempotency_key=new_key(), now=r.round.deadline + timedelta(seconds=1))
    r.close()
    with pytest.raises(errors.IllegalTransition, match="Betting is closed"):
        r.bet(player, {"main": 1000})
    nothing_written(player)


def test_a_player_disconnected_while_betting_is_refunded_and_their_bet_behinds_follow(play, classic_table, funded):
    # classic: non_live by default, which voids what was placed while betting is open (as void_while_betting).
    seat_player, behind = funded(), funded()
    r = play(classic_table)
    r.bet(seat_player, {"main": 1000, "21+3": 100}, seat=3)
    r.bet(behind, {"main": 1000}, seat=3, behind=True)
    assert services.player_disconnect(round_id=r.id, player=seat_player) == {
        "spots": [Spot.objects.get(player=seat_player).pk], "refunded": True, "policy": "non_live",
        "continuations": []}
    assert cash(seat_player) == 1_000_00
    r.close()  # seat 3 has no bet any more: the Bet Behind is refunded at once
    assert cash(behind) == 1_000_00
    assert not Spot.objects.filter(voided_at__isnull=True).exists()
    assert r.refresh().state == RoundState.SETTLING  # nothing left to deal
    refunds = LedgerTransaction.objects.filter(kind="refund", reference=r.round.game_number).count()
    assert refunds == 2


def test_after_the_close_a_disconnected_players_bets_stand(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.close()
    assert services.player_disconnect(round_id=r.id, player=player)["refunded"] is False
    spot = Spot.objects.get()
    assert spot.voided_at is None and spot.disconnected_at is not None
    assert cash(player) == 1_000_00 - 1000


def test_at_a_seated_free_bet_table_every_bet_stands_when_the_player_disconnects_while_betting(
    play, seated_table, funded
):
    seat_player, behind = funded(), funded()
    r = play(seated_table)
    r.bet(seat_player, {"main": 1000, "21+3": 100}, seat=3)
    r.bet(behind, {"main": 1000}, seat=3, behind=True)
    assert services.player_disconnect(round_id=r.id, player=seat_player)["refunded"] is False
    r.close()
    assert (cash(seat_player), cash(behind)) == (1_000_00 - 1100, 1_000_00 - 1000)
    assert Spot.objects.filter(voided_at__isnull=True).count() == 2
    assert Spot.objects.get(player=seat_player).disconnected_at is not None
    assert r.refresh().state == RoundState.BETTING_CLOSED  # the seat is dealt as if the player were there


@pytest.mark.parametrize(("profile", "policy", "refunded"), [
    ("free_bet", None, True),
    ("free_bet", "bets_stand", False),
    ("classic", "void_while_betting", True),
    ("free_bet_seated", "non_live", True),
])
def test_the_tables_disconnection_policy_decides_while_betting_is_open(play, funded, profile, policy, refunded):
    from tests.factories import RoundTableFactory

    player = funded()
    options = {"disconnect_policy": policy} if policy else {}
    r = play(RoundTableFactory(profile=profile, code="DC01", **options))
    r.bet(player, {"main": 1000}, **({} if profile == "free_bet" else {"seat": 1}))
    result = services.player_disconnect(round_id=r.id, player=player)
    assert result["refunded"] is refunded and result["policy"] == (policy or "void_while_betting")
    assert cash(player) == 1_000_00 - (0 if refunded else 1000)
    # Coming back changes nothing: refunded bets stay refunded, standing bets stay held.
    services.player_disconnect(round_id=r.id, player=player)
    assert cash(player) == 1_000_00 - (0 if refunded else 1000)
    assert RoundBet.objects.count() == 1


def test_a_table_refuses_an_unknown_disconnection_policy(roles):
    from tables.errors import TableConfigError
    from tests.factories import RoundTableFactory

    with pytest.raises(TableConfigError, match="Disconnection policy must be one of"):
        RoundTableFactory(profile="classic", code="DC02", disconnect_policy="vanish")
    with pytest.raises(TableConfigError, match="non-live deadline"):
        RoundTableFactory(profile="classic", code="DC03", non_live_deadline=5)

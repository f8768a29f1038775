"""Playing a round: cards from the studio, decisions in turn, timeouts, balance fallbacks, Bet Behind,
insurance, the dealer's hand and malfunctions. Each settled round must replay to the same money."""

from datetime import timedelta

import pytest
from django.utils import timezone

from rounds import errors, selectors, services
from rounds.models import CardRecord, Decision, RoundBet, RoundState
from tests.helpers import cash
from wallet import errors as wallet_errors
from wallet import services as wallet
from wallet.models import Bet

pytestmark = pytest.mark.django_db

LATER = timedelta(hours=1)


def effective(spot_player, kind="action"):
    return list(Decision.objects.filter(spot__player=spot_player, kind=kind).order_by("spot_id", "sequence")
                .values_list("effective", flat=True))


def assert_replays(r):
    replay = selectors.round_replay(round=r.refresh())
    assert (replay.differences, replay.error, replay.matches) == ([], "", True)
    return replay


def test_seated_decisions_are_taken_in_turn_and_only_when_legal(play, classic_table, funded):
    a, b = funded(), funded()
    r = play(classic_table)
    r.bet(a, {"main": 1000}, seat=1)
    r.bet(b, {"main": 1000}, seat=2)
    r.close()
    r.cards("9h", "5c", "6s", "7d", "5d")  # EU: no hole card
    assert (r.refresh().state, r.round.turn_seat) == (RoundState.DECISIONS, 1)
    with pytest.raises(errors.NotYourTurn, match="It is seat 1's turn, not seat 2's"):
        r.decide(b, "stand", seat=2)
    with pytest.raises(errors.DecisionRefused, match=r"You cannot split on 9h 7d \(16\); you may hit, stand, double"):
        r.decide(a, "split", seat=1)
    with pytest.raises(errors.CardRefused, match="Seat 1 is deciding"):
        r.cards("2c")
    r.decide(a, "hit", seat=1)
    with pytest.raises(errors.DecisionRefused, match="your next card is coming"):
        r.decide(a, "stand", seat=1)
    with pytest.raises(errors.CardRefused, match="The next card goes to seat 1, not to seat 2"):
        services.card_record(round_id=r.id, card="2c", target="seat", seat=2, actor=r.studio)
    services.card_record(round_id=r.id, card="2c", target="seat", seat=1, actor=r.studio)
    r.decide(a, "stand", seat=1)
    assert r.refresh().turn_seat == 2
    r.decide(b, "double", seat=2)
    assert RoundBet.objects.get(kind="double").amount == 1000
    r.cards("9c")
    assert r.refresh().state == RoundState.DEALER
    r.cards("Td", "Ks")
    r.complete()
    r.settle()
    assert (cash(a), cash(b)) == (1_000_00 + 1000, 1_000_00 + 2000)
    assert_replays(r)


def test_the_free_bet_timeout_hits_on_11_or_less_and_stands_above_at_every_decision_point(
    play, free_bet_table, funded
):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.close()
    r.cards("5h", "Ts", "4d", "7c")
    assert services.rounds_timers_sweep(now=timezone.now() + LATER) == [r.id]
    r.cards("2c")
    r.advance(now=timezone.now() + LATER)
    r.cards("5s")
    r.advance(now=timezone.now() + LATER)
    rows = list(Decision.objects.order_by("sequence").values_list("action", "effective", "actor_kind"))
    assert rows == [("timeout", "hit", "system"), ("timeout", "hit", "system"), ("timeout", "stand", "system")]
    assert r.refresh().state == RoundState.DEALER
    r.complete()
    r.settle()
    assert cash(player) == 1_000_00 - 1000
    assert_replays(r)


def test_the_classic_timeout_stands(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("5h", "Ts", "4d")
    r.advance(now=timezone.now() + LATER)
    assert effective(player) == ["stand"]
    assert r.refresh().state == RoundState.DEALER


def test_an_unfunded_paid_double_hits_and_the_spot_stays_unfunded_for_the_round(play, classic_table, funded):
    player = funded(cash=2000)
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("8h", "6c", "8d")
    r.decide(player, "split", seat=1)  # funded: the last 10.00 EUR
    r.cards("3s")
    assert r.decide(player, "double", seat=1)["effective"] == "hit"
    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="top-up")
    r.cards("5h")
    r.decide(player, "stand", seat=1)
    r.cards("2c")
    # Money arrived meanwhile, but the round's fallback stands: the engine replays one balance per spot.
    result = r.decide(player, "double", seat=1)
    assert (result["effective"], result["funded"]) == ("hit", False)
    assert sorted(RoundBet.objects.values_list("kind", flat=True)) == ["main", "split"]
    r.cards("Ts")
    r.decide(player, "stand", seat=1)
    r.cards("Kd", "7s")  # dealer 6 K 7 = 23
    r.complete()
    r.settle()
    assert cash(player) == 100_00 + 4000
    replay = assert_replays(r)
    assert replay.scripts[0]["players"][0]["balance"] == 1000


def test_free_doubles_and_free_splits_hold_nothing_and_an_unfunded_ten_split_stands_on_20(
    play, free_bet_table, funded
):
    broke, free = funded(cash=1000), funded()
    r = play(free_bet_table)
    r.bet(broke, {"main": 1000})
    r.bet(free, {"main": 1000})
    r.close()
    r.cards("Th", "9s", "Td", "7c")
    assert r.decide(broke, "split")["effective"] == "stand"
    assert r.decide(free, "split")["effective"] == "split"  # ten pairs split with real money
    assert [b.kind for b in RoundBet.objects.order_by("id")] == ["main", "main", "split"]
    r.cards("5c")
    with pytest.raises(errors.DecisionRefused, match="cannot double on Th 5c"):  # no double after split
        r.decide(free, "double")
    r.decide(free, "hit")
    r.cards("Kc")
    r.cards("6d")  # hand 2: T 6
    r.decide(free, "stand")
    r.cards("2h")  # dealer 9 7 2 = 18
    r.complete()
    r.settle()
    assert (cash(broke), cash(free)) == (2000, 1_000_00 - 1000 - 1000)
    assert_replays(r)


def test_a_bet_behind_follows_its_seat_with_its_own_stakes_and_fallbacks(play, classic_table, funded):
    seat, rich, poor = funded(), funded(), funded(cash=1000)
    r = play(classic_table)
    r.bet(seat, {"main": 1000}, seat=1)
    r.bet(rich, {"main": 1000}, seat=1, behind=True)
    r.bet(poor, {"main": 1000}, seat=1, behind=True)
    r.close()
    r.cards("8h", "6c", "8d")
    r.decide(seat, "split", seat=1)
    r.cards("3s")
    r.decide(seat, "double", seat=1)
    r.cards("Ts")
    r.cards("2c")
    r.decide(seat, "double", seat=1)
    r.cards("9c")
    assert r.refresh().state == RoundState.DEALER
    r.cards("Td", "8s")  # dealer 6 T 8 = 24
    r.complete()
    r.settle()
    assert effective(rich, "follow") == ["split", "double", "double"]
    assert effective(poor, "follow") == ["split_hand_one", "hit_and_stand"]
    spots = r.round.settlement["spots"]
    assert spots["seat1"]["result"]["hands"] == [2000, 2000]
    assert spots[f"seat1-behind-p{rich.pk}"]["result"]["hands"] == [2000, 2000]
    assert spots[f"seat1-behind-p{poor.pk}"]["result"]["hands"] == [1000]
    assert (cash(seat), cash(rich), cash(poor)) == (1_000_00 + 4000, 1_000_00 + 4000, 2000)
    assert_replays(r)


def test_insurance_is_answered_per_player_and_the_peek_ends_the_round(play, free_bet_table, funded):
    taker, decliner, silent, broke = funded(), funded(), funded(), funded(cash=1000)
    r = play(free_bet_table)
    for player in (taker, decliner, silent, broke):
        r.bet(player, {"main": 1000})
    r.close()
    r.cards("9h", "As", "9d", "Kc")
    assert r.refresh().state == RoundState.INSURANCE
    with pytest.raises(wallet_errors.InsufficientFunds):
        r.insurance(broke, True)
    r.insurance(broke, False)
    r.insurance(taker, True)
    r.insurance(decliner, False)
    with pytest.raises(errors.DecisionRefused, match="no insurance to answer"):
        r.insurance(taker, False)
    with pytest.raises(errors.CardRefused, match="waits for the players' insurance answers"):
        r.cards("2c")
    r.advance()  # the silent player may still answer: nothing happens before the timer
    assert r.refresh().state == RoundState.INSURANCE
    r.advance(now=timezone.now() + LATER)
    assert r.refresh().state == RoundState.SETTLING  # the peek found the blackjack
    assert Decision.objects.get(spot__player=silent).action == "timeout"
    r.settle()
    assert (cash(taker), cash(decliner), cash(silent)) == (1_000_00, 1_000_00 - 1000, 1_000_00 - 1000)
    assert_replays(r)


def test_us_peek_before_ends_the_round_at_once_on_a_ten_up_blackjack(play, classic_us_table, funded):
    player = funded()
    r = play(classic_us_table)
    r.bet(player, {"main": 1000, "21+3": 100}, seat=4)
    r.close()
    r.cards("9h", "Th", "2d", "As")
    assert r.refresh().state == RoundState.SETTLING
    r.settle()
    assert cash(player) == 1_000_00 - 1100
    assert_replays(r)


def test_common_draw_statistics_show_what_players_chose_in_each_situation(play, free_bet_table, funded):
    players = [funded() for _ in range(4)]
    r = play(free_bet_table)
    for player in players:
        r.bet(player, {"main": 1000})
    r.close()
    r.cards("7h", "Ts", "4d", "7c")
    for player, action in zip(players, ["hit", "hit", "stand", "double"], strict=True):
        r.decide(player, action)
    stats = selectors.decision_stats(round=r.refresh())
    assert stats["step"] == 0 and stats["still_deciding"] == 0
    assert stats["situations"] == [{"history": [], "players": 4, "counts": {"double": 1, "hit": 2, "stand": 1},
                                    "shares": {"double": 0.25, "hit": 0.5, "stand": 0.25}}]
    r.cards("2c")
    r.decide(players[0], "stand")
    stats = selectors.decision_stats(round=r.refresh())
    assert stats["step"] == 1 and stats["still_deciding"] == 1
    assert stats["situations"] == [{"history": ["hit"], "players": 1, "counts": {"stand": 1},
                                    "shares": {"stand": 1.0}}]


def test_the_studio_cannot_record_a_card_nobody_waits_for_and_a_bad_card_writes_nothing(
    play, free_bet_table, funded
):
    a, b = funded(), funded()
    r = play(free_bet_table)
    r.bet(a, {"main": 1000})
    r.bet(b, {"main": 1000})
    r.close()
    with pytest.raises(errors.InvalidCard, match="unknown card 'Zz'"):
        r.cards("Zz")
    assert not CardRecord.objects.exists()
    r.cards("7h", "Ts", "4d", "7c")
    r.decide(a, "hit")
    with pytest.raises(errors.CardRefused, match="1 player.* still deciding"):
        r.cards("2c")
    r.decide(b, "stand")
    r.cards("2c")
    assert CardRecord.objects.filter(target="stream").count() == 1


def test_a_dealer_drawing_on_17_is_a_malfunction_and_the_void_refunds_every_stake(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000, "perfect_pairs": 100}, seat=1)
    r.close()
    r.cards("5h", "7c", "6d")
    r.decide(player, "double", seat=1)
    r.cards("9s")
    r.cards("5d")  # dealer 7 5 = 12
    with pytest.raises(errors.DealerIncomplete, match=r"7c 5d = 12"):
        r.complete()
    r.cards("5s")  # 17
    outcome = r.cards("2h")[0]
    assert outcome["malfunction"] == "the dealer drew 2h on 17, but stands on 17 or more"
    assert r.refresh().state == RoundState.VOIDED and "Malfunction" in r.round.void_reason
    assert services.round_void_refunds(round_id=r.id) is True
    assert cash(player) == 1_000_00
    assert set(Bet.objects.values_list("resolution__outcome", flat=True)) == {"voided"}


def test_the_studio_sees_the_hole_card_and_everyone_and_a_player_only_their_own_spot(
    play, free_bet_table, funded, operator
):
    a, b = funded(), funded()
    r = play(free_bet_table)
    r.bet(a, {"main": 1000})
    r.bet(b, {"main": 1000})
    r.close()
    r.cards("7h", "Ts", "4d", "7c")
    seen = selectors.round_view(round=r.refresh(), viewer=a)
    assert seen["cards"]["dealer"] == ["Ts", "??"]
    [mine] = seen["spots"]  # a common draw's other players stay anonymous
    assert mine["mine"] and mine["decision"]["actions"] == ["hit", "stand", "double"]
    assert mine["decision"]["double"] == "free" and mine["decision"]["timeout_action"] == "hit"
    staff = selectors.round_view(round=r.round, viewer=operator, staff=True)
    assert staff["cards"]["dealer"] == ["Ts", "7c"] and len(staff["spots"]) == 2


def test_at_a_seated_table_a_player_sees_only_their_own_seat_and_which_seats_are_taken(
    play, classic_table, funded, operator
):
    a, b = funded(), funded()
    r = play(classic_table)
    r.bet(a, {"main": 1000}, seat=1)
    r.bet(b, {"main": 3000}, seat=2)
    r.close()
    r.cards("9h", "5c", "6s", "7d", "5d")
    seen = selectors.round_view(round=r.refresh(), viewer=b)
    [mine] = seen["spots"]
    assert mine["seat"] == 2 and mine["mine"] and mine["decision"] is None  # seat 1 plays first
    assert seen["cards"]["seats"] == {"2": ["5c", "5d"]}  # seat 1 holds 9h 7d: not shown to seat 2
    assert seen["seats_taken"] == [1, 2] and seen["cards"]["dealer"] == ["6s"]
    staff = selectors.round_view(round=r.round, viewer=operator, staff=True)
    assert {spot["seat"] for spot in staff["spots"]} == {1, 2} and set(staff["cards"]["seats"]) == {"1", "2"}


@pytest.mark.parametrize(("profile", "hole"), [("classic", False), ("free_bet_seated", True)])
def test_the_studio_deals_one_card_to_each_seat_then_the_dealer_then_the_second_cards(play, funded, profile, hole):
    from tests.factories import RoundTableFactory

    a, b = funded(), funded()
    r = play(RoundTableFactory(profile=profile, code="DO01"))
    r.bet(a, {"main": 1000}, seat=2)
    r.bet(b, {"main": 1000}, seat=5)
    r.close()
    with pytest.raises(errors.CardRefused, match="The next card goes to seat 2, not to the dealer"):
        services.card_record(round_id=r.id, card="9h", actor=r.studio, target="dealer")
    dealt = [(o["target"], o["seat"]) for o in r.cards("9h", "5c", "6s", "7d", "5d") + (r.cards("Kc") if hole else [])]
    assert dealt == [("seat", 2), ("seat", 5), ("dealer", None), ("seat", 2), ("seat", 5)] + (
        [("dealer", None)] if hole else [])
    seen = selectors.round_view(round=r.refresh(), viewer=r.studio, staff=True)
    assert seen["cards"]["seats"] == {"2": ["9h", "7d"], "5": ["5c", "5d"]}
    assert seen["cards"]["dealer"][0] == "6s"
    assert (r.round.state, r.round.turn_seat) == (RoundState.DECISIONS, 2)


def test_a_card_runs_a_bounded_number_of_statements(play, classic_table, free_bet_table, funded,
                                                    django_assert_max_num_queries):
    """A card is the studio's most frequent write, and each reads what it needs once: the round's record in four
    queries, the shoe with the card's earlier copies in one, the play statuses with whose turn it is in one."""
    a, b = funded(), funded()
    r = play(classic_table)
    r.bet(a, {"main": 1000}, seat=1)
    r.bet(b, {"main": 1000}, seat=2)
    r.close()
    r.cards("9h")  # the first card also moves the round to dealing
    # Its transaction (a savepoint pair here, BEGIN and COMMIT outside a test), the round lock, the record (cards,
    # spots with their continuations, bets, decisions), the shoe and the card's copies, the card and its event:
    # 10 (12 when the record took five queries and the shoe its own).
    for card in ("5c", "6s", "7d"):
        with django_assert_max_num_queries(10):
            r.cards(card)
    # The deal's last card also opens the decisions: the state and its event, the seats' statuses read and set,
    # whose turn and the timer (20 before).
    with django_assert_max_num_queries(17):
        r.cards("5d")
    r.decide(a, "hit", seat=1)
    # A card in the decisions step: whose turn is read under the lock, then the seat's spots and their Bet
    # Behinds are refreshed and the turn moves on (22 before).
    with django_assert_max_num_queries(18):
        r.cards("2c")
    r.decide(a, "stand", seat=1)
    r.decide(b, "stand", seat=2)
    for card in ("Td", "Ks"):  # the dealer's draws
        with django_assert_max_num_queries(10):
            r.cards(card)
    r.complete()
    r.settle()
    assert [c.card for c in CardRecord.objects.filter(round_id=r.id).order_by("position")] == [
        "9h", "5c", "6s", "7d", "5d", "2c", "Td", "Ks"]
    assert_replays(r)

    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    r.close()
    r.cards("8h", "9s", "8d")
    with django_assert_max_num_queries(16):  # the deal's last card: the decisions open (18 before)
        r.cards("7c")
    r.decide(player, "hit")
    # A stream card: the play statuses are counted once under the lock, not again to find who waits (20 before).
    with django_assert_max_num_queries(17):
        r.cards("2c")
    r.decide(player, "stand")
    r.cards("Tc")
    r.complete()
    r.settle()
    assert_replays(r)

"""Decision points and legal actions, as the live server sees them through `player_turn`."""

import pytest

from rounds.engine.cards import parse_card
from rounds.engine.errors import EngineError
from rounds.engine.play import DECISION, FINISHED, NEEDS_CARD, play_log, player_turn
from rounds.engine.rules import rules_for

FREE, SEATED, EU = rules_for("free_bet"), rules_for("free_bet_seated"), rules_for("classic_eu")


def cards(text: str) -> list:
    return [parse_card(card) for card in text.split()]


def turn(rules, first: str, actions=(), stream: str = "", balance=None, main=1000):
    return player_turn(rules, cards(first), list(actions), cards(stream), main=main, balance=balance)


@pytest.mark.parametrize(
    ("rules", "first", "double", "split"),
    [
        (FREE, "6h 5d", "free", None),  # hard 11
        (FREE, "7h 2d", "free", None),  # hard 9
        (FREE, "4h 4d", "paid", "free"),  # hard 8 is no free double; 4-4 splits free
        (FREE, "5h 5d", "free", "free"),  # hard 10 and a pair
        (FREE, "Ah 8d", "paid", None),  # A-8 is not a hard 9
        (FREE, "Ah 9d", "paid", None),
        (FREE, "Ah Ad", "paid", "free"),
        (FREE, "9h 9d", "paid", "free"),
        (FREE, "Kh Qd", "paid", "paid"),  # 10-value pair splits with real money
        (FREE, "Th 6d", "paid", None),
        (SEATED, "6h 3d", "free", None),
        (EU, "6h 5d", "paid", None),
        (EU, "8h 8d", "paid", "paid"),
        (EU, "Kh Jd", "paid", "paid"),
    ],
)
def test_first_decision_offers(rules, first: str, double: str | None, split: str | None) -> None:
    point = turn(rules, first).decision()
    assert point is not None
    assert (point.double, point.split) == (double, split)
    expected = ("hit", "stand") + (("double",) if double else ()) + (("split",) if split else ())
    assert point.actions == expected
    assert point.double_cost == (1000 if double == "paid" else 0)
    assert point.split_cost == (1000 if split == "paid" else 0)


def test_blackjack_and_21_offer_no_decision() -> None:
    assert turn(FREE, "Ah Kd").advance() == FINISHED
    assert turn(FREE, "Ah 5d", ["hit"], "5c").advance() == FINISHED  # soft 21 stands by itself
    assert turn(EU, "7h 7d", ["hit"], "7c").advance() == FINISHED


def test_no_double_after_split_in_free_bet_but_in_classic() -> None:
    free = turn(FREE, "8h 8d", ["split"], "3c").decision()
    classic = turn(EU, "8h 8d", ["split"], "3c").decision()
    assert free is not None and classic is not None
    assert free.actions == ("hit", "stand") and free.hand_index == 0
    assert classic.actions == ("hit", "stand", "double") and classic.double == "paid"


def test_no_resplit() -> None:
    point = turn(EU, "8h 8d", ["split"], "8c").decision()
    assert point is not None and "split" not in point.actions


def test_split_aces_take_one_card_each() -> None:
    play = turn(EU, "Ah Ad", ["split"], "5c 9h")
    assert play.advance() == FINISHED
    assert [str(card) for hand in play.hands for card in hand.cards] == ["Ah", "5c", "Ad", "9h"]


def test_six_card_charlie_stops_the_hand() -> None:
    play = turn(FREE, "2h 3d", ["hit"] * 4, "2c Ah 4d 3s")
    assert play.advance() == FINISHED and play.hands[0].charlie
    assert turn(SEATED, "2h 3d", ["hit"] * 4, "2c Ah 4d 3s").advance() == DECISION  # no Charlie seated


def test_timeout_rule_per_profile() -> None:
    assert turn(FREE, "6h 5d").decision().timeout_action == "hit"  # type: ignore[union-attr]
    assert turn(FREE, "Ah 5d").decision().timeout_action == "stand"  # type: ignore[union-attr]
    assert turn(FREE, "9h 3d").decision().timeout_action == "stand"  # type: ignore[union-attr]
    assert turn(EU, "2h 3d").decision().timeout_action == "stand"  # type: ignore[union-attr]


def test_timeout_is_never_a_double_or_split() -> None:
    play = turn(FREE, "5h 5d", ["timeout"], "3c")
    assert len(play.hands) == 1 and play.hands[0].free == 0
    assert [str(card) for card in play.hands[0].cards] == ["5h", "5d", "3c"]


def test_funding_flags_and_fallbacks() -> None:
    point = turn(EU, "8h 8d", balance=999).decision()
    assert point is not None and not point.double_funded and not point.split_funded
    free = turn(FREE, "5h 5d", balance=0).decision()
    assert free is not None and free.double_funded and free.split_funded
    assert turn(EU, "8h 8d", ["split"], balance=999).trace == [(0, "stand")]  # 16: stand
    assert turn(EU, "4h 4d", ["split"], "Kc", balance=999).trace == [(0, "hit")]  # 8: hit
    assert turn(EU, "6h 5d", ["double"], "2c", balance=999).trace == [(0, "hit")]
    assert turn(FREE, "6h 5d", ["double"], "2c", balance=0).trace == [(0, "free_double")]


def test_balance_is_spent_by_split_then_double() -> None:
    play = turn(EU, "9h 9d", ["split", "double"], "2c Kd", balance=1500)
    assert play.trace == [(0, "split"), (0, "hit")]  # the split took 1000, 500 cannot double
    assert play.balance == 500


def test_live_turn_waits_for_cards_in_request_order() -> None:
    play = turn(FREE, "8h 8d", ["split"])
    assert play.advance() == NEEDS_CARD and play.next_card_index == 0
    play.supply(cards("3c"))
    point = play.decision()
    assert point is not None and point.hand_index == 0 and point.total == 11
    play.apply("hit")
    assert play.advance() == NEEDS_CARD and play.next_card_index == 1
    play.supply(cards("3c Th Td"))
    point = play.decision()
    assert point is not None and point.hand_index == 1 and point.total == 18
    assert play.legal_actions() == ("hit", "stand", "timeout")
    play.apply("stand")
    assert play.advance() == FINISHED and play.decision() is None and play.legal_actions() == ()


def test_illegal_decisions_are_refused() -> None:
    with pytest.raises(EngineError, match="illegal action split"):
        turn(FREE, "8h 7d", ["split"])
    with pytest.raises(EngineError, match="illegal action double"):
        turn(FREE, "8h 2d", ["hit", "double"], "2c")
    with pytest.raises(EngineError, match="surplus action"):
        turn(FREE, "8h 2d", ["stand", "hit"])
    with pytest.raises(EngineError, match="before the card"):
        turn(FREE, "8h 2d", ["hit", "hit"])
    with pytest.raises(EngineError, match="unknown action 'surrender'"):
        turn(FREE, "8h 2d", ["surrender"])


def test_play_log_needs_complete_logs() -> None:
    with pytest.raises(EngineError, match="missing decision for hand 1"):
        play_log(FREE, cards("8h 2d"), ["hit"], cards("2c"), main=1000)
    with pytest.raises(EngineError, match="missing stream card"):
        play_log(FREE, cards("8h 2d"), ["hit", "hit"], cards("2c"), main=1000)
    # A natural may log one confirming stand (the contract's vectors in tests/vectors do); nothing more.
    play_log(FREE, cards("Ah Kd"), ["stand"], [], main=1000)
    with pytest.raises(EngineError, match="surplus"):
        play_log(FREE, cards("Ah Kd"), ["stand", "stand"], [], main=1000)


def test_no_splittable_pair_totals_exactly_11() -> None:
    # docs/rules.md says HIT below 11 and STAND above 11 for an unfunded paid split; 11 itself cannot occur.
    from rounds.engine.cards import ALL_CARDS
    from rounds.engine.hands import hand_total, is_splittable_pair

    totals = {hand_total([a, b]) for a in ALL_CARDS for b in ALL_CARDS if is_splittable_pair([a, b])}
    assert 11 not in totals and totals == {2 * n for n in range(2, 11)} | {12}

import pytest

from rounds.engine.cards import parse_card
from rounds.engine.dealer import check_dealer_cards, dealer_hand, dealer_must_draw, peeked_blackjack
from rounds.engine.errors import EngineError
from rounds.engine.rules import rules_for

EU, FREE, PEEK = rules_for("classic_eu"), rules_for("free_bet"), rules_for("classic_us_peek_before")


def hand(text: str) -> list:
    return [parse_card(card) for card in text.split()]


@pytest.mark.parametrize("cards", ["Ts 7c", "As 6c", "6s 6c Tc", "5s 2c Ac", "2s 3c 2d 4h 3d 5c", "Ts 6c 5d"])
def test_complete_dealer_hands(cards: str) -> None:
    check_dealer_cards(EU, hand(cards), must_complete=True, needs_second=True)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("Ts 7c 2d", "drew 2d on 17"),
        ("As 6c 2d", "drew 2d on 17"),  # soft 17 stands
        ("Ts Ac 2d", "drew 2d on 21"),
        ("Ts 5c", "stopped on 15"),
        ("Ts", "second card is missing"),
        ("", "no card"),
    ],
)
def test_bad_dealer_records(cards: str, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        check_dealer_cards(EU, hand(cards), must_complete=True, needs_second=True)


def test_no_live_hand_means_no_draw_needed() -> None:
    check_dealer_cards(EU, hand("7s"), must_complete=False, needs_second=False)  # EU: second card never dealt
    check_dealer_cards(EU, hand("Ts 5c"), must_complete=False, needs_second=True)
    check_dealer_cards(
        EU, hand("Ts 5c 2d"), must_complete=False, needs_second=False
    )  # a complete draw is fine
    with pytest.raises(EngineError, match="second card"):
        check_dealer_cards(
            FREE, hand("7s"), must_complete=False, needs_second=False
        )  # hole card dealt at once
    check_dealer_cards(EU, hand("Ts 2c"), must_complete=False, needs_second=False)
    with pytest.raises(EngineError, match="stopped on 12"):  # once drawing, the dealer completes
        check_dealer_cards(EU, hand("5s 5c 2d"), must_complete=False, needs_second=False)


def test_peek() -> None:
    assert peeked_blackjack(FREE, hand("As Kc")) and not peeked_blackjack(FREE, hand("Ks Ac"))
    assert peeked_blackjack(PEEK, hand("Ks Ac")) and peeked_blackjack(PEEK, hand("As Kc"))
    assert not peeked_blackjack(EU, hand("As Kc"))
    with pytest.raises(EngineError, match="hole card"):
        peeked_blackjack(PEEK, hand("As"))
    final = dealer_hand(EU, hand("Ks Ac"))
    assert final.blackjack and not final.peeked and final.total == 21
    assert dealer_hand(PEEK, hand("Ks Ac")).peeked


def test_dealer_draws_to_16_stands_on_all_17s() -> None:
    assert (
        dealer_must_draw(hand("Ts 6c"))
        and not dealer_must_draw(hand("As 6c"))
        and not dealer_must_draw(hand("Ts 7c"))
    )


def test_live_dealer_drawing() -> None:
    from rounds.engine.dealer import dealer_needs_card

    assert dealer_needs_card(EU, hand("7s"), any_live_hand=True, needs_second=False)
    assert not dealer_needs_card(EU, hand("7s"), any_live_hand=False, needs_second=False)  # EU: never dealt
    assert dealer_needs_card(FREE, hand("7s"), any_live_hand=False, needs_second=False)  # hole card at once
    assert dealer_needs_card(EU, hand("7s 9c"), any_live_hand=True, needs_second=False)
    assert not dealer_needs_card(EU, hand("7s 9c"), any_live_hand=False, needs_second=True)
    assert not dealer_needs_card(EU, hand("As 6c"), any_live_hand=True, needs_second=False)  # soft 17 stands
    assert not dealer_needs_card(FREE, hand("As Kc"), any_live_hand=True, needs_second=False)  # peeked


def test_insurance_offer() -> None:
    assert EU.offers_insurance(1) and FREE.offers_insurance(1) and not EU.offers_insurance(10)
    assert not rules_for("classic_eu", {"insurance": False}).offers_insurance(1)

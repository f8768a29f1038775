from collections import Counter
from random import Random

import pytest

from rounds.engine.cards import (
    ALL_CARDS,
    Card,
    Shoe,
    burn_new_shoe,
    cut_card_index,
    new_shoe,
    parse_card,
    validate_card_counts,
)
from rounds.engine.errors import EngineError


def test_card_text_and_points() -> None:
    ace, ten, king, five = parse_card("Ah"), parse_card("Td"), parse_card("Ks"), parse_card("5c")
    assert (str(ace), ace.rank, ace.suit, ace.points) == ("Ah", "A", "h", 1)
    assert (ten.points, king.points, five.points) == (10, 10, 5)
    assert ace.is_red and not king.is_red and king.is_ten and not ace.is_ten


def test_cards_are_interned_and_immutable() -> None:
    assert parse_card("Qh") is parse_card("Qh")
    assert parse_card("Qh") == Card("Q", "h")
    with pytest.raises(AttributeError):
        parse_card("Qh").rank = "K"  # type: ignore[misc]


@pytest.mark.parametrize("text", ["1h", "10h", "ah", "AH", "A", "Ahh", "", None, 7, "Xs"])
def test_unknown_cards_are_refused(text: object) -> None:
    with pytest.raises(EngineError, match="unknown card"):
        parse_card(text)


def test_new_shoe_holds_every_card_once_per_deck() -> None:
    shoe = new_shoe(8, Random(1))
    assert len(shoe) == 416
    assert set(Counter(shoe).values()) == {8}
    assert new_shoe(8, Random(1)) == shoe
    assert new_shoe(8) != shoe  # the default shuffle is the system CSPRNG


@pytest.mark.parametrize(("shown", "burned"), [("Ah", 1), ("7c", 7), ("Td", 10), ("Ks", 10), ("2s", 2)])
def test_new_shoe_burn_counts_the_shown_card(shown: str, burned: int) -> None:
    shoe = [parse_card(shown)] + list(ALL_CARDS)
    first, burn, rest = burn_new_shoe(shoe)
    assert str(first) == shown
    assert len(burn) == burned
    assert rest == shoe[1 + burned :]


def test_shoe_with_burn_and_cut_card() -> None:
    shoe = Shoe.shuffled(8, Random(3), burn=True)
    assert shoe.position == 1 + shoe.cards[0].points
    assert 416 * 0.75 - 26 <= shoe.cut_index <= 416 * 0.75 + 26
    while not shoe.cut_card_reached:
        shoe.draw()
    assert shoe.position == shoe.cut_index
    assert 1 <= cut_card_index(1, rng=Random(5)) < 52


def test_ninth_copy_is_refused() -> None:
    ace = parse_card("As")
    validate_card_counts([ace] * 8, decks=8)
    with pytest.raises(EngineError, match="As appears 9 times"):
        validate_card_counts([ace] * 9, decks=8)
    with pytest.raises(EngineError, match="appears 2 times but 1 decks"):
        validate_card_counts([ace, ace], decks=1)

"""Side bets: classification of the player's first two cards (plus the dealer's up card) and their settlement.

Each bet has one outcome per round whatever happens later, so these are pure functions of three cards.
Categories are checked from the highest pay down and only the highest is paid.
"""

from __future__ import annotations

from collections.abc import Mapping

from .cards import RANKS, Card
from .errors import EngineError

DEFAULT_PAYTABLES: dict[str, dict[str, int]] = {
    "any_pair": {"suited_pair": 25, "pair": 8},
    "21+3": {"suited_trips": 100, "straight_flush": 40, "three_of_a_kind": 30, "straight": 10, "flush": 5},
    "hot3": {"777": 100, "suited_21": 20, "21": 4, "20": 2, "19": 1},
    "perfect_pairs": {"perfect": 25, "coloured": 12, "mixed": 6},
}
SIDE_BETS: tuple[str, ...] = tuple(DEFAULT_PAYTABLES)

# Rank positions for straights: ace low is 1, ace high is 14 (Q-K-A counts, K-A-2 does not).
_ORDER = {rank: index + 1 for index, rank in enumerate(RANKS)}


def _any_pair(first: Card, second: Card) -> str | None:
    if first.rank != second.rank:
        return None
    return "suited_pair" if first.suit == second.suit else "pair"


def _perfect_pairs(first: Card, second: Card) -> str | None:
    if first.rank != second.rank:
        return None
    if first.suit == second.suit:
        return "perfect"
    return "coloured" if first.is_red == second.is_red else "mixed"


def _is_straight(cards: tuple[Card, Card, Card]) -> bool:
    low = sorted(_ORDER[card.rank] for card in cards)
    if low[0] + 1 == low[1] and low[1] + 1 == low[2]:
        return True
    high = sorted(14 if card.rank == "A" else _ORDER[card.rank] for card in cards)
    return high[0] + 1 == high[1] and high[1] + 1 == high[2]


def _twenty_one_plus_three(cards: tuple[Card, Card, Card]) -> str | None:
    suited = cards[0].suit == cards[1].suit == cards[2].suit
    if cards[0].rank == cards[1].rank == cards[2].rank:
        return "suited_trips" if suited else "three_of_a_kind"
    straight = _is_straight(cards)
    if straight and suited:
        return "straight_flush"
    if straight:
        return "straight"
    return "flush" if suited else None


def _hot3(cards: tuple[Card, Card, Card]) -> str | None:
    if all(card.rank == "7" for card in cards):
        return "777"
    hard = sum(card.points for card in cards)
    total = hard + 10 if any(card.is_ace for card in cards) and hard + 10 <= 21 else hard
    if total == 21:
        return "suited_21" if cards[0].suit == cards[1].suit == cards[2].suit else "21"
    if total in (19, 20):
        return str(total)
    return None


def side_bet_outcome(bet: str, player_cards: tuple[Card, Card], dealer_up: Card) -> str | None:
    """The paytable category the cards win on (the highest only), or None when the bet loses."""
    first, second = player_cards
    if bet == "any_pair":
        return _any_pair(first, second)
    if bet == "perfect_pairs":
        return _perfect_pairs(first, second)
    if bet == "21+3":
        return _twenty_one_plus_three((first, second, dealer_up))
    if bet == "hot3":
        return _hot3((first, second, dealer_up))
    raise EngineError(f"unknown side bet {bet!r}")


def side_bet_net(
    bet: str,
    stake: int,
    player_cards: tuple[Card, Card],
    dealer_up: Card,
    paytable: Mapping[str, int] | None = None,
) -> int:
    """Net result in minor units: stake x pay on a win, -stake on a loss."""
    table = DEFAULT_PAYTABLES[bet] if paytable is None else paytable
    outcome = side_bet_outcome(bet, player_cards, dealer_up)
    if outcome is None:
        return -stake
    if outcome not in table:
        raise EngineError(f"paytable for {bet} has no line {outcome!r}")
    return stake * table[outcome]

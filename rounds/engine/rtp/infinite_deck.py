"""Infinite-deck card model and the dealer's final-outcome distribution.

With an infinite shoe every draw is independent of the cards already seen, so the dealer's outcome depends
only on the up card (and on whether a peek has ruled out blackjack), never on the player's cards.
"""

from __future__ import annotations

from functools import cache, lru_cache

# Card values 2..11 (11 is the ace); a 10-value card is four ranks out of thirteen.
CARD_VALUES: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
CARD_PROBABILITY: dict[int, float] = {value: (4.0 if value == 10 else 1.0) / 13.0 for value in CARD_VALUES}
ACE = 11
UP_CARD_LABELS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
UP_CARD_VALUE: dict[str, int] = {
    label: value for label, value in zip(UP_CARD_LABELS, CARD_VALUES, strict=True)
}

# Dealer outcome slots: 17..21 stood, exactly 22 (a push on free-bet tables), 23 or more, blackjack.
DEALER_STOOD_TOTALS: tuple[int, ...] = (17, 18, 19, 20, 21)
D22 = 5
DBUST = 6
DBJ = 7
DEALER_OUTCOMES = 8


def add_card(total: int, soft: bool, value: int) -> tuple[int, bool]:
    """Best total and softness after adding a card; a total above 21 is a bust (its hard count)."""
    hard = (total - 10 if soft else total) + (1 if value == ACE else value)
    # A hard hand that once counted an ace as 1 can never count it as 11 again, so softness needs only
    # "was soft, or this card is an ace".
    has_ace = soft or value == ACE
    if has_ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def blackjack_probability(up_value: int) -> float:
    """Chance that the hole card completes a blackjack for this up card."""
    if up_value == ACE:
        return CARD_PROBABILITY[10]
    if up_value == 10:
        return CARD_PROBABILITY[ACE]
    return 0.0


@lru_cache(maxsize=64)
def dealer_outcome_distribution(up_value: int, blackjack_excluded: bool) -> tuple[float, ...]:
    """Probabilities of the 8 dealer outcomes (see the slot constants), S17.

    ``blackjack_excluded`` conditions on a peek having found no blackjack.
    """

    @cache
    def draw_out(total: int, soft: bool) -> tuple[float, ...]:
        if total >= 17:
            outcome = [0.0] * DEALER_OUTCOMES
            if total <= 21:
                outcome[total - 17] = 1.0
            elif total == 22:
                outcome[D22] = 1.0
            else:
                outcome[DBUST] = 1.0
            return tuple(outcome)
        result = [0.0] * DEALER_OUTCOMES
        for value in CARD_VALUES:
            sub = draw_out(*add_card(total, soft, value))
            weight = CARD_PROBABILITY[value]
            for slot in range(DEALER_OUTCOMES):
                result[slot] += weight * sub[slot]
        return tuple(result)

    start_total, start_soft = (11, True) if up_value == ACE else (up_value, False)
    result = [0.0] * DEALER_OUTCOMES
    p_blackjack = blackjack_probability(up_value)
    for hole in CARD_VALUES:
        weight = CARD_PROBABILITY[hole]
        total, soft = add_card(start_total, start_soft, hole)
        if total == 21:  # two cards totalling 21: the dealer's blackjack
            if blackjack_excluded:
                continue
            result[DBJ] += weight
            continue
        sub = draw_out(total, soft)
        for slot in range(DEALER_OUTCOMES):
            result[slot] += weight * sub[slot]
    if blackjack_excluded and p_blackjack:
        result = [p / (1.0 - p_blackjack) for p in result]
    return tuple(result)

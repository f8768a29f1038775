"""Exact infinite-deck expected value of the main game under the optimal total-dependent strategy.

Dynamic programming over probabilities: for every dealer up card the dealer's outcome distribution is fixed
(infinite shoe), so each player decision is the best of a few expectations computed from it. The only
thing besides (total, softness) that changes a decision is the number of cards, through the Charlie rule.

Money on a hand is described by a ``Stake``: the real original stake, the real doubled stake and the free
bet riding on it. Free money wins like real money but never loses, so the same settlement formula serves
paid doubles (1, 1, 0), free doubles (1, 0, 1) and the free hand of a free split (0, 0, 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..rules import Rules
from .infinite_deck import (
    ACE,
    CARD_PROBABILITY,
    CARD_VALUES,
    D22,
    DBJ,
    DBUST,
    DEALER_STOOD_TOTALS,
    UP_CARD_LABELS,
    UP_CARD_VALUE,
    add_card,
    blackjack_probability,
    dealer_outcome_distribution,
)
from .rules_config import RtpRules, rtp_rules_from_engine

STAND, HIT, DOUBLE, FREE_DOUBLE, SPLIT, FREE_SPLIT = "S", "H", "D", "FD", "P", "FP"


@dataclass(frozen=True, slots=True)
class Stake:
    original: int
    doubled: int
    free: int

    @property
    def real(self) -> int:
        return self.original + self.doubled

    @property
    def winnings(self) -> int:
        return self.original + self.doubled + self.free


REAL_HAND = Stake(1, 0, 0)
FREE_HAND = Stake(0, 0, 1)
PAID_DOUBLE = Stake(1, 1, 0)
FREE_DOUBLE_STAKE = Stake(1, 0, 1)


class UpCardSolver:
    """Optimal play against one dealer up card; every value is the expectation per unit of main bet."""

    def __init__(self, rules: RtpRules, up_label: str) -> None:
        self.rules = rules
        self.up_label = up_label
        self.up_value = UP_CARD_VALUE[up_label]
        self.peeked = up_label in rules.peek_up_cards
        self.dealer = dealer_outcome_distribution(self.up_value, self.peeked)
        self._hit_stand_memo: dict[tuple[int, bool, int, Stake], tuple[float, str]] = {}

    # --- settlement of one finished hand -----------------------------------------------------------
    def loss_to_late_blackjack(self, stake: Stake) -> int:
        # EU dealing under a 10 returns the doubled portion; everywhere else the real money goes.
        if self.rules.late_ten_blackjack_returns_doubles and self.up_value == 10:
            return -stake.original
        return -stake.real

    def stand_ev(self, total: int, stake: Stake) -> float:
        dealer = self.dealer
        win, lose = stake.winnings, -stake.real
        ev = 0.0
        for slot, dealer_total in enumerate(DEALER_STOOD_TOTALS):
            if total > dealer_total:
                ev += dealer[slot] * win
            elif total < dealer_total:
                ev += dealer[slot] * lose
        if not self.rules.dealer_22_pushes:
            ev += dealer[D22] * win
        ev += dealer[DBUST] * win
        ev += dealer[DBJ] * self.loss_to_late_blackjack(stake)
        return ev

    def charlie_ev(self, stake: Stake) -> float:
        p_blackjack = self.dealer[DBJ]
        if self.rules.charlie_beats_dealer_blackjack:
            return float(stake.winnings)
        return (1.0 - p_blackjack) * stake.winnings + p_blackjack * self.loss_to_late_blackjack(stake)

    # --- decisions -----------------------------------------------------------------------------------
    def _tracked_cards(self, cards: int) -> int:
        # Without a Charlie rule the card count changes nothing, so all counts share one memo entry.
        charlie = self.rules.charlie_cards
        return 2 if charlie is None else min(cards, charlie)

    def hit_stand(self, total: int, soft: bool, cards: int, stake: Stake) -> tuple[float, str]:
        """Best of hit and stand for an unbusted hand of ``cards`` cards (no double possible)."""
        cards = self._tracked_cards(cards)
        key = (total, soft, cards, stake)
        memo = self._hit_stand_memo.get(key)
        if memo is not None:
            return memo
        if cards == self.rules.charlie_cards:
            result = (self.charlie_ev(stake), STAND)
        elif total == 21:  # any 21 stands automatically
            result = (self.stand_ev(21, stake), STAND)
        else:
            stand = self.stand_ev(total, stake)
            hit = self.hit_ev(total, soft, cards, stake)
            result = (hit, HIT) if hit > stand else (stand, STAND)
        self._hit_stand_memo[key] = result
        return result

    def hit_ev(self, total: int, soft: bool, cards: int, stake: Stake) -> float:
        ev = 0.0
        for value in CARD_VALUES:
            new_total, new_soft = add_card(total, soft, value)
            if new_total > 21:
                ev -= CARD_PROBABILITY[value] * stake.real
            else:
                ev += CARD_PROBABILITY[value] * self.hit_stand(new_total, new_soft, cards + 1, stake)[0]
        return ev

    def double_ev(self, total: int, soft: bool, stake: Stake) -> float:
        """One card, then the hand stands (three cards are a Charlie only on a 3-card Charlie table)."""
        charlie = self.rules.charlie_cards == 3
        ev = 0.0
        for value in CARD_VALUES:
            new_total, _ = add_card(total, soft, value)
            if new_total > 21:
                outcome = float(-stake.real)
            else:
                outcome = self.charlie_ev(stake) if charlie else self.stand_ev(new_total, stake)
            ev += CARD_PROBABILITY[value] * outcome
        return ev

    def two_card_options(self, total: int, soft: bool, stake: Stake, may_double: bool) -> dict[str, float]:
        """EV of every non-split action on a two-card hand (the hand is not a blackjack)."""
        if total == 21:
            return {STAND: self.stand_ev(21, stake)}
        options = {
            STAND: self.stand_ev(total, stake),
            HIT: self.hit_ev(total, soft, 2, stake),
        }
        if may_double and stake == REAL_HAND:
            # A two-card hard total never holds an ace, so "hard" is the whole eligibility test.
            if not soft and total in self.rules.free_double_totals:
                options[FREE_DOUBLE] = self.double_ev(total, soft, FREE_DOUBLE_STAKE)
            else:
                options[DOUBLE] = self.double_ev(total, soft, PAID_DOUBLE)
        return options

    def split_hand_ev(self, card: int, stake: Stake) -> float:
        """One hand of a split, from its single card: no resplit; split aces take exactly one card."""
        may_double = self.rules.double_after_split and card != ACE
        start_total, start_soft = (11, True) if card == ACE else (card, False)
        ev = 0.0
        for value in CARD_VALUES:
            total, soft = add_card(start_total, start_soft, value)
            if card == ACE:
                hand_ev = self.stand_ev(total, stake)
            else:
                hand_ev = max(self.two_card_options(total, soft, stake, may_double).values())
            ev += CARD_PROBABILITY[value] * hand_ev
        return ev

    def split_options(self, card: int) -> dict[str, float]:
        if self.rules.free_split and card != 10:
            return {FREE_SPLIT: self.split_hand_ev(card, REAL_HAND) + self.split_hand_ev(card, FREE_HAND)}
        return {SPLIT: 2.0 * self.split_hand_ev(card, REAL_HAND)}

    def initial_options(self, first: int, second: int) -> dict[str, float]:
        total, soft = add_card(*add_card(0, False, first), second)
        options = self.two_card_options(total, soft, REAL_HAND, may_double=True)
        if first == second:
            options.update(self.split_options(first))
        return options

    # --- the up card's expectation ------------------------------------------------------------------
    def expected_value(self) -> float:
        p_player_blackjack = 2.0 * CARD_PROBABILITY[ACE] * CARD_PROBABILITY[10]
        p_dealer_blackjack = blackjack_probability(self.up_value)
        hands_ev = 0.0
        for first in CARD_VALUES:
            for second in CARD_VALUES:
                if {first, second} == {ACE, 10}:
                    continue
                weight = CARD_PROBABILITY[first] * CARD_PROBABILITY[second]
                hands_ev += weight * max(self.initial_options(first, second).values())
        blackjack_ev = p_player_blackjack * (1.0 - p_dealer_blackjack) * self.rules.blackjack_pays
        if self.peeked:
            # hands_ev was computed knowing there is no dealer blackjack; a peeked one costs one unit.
            non_blackjack = 1.0 - p_player_blackjack
            return blackjack_ev + p_dealer_blackjack * -non_blackjack + (1.0 - p_dealer_blackjack) * hands_ev
        return blackjack_ev + hands_ev


@lru_cache(maxsize=64)
def _solvers(rules: RtpRules) -> dict[str, UpCardSolver]:
    return {label: UpCardSolver(rules, label) for label in UP_CARD_LABELS}


def up_card_solvers(rules: Rules | RtpRules) -> dict[str, UpCardSolver]:
    """Solvers per up card label, cached per rules (engine Rules or RtpRules)."""
    return _solvers(rtp_rules_from_engine(rules))


@lru_cache(maxsize=64)
def _main_game_ev(rules: RtpRules) -> float:
    solvers = _solvers(rules)
    return sum(
        CARD_PROBABILITY[UP_CARD_VALUE[label]] * solver.expected_value() for label, solver in solvers.items()
    )


def main_game_ev(rules: Rules | RtpRules) -> float:
    """Infinite-deck EV per unit of initial main bet, optimal strategy; the RTP is ``1 + main_game_ev``."""
    return _main_game_ev(rtp_rules_from_engine(rules))


def main_game_rtp(rules: Rules | RtpRules) -> float:
    return 1.0 + main_game_ev(rules)

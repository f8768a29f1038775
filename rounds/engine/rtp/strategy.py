"""The optimal total-dependent strategy: an operator-facing chart and the dense tables the simulator reads."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..rules import Rules
from .infinite_deck import ACE, CARD_VALUES, UP_CARD_LABELS
from .main_game import (
    DOUBLE,
    FREE_DOUBLE,
    FREE_HAND,
    FREE_SPLIT,
    HIT,
    REAL_HAND,
    SPLIT,
    STAND,
    Stake,
    UpCardSolver,
    up_card_solvers,
)
from .rules_config import RtpRules, rtp_rules_from_engine

HARD_TOTALS = tuple(range(4, 22))
SOFT_TOTALS = tuple(range(12, 22))
PAIR_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
PAIR_VALUE = {label: (ACE if label == "A" else 10 if label == "T" else int(label)) for label in PAIR_LABELS}

# total (as int) -> up card label -> action code
ChartSection = dict[int, dict[str, str]]
StrategyChart = dict[str, Any]

# Action codes shared with the numba simulator.
ACT_STAND, ACT_HIT, ACT_DOUBLE, ACT_FREE_DOUBLE = 0, 1, 2, 3
_ACTION_CODE = {STAND: ACT_STAND, HIT: ACT_HIT, DOUBLE: ACT_DOUBLE, FREE_DOUBLE: ACT_FREE_DOUBLE}
MAX_CARDS_INDEX = 11  # hit/stand tables are indexed by min(cards, 11)


def _best(options: dict[str, float]) -> str:
    # Ties go to the first listed option (stand before hit before doubling), the cheapest for the player.
    return max(options, key=lambda action: options[action])


def _two_card_label(solver: UpCardSolver, total: int, soft: bool, stake: Stake, may_double: bool) -> str:
    """Best action, with the usual chart suffix 's' when a double would otherwise be a stand."""
    options = solver.two_card_options(total, soft, stake, may_double)
    best = _best(options)
    if best in (DOUBLE, FREE_DOUBLE):
        fallback = _best({k: v for k, v in options.items() if k in (STAND, HIT)})
        return best + "s" if fallback == STAND else best
    return best


def _pair_total(value: int) -> tuple[int, bool]:
    return (12, True) if value == ACE else (2 * value, False)


@lru_cache(maxsize=64)
def _strategy_chart(rules: RtpRules) -> StrategyChart:
    solvers = up_card_solvers(rules)
    hard: ChartSection = {}
    soft: ChartSection = {}
    pairs: dict[str, dict[str, str]] = {}
    for total in HARD_TOTALS:
        hard[total] = {up: _two_card_label(s, total, False, REAL_HAND, True) for up, s in solvers.items()}
    for total in SOFT_TOTALS:
        soft[total] = {up: _two_card_label(s, total, True, REAL_HAND, True) for up, s in solvers.items()}
    for label in PAIR_LABELS:
        value = PAIR_VALUE[label]
        row: dict[str, str] = {}
        for up, solver in solvers.items():
            options = solver.initial_options(value, value)
            best = _best(options)
            if best in (SPLIT, FREE_SPLIT):
                row[up] = best
            else:
                total, is_soft = _pair_total(value)
                row[up] = _two_card_label(solver, total, is_soft, REAL_HAND, True)
        pairs[label] = row
    chart: StrategyChart = {"hard": hard, "soft": soft, "pairs": pairs}
    if rules.charlie_cards is not None:
        chart["charlie_exceptions"] = _charlie_exceptions(solvers, rules.charlie_cards)
    if rules.free_split:
        # The free hand of a free split can only win or not; it is played to maximise the chance of winning.
        chart["free_split_hand"] = {
            "hard": {
                t: {up: _two_card_label(s, t, False, FREE_HAND, False) for up, s in solvers.items()}
                for t in HARD_TOTALS
            },
            "soft": {
                t: {up: _two_card_label(s, t, True, FREE_HAND, False) for up, s in solvers.items()}
                for t in SOFT_TOTALS
            },
        }
    return chart


def _charlie_exceptions(solvers: dict[str, UpCardSolver], charlie_cards: int) -> dict[int, dict[str, Any]]:
    """Hit/stand cells that change as a hand nears a Charlie: {cards: {"hard"/"soft": {total: {up: act}}}}."""
    exceptions: dict[int, dict[str, Any]] = {}
    for cards in range(3, charlie_cards):
        sections: dict[str, ChartSection] = {}
        for name, is_soft, totals in (("hard", False, range(4, 21)), ("soft", True, range(12, 21))):
            for total in totals:
                for up, solver in solvers.items():
                    usual = solver.hit_stand(total, is_soft, 2, REAL_HAND)[1]
                    here = solver.hit_stand(total, is_soft, cards, REAL_HAND)[1]
                    if here != usual:
                        sections.setdefault(name, {}).setdefault(total, {})[up] = here
        if sections:
            exceptions[cards] = sections
    return exceptions


def strategy_chart(rules: Rules | RtpRules) -> StrategyChart:
    """Best two-card action per hard total 4-21, soft total 12-21 and pair, against up cards 2..T, A.

    Codes: S stand, H hit, D double (Ds: double, or stand where doubling is not allowed), FD free double,
    P split, FP free split. Tables with a Charlie add ``charlie_exceptions``: the hit/stand cells that
    differ from the two-card choice once a hand holds that many cards. Free-split tables add
    ``free_split_hand``: hit/stand for the free hand of a free split, played for the win alone.
    The result is a fresh copy: callers may change it freely.
    """
    return copy.deepcopy(_strategy_chart(rtp_rules_from_engine(rules)))


@dataclass(frozen=True)
class StrategyTables:
    """Dense arrays indexed [up card 0..9 (2..9, T, A), softness 0/1, total 0..21, ...] for the simulator."""

    two_card: np.ndarray  # int8 [up, soft, total]: S/H/D/FD for a real two-card hand that may double
    hit_real: np.ndarray  # int8 [up, soft, total, cards]: 1 hit, 0 stand, real hand
    hit_free: np.ndarray  # int8 [up, soft, total, cards]: 1 hit, 0 stand, free hand of a free split
    split: np.ndarray  # int8 [up, pair card index 0..9 (2..9, T, A)]: 1 split (free or paid per the rules)


@lru_cache(maxsize=64)
def _strategy_tables(rules: RtpRules) -> StrategyTables:
    solvers = up_card_solvers(rules)
    shape = (len(UP_CARD_LABELS), 2, 22)
    two_card = np.zeros(shape, dtype=np.int8)
    hit_real = np.zeros((*shape, MAX_CARDS_INDEX + 1), dtype=np.int8)
    hit_free = np.zeros((*shape, MAX_CARDS_INDEX + 1), dtype=np.int8)
    split = np.zeros((len(UP_CARD_LABELS), len(CARD_VALUES)), dtype=np.int8)
    for up_index, label in enumerate(UP_CARD_LABELS):
        solver = solvers[label]
        for is_soft, totals in ((0, range(4, 22)), (1, SOFT_TOTALS)):
            for total in totals:
                options = solver.two_card_options(total, bool(is_soft), REAL_HAND, may_double=True)
                two_card[up_index, is_soft, total] = _ACTION_CODE[_best(options)]
                for cards in range(2, MAX_CARDS_INDEX + 1):
                    for table, stake in ((hit_real, REAL_HAND), (hit_free, FREE_HAND)):
                        action = solver.hit_stand(total, bool(is_soft), cards, stake)[1]
                        table[up_index, is_soft, total, cards] = 1 if action == HIT else 0
        for card_index, value in enumerate(CARD_VALUES):
            best = _best(solver.initial_options(value, value))
            split[up_index, card_index] = 1 if best in (SPLIT, FREE_SPLIT) else 0
    for frozen in (two_card, hit_real, hit_free, split):
        frozen.flags.writeable = False  # shared through the cache
    return StrategyTables(two_card=two_card, hit_real=hit_real, hit_free=hit_free, split=split)


def strategy_tables(rules: Rules | RtpRules) -> StrategyTables:
    return _strategy_tables(rtp_rules_from_engine(rules))

"""The dealer's final-outcome distribution from any remaining shoe, for thousands of shoes at once.

For each up card the dealer's possible draws (hole card plus hits, S17) are enumerated once as multisets of
ranks, each with the number of orders in which the dealer would actually draw it and the outcome it ends
in. Every order of one multiset is equally likely from a given shoe, so the chance of a multiset is its
order count times a product of falling factorials; a numba kernel evaluates that for every shoe the player's
hands leave behind. This replaces a recursion per shoe with a flat sum and is what makes the exact analysis
take seconds.

Ranks are indexed 0..9 for card values 2..9, 10-value, ace (the simulator's order).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

RANKS = 10
TEN, ACE = 8, 9
HARD_POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
# Outcome slots, as in infinite_deck: stood on 17..21, exactly 22, 23 or more, two-card blackjack.
D22, DBUST, DBJ, OUTCOMES = 5, 6, 7, 8
MAX_CARDS_IN_RANK = 16 * 16  # 16 decks of 10-value cards
MAX_DRAW = 16


def best_total(hard: int, aces: int) -> int:
    return hard + 10 if aces and hard + 10 <= 21 else hard


def _outcome_slot(total: int, cards: int) -> int:
    if total == 21 and cards == 2:
        return DBJ
    if total <= 21:
        return total - 17
    return D22 if total == 22 else DBUST


def _enumerate_draws(found: dict[tuple[int, ...], list[int]], counts: list[int], hard: int, aces: int, cards: int) -> None:
    """Every order of draws the dealer makes, collected by multiset: {counts: [outcome slot, orders]}."""
    total = best_total(hard, aces)
    if cards >= 2 and total >= 17:
        entry = found.setdefault(tuple(counts), [_outcome_slot(total, cards), 0])
        entry[1] += 1
        return
    for rank in range(RANKS):
        counts[rank] += 1
        _enumerate_draws(found, counts, hard + HARD_POINTS[rank], aces + (rank == ACE), cards + 1)
        counts[rank] -= 1


@lru_cache(maxsize=1)
def dealer_draw_tables() -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """Per up card: (counts [K, 10] int64, outcome slot [K] int64, orders [K] float64)."""
    tables = []
    for up in range(RANKS):
        found: dict[tuple[int, ...], list[int]] = {}
        _enumerate_draws(found, [0] * RANKS, HARD_POINTS[up], int(up == ACE), 1)
        keys = list(found)
        tables.append(
            (
                np.array(keys, dtype=np.int64),
                np.array([found[k][0] for k in keys], dtype=np.int64),
                np.array([found[k][1] for k in keys], dtype=np.float64),
            )
        )
    return tuple(tables)


@lru_cache(maxsize=1)
def falling_factorials() -> np.ndarray:
    """ff[c, k] = c (c-1) ... (c-k+1), for shoes up to 16 decks (the largest the rules accept)."""
    size = 52 * 16 + 1
    table = np.zeros((size, MAX_DRAW + 1), dtype=np.float64)
    for c in range(size):
        value = 1.0
        table[c, 0] = 1.0
        for k in range(1, MAX_DRAW + 1):
            value *= max(c - k + 1, 0)
            table[c, k] = value
    return table


@njit(cache=True)
def _distributions(
    shoes: np.ndarray, counts: np.ndarray, slots: np.ndarray, orders: np.ndarray, ff: np.ndarray
) -> np.ndarray:
    n_shoes = shoes.shape[0]
    n_terms = counts.shape[0]
    # Sparse form of each multiset: its ranks and how many of each, so a term costs ~3 products.
    nnz = np.zeros(n_terms, dtype=np.int64)
    ranks = np.zeros((n_terms, RANKS), dtype=np.int64)
    many = np.zeros((n_terms, RANKS), dtype=np.int64)
    sizes = np.zeros(n_terms, dtype=np.int64)
    for j in range(n_terms):
        for r in range(RANKS):
            if counts[j, r] > 0:
                ranks[j, nnz[j]] = r
                many[j, nnz[j]] = counts[j, r]
                nnz[j] += 1
                sizes[j] += counts[j, r]
    out = np.zeros((n_shoes, OUTCOMES), dtype=np.float64)
    for b in range(n_shoes):
        total = 0
        for r in range(RANKS):
            total += shoes[b, r]
        for j in range(n_terms):
            p = orders[j]
            for t in range(nnz[j]):
                p *= ff[shoes[b, ranks[j, t]], many[j, t]]
                if p == 0.0:
                    break
            if p != 0.0:
                out[b, slots[j]] += p / ff[total, sizes[j]]
    return out


def dealer_distributions(shoes: np.ndarray, up: int) -> np.ndarray:
    """[B, 8] outcome probabilities for B remaining shoes ([B, 10] rank counts, the up card already out).

    A shoe with a negative count belongs to a hand that cannot be dealt; it is read as empty in that rank.
    """
    counts, slots, orders = dealer_draw_tables()[up]
    clamped = np.ascontiguousarray(np.maximum(shoes, 0), dtype=np.int64)
    return _distributions(clamped, counts, slots, orders, falling_factorials())

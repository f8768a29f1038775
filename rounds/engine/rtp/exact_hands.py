"""Every player hand the exact analysis can meet, as a multiset of ranks, with its successors.

A hand's value depends on the cards it holds, not on their order, so the analysis works on multisets: 3,082
live hands of one to twenty-one cards (hard count at most 21). Each split pair adds a *variant* of the same
hands in which one more card of the pair's rank has left the shoe (the other hand's first card). State
``v * n_hands + h`` is hand ``h`` in variant ``v``: 0 the main hand, ``1 + p`` a hand of a split pair of rank p.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .exact_dealer import ACE, HARD_POINTS, RANKS, best_total

VARIANTS = 1 + RANKS


@dataclass(frozen=True)
class HandSpace:
    counts: np.ndarray  # [H, 10] rank counts
    total: np.ndarray  # [H] best total
    soft: np.ndarray  # [H] 1 when an ace counts 11
    cards: np.ndarray  # [H] number of cards
    child: np.ndarray  # [H, 10] index of the hand plus one card of a rank, -1 when that card busts it
    single: np.ndarray  # [10] index of the one-card hand of each rank
    pair: np.ndarray  # [10] index of the two-card pair of each rank

    @property
    def size(self) -> int:
        return int(self.counts.shape[0])


@lru_cache(maxsize=1)
def hand_space() -> HandSpace:
    found: dict[tuple[int, ...], int] = {}
    order: list[tuple[int, ...]] = []

    def grow(counts: tuple[int, ...], hard: int, start: int) -> None:
        for rank in range(start, RANKS):
            new_hard = hard + HARD_POINTS[rank]
            if new_hard > 21:
                continue
            new = counts[:rank] + (counts[rank] + 1,) + counts[rank + 1 :]
            found[new] = len(order)
            order.append(new)
            grow(new, new_hard, rank)

    grow((0,) * RANKS, 0, 0)
    counts = np.array(order, dtype=np.int64)
    hard = counts @ np.array(HARD_POINTS, dtype=np.int64)
    aces = counts[:, ACE]
    total = np.array([best_total(int(h), int(a)) for h, a in zip(hard, aces, strict=True)], dtype=np.int64)
    soft = ((aces > 0) & (hard + 10 <= 21)).astype(np.int64)
    child = np.full((len(order), RANKS), -1, dtype=np.int64)
    for index, hand in enumerate(order):
        for rank in range(RANKS):
            grown = hand[:rank] + (hand[rank] + 1,) + hand[rank + 1 :]
            child[index, rank] = found.get(grown, -1)
    unit = np.eye(RANKS, dtype=np.int64)
    single = np.array([found[tuple(unit[r])] for r in range(RANKS)], dtype=np.int64)
    pair = np.array([found[tuple(2 * unit[r])] for r in range(RANKS)], dtype=np.int64)
    return HandSpace(
        counts=counts, total=total, soft=soft, cards=counts.sum(axis=1), child=child, single=single, pair=pair
    )

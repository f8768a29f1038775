"""Monte Carlo RTP of the first hand of a fresh shoe, one player, playing the infinite-deck optimal strategy.

The kernel is compiled by numba (cached on disk) and works in half units of the main bet, so every result
(3:2 blackjack included) is an integer and the sums are exact. The random generator is SplitMix64 with its
state carried between chunks, so a run is reproducible from its seed whatever the progress interval.

Each hand draws its cards without replacement by a partial Fisher-Yates shuffle of one shoe array. The array
is not restored between hands: a shoe in any order is still the full multiset, and each draw picks uniformly
among the cards not yet drawn in this hand, so every hand sees a freshly shuffled shoe.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..rules import Rules
from .rules_config import RtpRules, rtp_rules_from_engine
from .strategy import ACT_DOUBLE, ACT_FREE_DOUBLE, strategy_tables

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
# Rank values of an infinite shoe: 2..9, four 10-value ranks, ace as 11.
_INFINITE_RANK_VALUES = np.array([2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11], dtype=np.int64)

# Indices into the kernel's int64 rule vector.
R_FREE_SPLIT, R_PUSH_22, R_CHARLIE, R_CHARLIE_BEATS_BJ = 0, 1, 2, 3
R_PEEK_ACE, R_PEEK_TEN, R_LATE_TEN_RETURNS_DOUBLES, R_DAS, R_HOLE_CARD, R_INFINITE = 4, 5, 6, 7, 8, 9
_RULE_VECTOR_SIZE = 10

# Indices into the kernel's mutable uint64 state: generator state, next draw position in the shoe.
_RNG, _POS = 0, 1


@njit(cache=True)
def _random_below(state: np.ndarray, bound: int) -> int:
    """Uniform integer in [0, bound) from SplitMix64 (bias below 1e-7 for shoe-sized bounds)."""
    s = state[_RNG] + _GOLDEN_GAMMA
    state[_RNG] = s
    z = (s ^ (s >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    z = z ^ (z >> _S31)
    return int(((z >> _S32) * np.uint64(bound)) >> _S32)


@njit(cache=True)
def _draw(shoe: np.ndarray, state: np.ndarray, infinite: bool) -> int:
    if infinite:
        return int(_INFINITE_RANK_VALUES[_random_below(state, 13)])
    pos = int(state[_POS])
    j = pos + _random_below(state, shoe.shape[0] - pos)
    card = shoe[j]
    shoe[j] = shoe[pos]
    shoe[pos] = card
    state[_POS] = np.uint64(pos + 1)
    return int(card)


@njit(cache=True)
def _add(total: int, soft: int, value: int) -> tuple[int, int]:
    hard = (total - 10 if soft == 1 else total) + (1 if value == 11 else value)
    if (soft == 1 or value == 11) and hard + 10 <= 21:
        return hard + 10, 1
    return hard, 0


@njit(cache=True)
def _hit_until_stand(
    total: int,
    soft: int,
    cards: int,
    up: int,
    table: np.ndarray,
    charlie: int,
    shoe: np.ndarray,
    state: np.ndarray,
    infinite: bool,
) -> tuple[int, int]:
    """Plays hit/stand from the table; returns (final total, cards). A total above 21 is a bust."""
    while total < 21 and cards != charlie and table[up, soft, total, min(cards, 11)] == 1:
        total, soft = _add(total, soft, _draw(shoe, state, infinite))
        cards += 1
    return total, cards


@njit(cache=True)
def _settle(
    total: int,
    cards: int,
    original: int,
    doubled: int,
    free: int,
    dealer_total: int,
    dealer_blackjack: bool,
    up_value: int,
    rules: np.ndarray,
) -> int:
    """Net result of one hand in half units of the main bet (stakes are in whole units)."""
    real = original + doubled
    winnings = 2 * (original + doubled + free)
    if total > 21:
        return -2 * real
    if dealer_blackjack:
        late_loss = (
            -2 * original if (rules[R_LATE_TEN_RETURNS_DOUBLES] == 1 and up_value == 10) else -2 * real
        )
        if cards == rules[R_CHARLIE] and rules[R_CHARLIE_BEATS_BJ] == 1:
            return winnings
        return late_loss
    if cards == rules[R_CHARLIE]:
        return winnings
    if dealer_total == 22 and rules[R_PUSH_22] == 1:
        return 0
    if dealer_total > 21 or total > dealer_total:
        return winnings
    if total == dealer_total:
        return 0
    return -2 * real


@njit(cache=True)
def _play_from_two_cards(
    total: int,
    soft: int,
    may_double: bool,
    up: int,
    two_card: np.ndarray,
    hit_table: np.ndarray,
    charlie: int,
    shoe: np.ndarray,
    state: np.ndarray,
    infinite: bool,
) -> tuple[int, int, int, int]:
    """Plays a two-card hand to the end; returns (total, cards, doubled stake, free stake added)."""
    if may_double and total < 21:
        action = two_card[up, soft, total]
        if action == ACT_DOUBLE or action == ACT_FREE_DOUBLE:
            total, soft = _add(total, soft, _draw(shoe, state, infinite))
            return total, 3, int(action == ACT_DOUBLE), int(action == ACT_FREE_DOUBLE)
    # Where a double was the best action the hit/stand table holds the best of the other two.
    final, cards = _hit_until_stand(total, soft, 2, up, hit_table, charlie, shoe, state, infinite)
    return final, cards, 0, 0


@njit(cache=True)
def _simulate_chunk(
    hands: int,
    shoe: np.ndarray,
    state: np.ndarray,
    rules: np.ndarray,
    two_card: np.ndarray,
    hit_real: np.ndarray,
    hit_free: np.ndarray,
    split: np.ndarray,
) -> tuple[int, int]:
    """Plays ``hands`` first hands; returns (sum, sum of squares) of the net results in half units."""
    infinite = rules[R_INFINITE] == 1
    hole_card = rules[R_HOLE_CARD] == 1
    das = rules[R_DAS] == 1
    charlie = rules[R_CHARLIE]
    total_sum = 0
    total_squares = 0
    # Up to two hands per round: total, cards, original, doubled, free.
    totals = np.zeros(2, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    originals = np.zeros(2, dtype=np.int64)
    doubles = np.zeros(2, dtype=np.int64)
    frees = np.zeros(2, dtype=np.int64)
    for _ in range(hands):
        state[_POS] = np.uint64(0)
        first = _draw(shoe, state, infinite)
        up_value = _draw(shoe, state, infinite)
        second = _draw(shoe, state, infinite)
        hole = _draw(shoe, state, infinite) if hole_card else 0
        up = up_value - 2
        player_blackjack = first + second == 21
        dealer_blackjack = hole_card and up_value + hole == 21
        peeks = (up_value == 11 and rules[R_PEEK_ACE] == 1) or (up_value == 10 and rules[R_PEEK_TEN] == 1)
        if dealer_blackjack and peeks:
            result = 0 if player_blackjack else -2
            total_sum += result
            total_squares += result * result
            continue
        if player_blackjack:
            if not hole_card:
                dealer_blackjack = up_value + _draw(shoe, state, infinite) == 21
            result = 0 if dealer_blackjack else 3
            total_sum += result
            total_squares += result * result
            continue

        n_hands = 1
        total, soft = _add(0, 0, first)
        total, soft = _add(total, soft, second)
        if first == second and split[up, first - 2] == 1:
            n_hands = 2
            free_split = rules[R_FREE_SPLIT] == 1 and first != 10
            first_total, first_soft = _add(0, 0, first)
            for h in range(2):
                is_free = free_split and h == 1
                originals[h] = 0 if is_free else 1
                frees[h] = 1 if is_free else 0
                split_total, split_soft = _add(first_total, first_soft, _draw(shoe, state, infinite))
                if first == 11:  # split aces: one card each, no further action
                    totals[h], counts[h], doubles[h] = split_total, 2, 0
                    continue
                totals[h], counts[h], doubles[h], extra_free = _play_from_two_cards(
                    split_total,
                    split_soft,
                    das and not is_free,
                    up,
                    two_card,
                    hit_free if is_free else hit_real,
                    charlie,
                    shoe,
                    state,
                    infinite,
                )
                frees[h] += extra_free
        else:
            originals[0] = 1
            totals[0], counts[0], doubles[0], frees[0] = _play_from_two_cards(
                total, soft, True, up, two_card, hit_real, charlie, shoe, state, infinite
            )

        # The dealer plays only when some hand is still unbusted.
        dealer_total = 0
        live = False
        for h in range(n_hands):
            if totals[h] <= 21:
                live = True
        if live:
            if not hole_card:
                hole = _draw(shoe, state, infinite)
                dealer_blackjack = up_value + hole == 21
            if not dealer_blackjack:
                dealer_total, dealer_soft = _add(0, 0, up_value)
                dealer_total, dealer_soft = _add(dealer_total, dealer_soft, hole)
                while dealer_total < 17:
                    dealer_total, dealer_soft = _add(dealer_total, dealer_soft, _draw(shoe, state, infinite))
        result = 0
        for h in range(n_hands):
            result += _settle(
                totals[h],
                counts[h],
                originals[h],
                doubles[h],
                frees[h],
                dealer_total,
                dealer_blackjack,
                up_value,
                rules,
            )
        total_sum += result
        total_squares += result * result
    return total_sum, total_squares


@dataclass(frozen=True, slots=True)
class SimulationResult:
    estimate: float  # RTP: 1 + mean net result per unit of initial main bet
    standard_error: float
    hands: int


def fresh_shoe(decks: int) -> np.ndarray:
    per_deck = [v for v in range(2, 10) for _ in range(4)] + [10] * 16 + [11] * 4
    return np.array(per_deck * decks, dtype=np.int64)


def _rule_vector(rules: RtpRules, infinite_shoe: bool) -> np.ndarray:
    vector = np.zeros(_RULE_VECTOR_SIZE, dtype=np.int64)
    vector[R_FREE_SPLIT] = rules.free_split
    vector[R_PUSH_22] = rules.dealer_22_pushes
    vector[R_CHARLIE] = rules.charlie_cards or -1
    vector[R_CHARLIE_BEATS_BJ] = rules.charlie_beats_dealer_blackjack
    vector[R_PEEK_ACE] = "A" in rules.peek_up_cards
    vector[R_PEEK_TEN] = "T" in rules.peek_up_cards
    vector[R_LATE_TEN_RETURNS_DOUBLES] = rules.late_ten_blackjack_returns_doubles
    vector[R_DAS] = rules.double_after_split
    vector[R_HOLE_CARD] = rules.hole_card
    vector[R_INFINITE] = infinite_shoe
    return vector


def _seed_state(seed: int) -> np.ndarray:
    """Generator state for a seed, scrambled through the SplitMix64 finaliser.

    Consecutive raw states would be the same stream shifted by one draw (SplitMix64 steps by a constant),
    so seeds 1 and 2 would be nearly the same simulation; the finaliser spreads them across the period.
    """
    mask = (1 << 64) - 1
    z = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    state = np.zeros(2, dtype=np.uint64)
    state[_RNG] = np.uint64(z ^ (z >> 31))
    return state


def simulate_first_hand_rtp(
    rules: Rules | RtpRules,
    hands: int,
    seed: int = 0,
    *,
    decks: int | None = None,
    infinite_shoe: bool = False,
    progress: Callable[[int], None] | None = None,
    progress_every: int = 1_000_000,
) -> SimulationResult:
    """Simulated RTP of the first hand of a fresh shoe (``decks`` defaults to the rules' deck count).

    ``progress(hands_done)`` is called after every ``progress_every`` hands and at the end. With
    ``infinite_shoe`` cards are drawn with replacement, which checks the exact infinite-deck figure.
    """
    if hands <= 0:
        raise ValueError("hands must be positive")
    if progress_every <= 0:
        raise ValueError("progress_every must be positive")
    rtp_rules = rtp_rules_from_engine(rules)
    tables = strategy_tables(rtp_rules)
    shoe = fresh_shoe(decks or rtp_rules.decks)
    state = _seed_state(seed)
    rule_vector = _rule_vector(rtp_rules, infinite_shoe)
    total_sum = 0
    total_squares = 0
    done = 0
    while done < hands:
        chunk = min(progress_every, hands - done)
        chunk_sum, chunk_squares = _simulate_chunk(
            chunk, shoe, state, rule_vector, tables.two_card, tables.hit_real, tables.hit_free, tables.split
        )
        total_sum += int(chunk_sum)
        total_squares += int(chunk_squares)
        done += chunk
        if progress is not None:
            progress(done)
    # Half units to units; Python ints keep the sums exact before the final division.
    mean = total_sum / (2 * hands)
    variance = (total_squares / 4 - hands * mean * mean) / max(hands - 1, 1)
    return SimulationResult(
        estimate=1.0 + mean,
        standard_error=math.sqrt(max(variance, 0.0) / hands),
        hands=hands,
    )

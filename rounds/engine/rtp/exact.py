"""Exact expected return of the first hand of a fresh shoe, by combinatorial analysis (no simulation).

For every dealer up card the analysis values every hand the player can hold (as a multiset of ranks, see
``exact_hands``) against the dealer's outcome distribution from exactly the cards left in the shoe
(``exact_dealer``), and plays each decision optimally, in one of two ways the analysers publish:

- *total-dependent* (TD): one decision per up card, hand total and softness (and card count where a Charlie
  rule makes it matter), the same for every hand with that total; found by weighting each hand by the
  chance of reaching it, and iterating until the strategy no longer changes;
- *composition-dependent* (CD): every hand's own best decision, given its exact cards.

Each split hand is played on its own cards only (CDZ-, as the combinatorial analysers call it), which makes
the two hands exchangeable, so each is valued as if the other had not been dealt apart from its first card.
A peeked dealer blackjack is handled by valuing every hand as E[result x no peeked blackjack], so every draw
the player makes is weighted by the shoe as it really is. The same passes give the second moment of the
round's result: exact for a hand that is not split; for the two hands of a split the covariance uses the
dealer's distribution at the split (the hands' own cards moving it by far less than the figure's precision).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..rules import Rules
from .exact_dealer import ACE, D22, DBJ, DBUST, OUTCOMES, RANKS, TEN, dealer_distributions
from .exact_hands import VARIANTS, hand_space
from .rules_config import RtpRules, rtp_rules_from_engine

STAND, HIT, DOUBLE = 0, 1, 2
Stake = tuple[int, int, int]  # (original, doubled, free) in main-bet units
REAL: Stake = (1, 0, 0)
FREE: Stake = (0, 0, 1)
MAX_TD_ROUNDS = 6
_NEG = -1e9


@dataclass(frozen=True, slots=True)
class StrategyResult:
    rtp: float
    variance: float  # of the round's net result per unit of main bet


@dataclass(frozen=True, slots=True)
class ExactMainGame:
    """The main game's return for one configuration, first hand of a fresh shoe."""

    decks: int
    total_dependent: StrategyResult
    composition_dependent: StrategyResult
    # The infinite-deck strategy (the one the project's simulator plays), valued exactly on this shoe.
    infinite_deck_strategy: StrategyResult
    td_rounds: int
    seconds: float


def fresh_shoe_counts(decks: int) -> np.ndarray:
    return np.array([4 * decks] * 8 + [16 * decks, 4 * decks], dtype=np.int64)


class _UpCard:
    """Every state of the player's hands against one up card, and the passes that value them."""

    def __init__(self, rules: RtpRules, up: int) -> None:
        space = hand_space()
        self.rules, self.up, self.space = rules, up, space
        h_count = space.size
        self.h_count = h_count
        states = VARIANTS * h_count
        self.hand = np.tile(np.arange(h_count), VARIANTS)
        self.variant = np.repeat(np.arange(VARIANTS), h_count)
        extra = np.zeros((VARIANTS, RANKS), dtype=np.int64)
        extra[1:] = np.eye(RANKS, dtype=np.int64)
        removed = (space.counts[None, :, :] + extra[:, None, :]).reshape(states, RANKS)
        self.rest = fresh_shoe_counts(rules.decks)
        self.rest[up] -= 1
        comp = self.rest[None, :] - removed
        size = comp.sum(axis=1)
        self.total = space.total[self.hand]
        self.soft = space.soft[self.hand]
        self.cards = space.cards[self.hand]
        split_rank = np.maximum(self.variant - 1, 0)
        holds_pair_card = space.counts[self.hand, split_rank] >= 1
        self.relevant = np.where(self.variant == 0, self.cards >= 2, holds_pair_card)
        self.draw = np.maximum(comp, 0) / size[:, None]
        self.dealer = np.zeros((states, OUTCOMES))
        relevant = np.nonzero(self.relevant)[0]
        unique, inverse = np.unique(removed[relevant], axis=0, return_inverse=True)
        self.dealer[relevant] = dealer_distributions(self.rest[None, :] - unique, up)[inverse.ravel()]
        label = "A" if up == ACE else "T" if up == TEN else ""
        self.peeked = label in rules.peek_up_cards
        self.blackjack_rank = TEN if up == ACE else ACE if up == TEN else -1
        if self.blackjack_rank >= 0:
            held = np.maximum(comp[:, self.blackjack_rank], 0)
            self.p_blackjack = held / size
            # The chance that the hole card is no blackjack once the busting card is out too.
            after = (held[:, None] - (np.arange(RANKS) == self.blackjack_rank)[None, :]) / (size[:, None] - 1)
            self.survives_bust = 1.0 - after if self.peeked else np.ones((states, RANKS))
        else:
            self.p_blackjack = np.zeros(states)
            self.survives_bust = np.ones((states, RANKS))
        child = space.child[self.hand]
        self.child = np.where(child >= 0, child + self.variant[:, None] * h_count, -1)
        self._pays: dict[Stake, np.ndarray] = {}
        rtd = rules.late_ten_blackjack_returns_doubles and up == TEN
        self.late_doubles = 0 if rtd else 1
        self.levels = [np.nonzero(self.relevant & (self.cards == n))[0] for n in range(22)]

    # --- settlement -------------------------------------------------------------------------------
    def pay(self, stake: Stake) -> np.ndarray:
        """[S, 8]: the hand's result against each dealer outcome when it stands with this stake."""
        if stake in self._pays:
            return self._pays[stake]
        original, doubled, free = stake
        win, lose = original + doubled + free, -(original + doubled)
        late = 0.0 if self.peeked else -(original + doubled * self.late_doubles)
        pay = np.zeros((self.total.shape[0], OUTCOMES))
        for slot in range(5):
            pay[:, slot] = np.where(self.total > 17 + slot, win, np.where(self.total < 17 + slot, lose, 0))
        pay[:, D22] = 0 if self.rules.dealer_22_pushes else win
        pay[:, DBUST] = win
        pay[:, DBJ] = late
        charlie = self.rules.charlie_cards
        if charlie is not None:
            reached = self.cards == charlie
            pay[reached, :DBJ] = win
            if not self.peeked:
                pay[reached, DBJ] = win if self.rules.charlie_beats_dealer_blackjack else late
        self._pays[stake] = pay
        return pay

    def stand(self, group: np.ndarray, stake: Stake) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pay = self.pay(stake)[group]
        dealer = self.dealer[group]
        return (dealer * pay).sum(axis=1), (dealer * pay * pay).sum(axis=1), pay

    def draw_one(
        self, group: np.ndarray, stake: Stake, value: np.ndarray, moment: np.ndarray, vector: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Take one card, then continue with the given per-state value, second moment and result vector."""
        lose = -(stake[0] + stake[1])
        child = self.child[group]
        busts = child < 0
        safe = np.where(busts, 0, child)
        draw = self.draw[group]
        survive = self.survives_bust[group]
        v = (draw * np.where(busts, lose * survive, value[safe])).sum(axis=1)
        m = (draw * np.where(busts, lose * lose * survive, moment[safe])).sum(axis=1)
        a = np.einsum("gr,gro->go", draw, np.where(busts[:, :, None], float(lose), vector[safe]))
        return v, m, a


@dataclass
class _Decisions:
    """Per-state decisions of one pass, for the next pass's weights."""

    hit: dict[Stake, np.ndarray]
    two_card: dict[Stake, np.ndarray]
    split: np.ndarray


class _Pass:
    """One backward pass over an up card's states; ``mode`` is "cd", "td" (with weights) or "fixed"."""

    def __init__(self, up: _UpCard, mode: str, weights: Any = None, tables: Any = None) -> None:
        self.u, self.mode, self.weights, self.tables = up, mode, weights, tables
        states = up.total.shape[0]
        self.value = {s: np.zeros(states) for s in (REAL, FREE)}
        self.moment = {s: np.zeros(states) for s in (REAL, FREE)}
        self.vector = {s: np.zeros((states, OUTCOMES)) for s in (REAL, FREE)}
        self.decisions = _Decisions(
            hit={s: np.zeros(states, dtype=bool) for s in (REAL, FREE)},
            two_card={s: np.zeros(states, dtype=np.int64) for s in (REAL, FREE)},
            split=np.zeros(RANKS, dtype=bool),
        )

    # --- which decision ----------------------------------------------------------------------------
    def _aggregate(
        self, group: np.ndarray, stake: Stake, keys: np.ndarray, options: np.ndarray
    ) -> np.ndarray:
        """TD: the option that is best summed over each class, weighted by the chance of reaching it."""
        weight = self.weights[stake][group]
        classes, inverse = np.unique(keys, return_inverse=True)
        inverse = inverse.ravel()
        sums = np.zeros((classes.shape[0], options.shape[1]))
        np.add.at(sums, inverse, weight[:, None] * np.where(options <= _NEG / 2, 0.0, options))
        reached = np.zeros(classes.shape[0])
        np.add.at(reached, inverse, weight)
        available = np.zeros((classes.shape[0], options.shape[1]), dtype=bool)
        np.logical_or.at(available, inverse, options > _NEG / 2)
        best = np.where(available, sums, -np.inf).argmax(axis=1)[inverse]
        own = options.argmax(axis=1)
        return np.where(reached[inverse] > 0, best, own)

    def _hit_decision(
        self, group: np.ndarray, stake: Stake, stand: np.ndarray, hit: np.ndarray
    ) -> np.ndarray:
        u = self.u
        if self.mode == "fixed":
            table = self.tables.hit_real if stake == REAL else self.tables.hit_free
            return table[u.up, u.soft[group], u.total[group], np.minimum(u.cards[group], 11)] == 1
        options = np.stack([stand, hit], axis=1)
        if self.mode == "cd":
            return hit > stand
        return self._aggregate(group, stake, self._hit_keys(group), options) == HIT

    def _hit_keys(self, group: np.ndarray) -> np.ndarray:
        u = self.u
        by_cards = u.cards[group] if u.rules.charlie_cards is not None else 0
        return (u.soft[group] * 22 + u.total[group]) * 32 + by_cards

    # --- the pass -------------------------------------------------------------------------------------
    def _groups_of_three_or_more(self) -> list[np.ndarray]:
        u = self.u
        deeper = np.concatenate(u.levels[3:])
        if self.mode != "td" or u.rules.charlie_cards is not None:
            return [u.levels[n] for n in range(21, 2, -1)]
        # Without a Charlie a total's class spans card counts: totals in an order where every draw lands
        # on a class already decided (hard 21..11, soft 21..12, hard 10..4).
        order = [(0, t) for t in range(21, 10, -1)] + [(1, t) for t in range(21, 11, -1)]
        order += [(0, t) for t in range(10, 3, -1)]
        return [deeper[(u.soft[deeper] == s) & (u.total[deeper] == t)] for s, t in order]

    def run(self) -> tuple[float, float]:
        for group in self._groups_of_three_or_more():
            if group.size:
                self._hit_or_stand(group)
        self._two_cards(self.u.levels[2])
        self._one_card(self.u.levels[1])
        return self._round()

    def _auto_stand(self, group: np.ndarray) -> np.ndarray:
        charlie = self.u.rules.charlie_cards
        reached = self.u.cards[group] == charlie if charlie is not None else False
        return (self.u.total[group] == 21) | reached

    def _hit_or_stand(self, group: np.ndarray) -> None:
        u = self.u
        for stake in (REAL, FREE):
            sv, sm, sa = u.stand(group, stake)
            hv, hm, ha = u.draw_one(group, stake, self.value[stake], self.moment[stake], self.vector[stake])
            hit = self._hit_decision(group, stake, sv, hv) & ~self._auto_stand(group)
            self.decisions.hit[stake][group] = hit
            self.value[stake][group] = np.where(hit, hv, sv)
            self.moment[stake][group] = np.where(hit, hm, sm)
            self.vector[stake][group] = np.where(hit[:, None], ha, sa)

    def _free_double_allowed(self, group: np.ndarray) -> np.ndarray:
        totals = self.u.rules.free_double_totals
        return (self.u.soft[group] == 0) & np.isin(self.u.total[group], totals)

    def _two_cards(self, group: np.ndarray) -> None:
        u = self.u
        rules = u.rules
        variant = u.variant[group]
        split_aces = variant == 1 + ACE
        may_double = np.where(variant == 0, True, rules.double_after_split) & ~split_aces
        may_double &= u.total[group] != 21
        free_double = self._free_double_allowed(group)
        for stake in (REAL, FREE):
            sv, sm, sa = u.stand(group, stake)
            hv, hm, ha = u.draw_one(group, stake, self.value[stake], self.moment[stake], self.vector[stake])
            free_stake = (stake[0], 0, stake[2] + 1) if stake == REAL else stake
            paid_stake = (stake[0], stake[1] + 1, stake[2])
            results = {}
            for name, double_stake in (("free", free_stake), ("paid", paid_stake)):
                dv_all, dm_all, da_all = u.stand(np.arange(u.total.shape[0]), double_stake)
                results[name] = u.draw_one(group, double_stake, dv_all, dm_all, da_all)
            dv = np.where(free_double, results["free"][0], results["paid"][0])
            dm = np.where(free_double, results["free"][1], results["paid"][1])
            da = np.where(free_double[:, None], results["free"][2], results["paid"][2])
            options = np.stack(
                [sv, np.where(split_aces | (u.total[group] == 21), _NEG, hv), np.where(may_double, dv, _NEG)],
                axis=1,
            )
            action = self._two_card_decision(group, stake, options, may_double, split_aces)
            self.decisions.two_card[stake][group] = action
            self.value[stake][group] = options[np.arange(group.size), action]
            self.moment[stake][group] = np.choose(action, [sm, hm, dm])
            self.vector[stake][group] = np.choose(action[:, None], [sa, ha, da])

    def _two_card_decision(
        self, group: np.ndarray, stake: Stake, options: np.ndarray, may_double: np.ndarray, forced: np.ndarray
    ) -> np.ndarray:
        u = self.u
        if self.mode == "cd":
            return options.argmax(axis=1)
        if self.mode == "fixed":
            tables = self.tables
            hit_table = tables.hit_real if stake == REAL else tables.hit_free
            follow = hit_table[u.up, u.soft[group], u.total[group], 2].astype(np.int64)
            # The simulator doubles a real hand from its two-card table and never doubles a free hand.
            chart = np.minimum(tables.two_card[u.up, u.soft[group], u.total[group]], DOUBLE).astype(np.int64)
            action = np.where(may_double & (stake == REAL), chart, follow)
            return np.where(forced | (u.total[group] == 21), STAND, action)
        keys = (may_double.astype(np.int64) * 2 + u.soft[group]) * 22 + u.total[group]
        # Split aces take no decision: pooled with hands that may hit they would bias the class.
        keys = np.where(forced, -1, keys)
        action = self._aggregate(group, stake, keys, options)
        return np.where(forced, STAND, action)

    def _one_card(self, group: np.ndarray) -> None:
        u = self.u
        group = group[u.variant[group] > 0]
        for stake in (REAL, FREE):
            v, m, a = u.draw_one(group, stake, self.value[stake], self.moment[stake], self.vector[stake])
            self.value[stake][group], self.moment[stake][group], self.vector[stake][group] = v, m, a

    def _round(self) -> tuple[float, float]:
        """Expectation and second moment of the round's result, given this up card."""
        u, space = self.u, self.u.space
        rules = u.rules
        ev = second = 0.0
        rest, size = u.rest, u.rest.sum()
        for first in range(RANKS):
            for second_rank in range(first, RANKS):
                ways = rest[first] * (rest[second_rank] - (first == second_rank))
                chance = (ways * (1 if first == second_rank else 2)) / (size * (size - 1))
                if chance == 0:
                    continue
                hand = space.child[space.single[first], second_rank]
                state = hand  # variant 0
                p_dealer_bj = u.p_blackjack[state]
                if {first, second_rank} == {ACE, TEN}:
                    pays = rules.blackjack_pays
                    ev += chance * pays * (1 - p_dealer_bj)
                    second += chance * pays * pays * (1 - p_dealer_bj)
                    continue
                value, moment = self._hand_value(state, first if first == second_rank else -1)
                if u.peeked:
                    value -= p_dealer_bj
                    moment += p_dealer_bj
                ev += chance * value
                second += chance * moment
        return ev, second

    def _hand_value(self, state: int, pair_rank: int) -> tuple[float, float]:
        u = self.u
        keep_v, keep_m = self.value[REAL][state], self.moment[REAL][state]
        if pair_rank < 0:
            return keep_v, keep_m
        single = (1 + pair_rank) * u.h_count + u.space.single[pair_rank]
        free = u.rules.free_split and pair_rank != TEN
        second_stake = FREE if free else REAL
        split_v = self.value[REAL][single] + self.value[second_stake][single]
        dealer = u.dealer[state].copy()
        if u.peeked:
            dealer[DBJ] = 0.0
        cross = float((dealer * self.vector[REAL][single] * self.vector[second_stake][single]).sum())
        split_m = self.moment[REAL][single] + self.moment[second_stake][single] + 2 * cross
        if self.mode == "fixed":
            split = bool(self.tables.split[u.up, pair_rank])
        else:
            split = split_v > keep_v
        self.decisions.split[pair_rank] = split
        return (split_v, split_m) if split else (keep_v, keep_m)


def _weights(up: _UpCard, decisions: _Decisions) -> dict[Stake, np.ndarray]:
    """The chance of reaching each state when the player follows ``decisions``."""
    space, rest, size = up.space, up.rest, up.rest.sum()
    states = up.total.shape[0]
    weights = {s: np.zeros(states) for s in (REAL, FREE)}
    for first in range(RANKS):
        for second in range(first, RANKS):
            if {first, second} == {ACE, TEN}:
                continue
            ways = rest[first] * (rest[second] - (first == second))
            chance = ways * (1 if first == second else 2) / (size * (size - 1))
            state = space.child[space.single[first], second]
            if first == second and decisions.split[first]:
                single = (1 + first) * up.h_count + space.single[first]
                free = up.rules.free_split and first != TEN
                weights[REAL][single] += chance * (1 if free else 2)
                if free:
                    weights[FREE][single] += chance
            else:
                weights[REAL][state] += chance
    for n in range(1, 21):
        group = up.levels[n]
        if n == 1:
            group = group[up.variant[group] > 0]
        for stake in (REAL, FREE):
            if n == 1:
                goes = np.ones(group.size, dtype=bool)
            elif n == 2:
                goes = decisions.two_card[stake][group] == HIT
            else:
                goes = decisions.hit[stake][group]
            source, child = group[goes], up.child[group[goes]]
            flow = weights[stake][source][:, None] * up.draw[source]
            live = child >= 0
            np.add.at(weights[stake], child[live], flow[live])
    return weights


def _solve(rules: RtpRules, tables: Any) -> ExactMainGame:
    started = time.perf_counter()
    shoe = fresh_shoe_counts(rules.decks)
    results = {}
    td_rounds = 0
    totals = {"cd": [0.0, 0.0], "td": [0.0, 0.0], "fixed": [0.0, 0.0]}
    for up_rank in range(RANKS):
        p_up = shoe[up_rank] / shoe.sum()
        up = _UpCard(rules, up_rank)
        ev, m2 = _Pass(up, "cd").run()
        totals["cd"][0] += p_up * ev
        totals["cd"][1] += p_up * m2
        fixed = _Pass(up, "fixed", tables=tables)
        ev, m2 = fixed.run()
        totals["fixed"][0] += p_up * ev
        totals["fixed"][1] += p_up * m2
        decisions = fixed.decisions
        for rounds in range(1, MAX_TD_ROUNDS + 1):
            td = _Pass(up, "td", weights=_weights(up, decisions))
            ev, m2 = td.run()
            td_rounds = max(td_rounds, rounds)
            if _same(td.decisions, decisions, up):
                break
            decisions = td.decisions
        totals["td"][0] += p_up * ev
        totals["td"][1] += p_up * m2
    for mode, (ev, m2) in totals.items():
        results[mode] = StrategyResult(rtp=float(1.0 + ev), variance=float(m2 - ev * ev))
    return ExactMainGame(
        decks=rules.decks,
        total_dependent=results["td"],
        composition_dependent=results["cd"],
        infinite_deck_strategy=results["fixed"],
        td_rounds=td_rounds,
        seconds=time.perf_counter() - started,
    )


def _same(a: _Decisions, b: _Decisions, up: _UpCard) -> bool:
    relevant = up.relevant
    return bool(
        np.array_equal(a.split, b.split)
        and all(np.array_equal(a.hit[s][relevant], b.hit[s][relevant]) for s in (REAL, FREE))
        and all(np.array_equal(a.two_card[s][relevant], b.two_card[s][relevant]) for s in (REAL, FREE))
    )


@lru_cache(maxsize=32)
def _exact_cached(rules: RtpRules) -> ExactMainGame:
    from .strategy import strategy_tables

    return _solve(rules, strategy_tables(rules))


def exact_main_game(rules: Rules | RtpRules) -> ExactMainGame:
    """The exact first-hand return of a configuration (memoised per configuration in this process)."""
    return _exact_cached(rtp_rules_from_engine(rules))

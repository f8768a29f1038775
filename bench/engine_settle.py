"""Benchmark: player decision logs settled per second for one common-draw round, on one core.

    .venv/bin/python bench/engine_settle.py [--players 100000] [--rounds 5] [--seed 1]

Each round deals a free_bet position from a shuffled shoe, gives every player a realistic decision log (a mix
of stand thresholds, doubles, splits and timeouts, with varied stakes, balances and side bets), then times
`settle_round` over all of them. The memoised path is checked against the plain path on a sample first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rounds.engine.bets import PlayerEntry  # noqa: E402
from rounds.engine.cards import Card, new_shoe  # noqa: E402
from rounds.engine.dealer import peeked_blackjack  # noqa: E402
from rounds.engine.hands import hand_value  # noqa: E402
from rounds.engine.play import DECISION, PlayerPlay  # noqa: E402
from rounds.engine.rules import Rules, rules_for  # noqa: E402
from rounds.engine.settle import settle_round  # noqa: E402

Policy = tuple[int, bool, bool, float]


def decision_log(
    rules: Rules, first: tuple[Card, Card], stream: list[Card], policy: Policy, rng: Random
) -> list[str]:
    stand_on, doubles, splits, timeout_rate = policy
    play = PlayerPlay(rules, first, main=2, stream=stream)
    actions: list[str] = []
    while play.advance() == DECISION:
        point = play.decision()
        assert point is not None
        if rng.random() < timeout_rate:
            action = "timeout"
        elif splits and "split" in point.actions:
            action = "split"
        elif doubles and "double" in point.actions and point.total in (9, 10, 11):
            action = "double"
        else:
            action = "hit" if point.total < stand_on else "stand"
        play.apply(action)
        actions.append(action)
    return actions


def build_round(
    players: int, seed: int
) -> tuple[Rules, tuple[Card, Card], list[Card], list[Card], list[PlayerEntry]]:
    rules = rules_for("free_bet")
    rng = Random(seed)
    while True:
        shoe = new_shoe(8, rng)
        first, up, hole, rest = (shoe[0], shoe[2]), shoe[1], shoe[3], shoe[4:]
        if not peeked_blackjack(rules, (up, hole)):
            break
    logs: dict[Policy, list[str]] = {}
    entries = []
    for index in range(players):
        policy = (rng.randint(12, 18), rng.random() < 0.6, rng.random() < 0.7, rng.choice((0.0, 0.0, 0.1)))
        if policy not in logs or policy[3]:
            logs[policy] = decision_log(rules, first, rest, policy, rng)
        main = rng.choice((100, 200, 500, 1000, 2000, 5000))
        side_bets = {
            bet: rng.choice((100, 500)) for bet in ("any_pair", "21+3", "hot3") if rng.random() < 0.3
        }
        insurance = up.points == 1 and rng.random() < 0.1
        balance = rng.choice((None, rng.randint(0, 20_000)))
        entries.append(
            PlayerEntry(
                f"p{index}",
                main=main,
                side_bets=side_bets,
                insurance=insurance,
                balance=balance,
                actions=tuple(logs[policy]),
            )
        )
    used = max(_used(rules, first, rest, entry) for entry in entries[:2000])
    used = max(
        used, max(_used(rules, first, rest, entry) for entry in {e.actions: e for e in entries}.values())
    )
    stream = rest[:used]
    dealer = [up, hole]
    for card in rest[used:]:
        if hand_value(dealer)[0] >= 17:
            break
        dealer.append(card)
    return rules, first, dealer, stream, entries


def _used(rules: Rules, first: tuple[Card, Card], rest: list[Card], entry: PlayerEntry) -> int:
    play = PlayerPlay(rules, first, main=entry.main, balance=entry.balance_after_insurance(), stream=rest)
    for action in entry.actions:
        play.advance()
        play.apply(action)
    play.advance()
    return play.used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates, slow_rates = [], []
    for number in range(args.rounds):
        rules, first, dealer, stream, entries = build_round(args.players, args.seed + number)
        sample = entries[:5000]
        started = time.perf_counter()
        slow = settle_round(rules, first, dealer, stream, sample, memo=False)
        slow_rates.append(len(sample) / (time.perf_counter() - started))
        assert settle_round(rules, first, dealer, stream, sample, memo=True) == slow, (
            "memo differs from plain path"
        )
        started = time.perf_counter()
        result = settle_round(rules, first, dealer, stream, entries)
        elapsed = time.perf_counter() - started
        assert len(result.players) == len(entries)
        rates.append(len(entries) / elapsed)
        distinct = len({entry.actions for entry in entries})
        print(
            f"round {number + 1}: {' '.join(map(str, first))} vs {' '.join(map(str, dealer))}, "
            f"{distinct} distinct logs: {len(entries):,} players in {elapsed:.3f} s = {rates[-1]:,.0f} logs/s"
        )
    print(f"plain path (no memo): {statistics.median(slow_rates):,.0f} logs/s")
    print(
        f"settled decision logs per second, one core, median of {args.rounds} rounds: {statistics.median(rates):,.0f}"
    )


if __name__ == "__main__":
    main()

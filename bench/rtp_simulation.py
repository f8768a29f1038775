"""Benchmark of the main-game RTP simulation: hands per second on one core, and the figures it gives.

Usage: .venv/bin/python bench/rtp_simulation.py [--hands N] [--seed S] [--profiles free_bet classic_eu ...]

Prints one markdown table (ready for docs/benchmarks.md): for each profile the exact infinite-deck RTP, the
simulated 8-deck first-hand RTP with its standard error, the published figure and the distance to it in
standard errors, and the simulation speed. The numba kernel is compiled (or loaded from its cache) before
timing, and the kernel is single-threaded, so the speed is that of one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rounds.engine.rtp import main_game_rtp, simulate_first_hand_rtp  # noqa: E402
from rounds.engine.rules import rules_for  # noqa: E402

PUBLISHED = {"free_bet": 0.9845, "free_bet_seated": 0.9826, "classic_eu": 0.9949}
DEFAULT_PROFILES = (
    "free_bet",
    "free_bet_seated",
    "classic_eu",
    "classic_us_peek_before",
    "classic_us_peek_after",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000, help="hands per profile (default 10M)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profiles", nargs="+", default=list(DEFAULT_PROFILES))
    args = parser.parse_args()

    started = time.perf_counter()
    simulate_first_hand_rtp(rules_for("free_bet"), 1_000, seed=0)
    print(f"numba kernel ready in {time.perf_counter() - started:.2f} s (compile or cache load)\n")

    columns = ("profile", "infinite deck (exact)", "8 decks, first hand (simulated)", "published", "distance")
    print("| " + " | ".join((*columns, "hands", "hands/s")) + " |")
    print("|---" * (len(columns) + 2) + "|")
    for name in args.profiles:
        rules = rules_for(name)
        exact = main_game_rtp(rules)
        started = time.perf_counter()
        result = simulate_first_hand_rtp(rules, args.hands, seed=args.seed)
        elapsed = time.perf_counter() - started
        published = PUBLISHED.get(name)
        distance = (
            "" if published is None else f"{(result.estimate - published) / result.standard_error:+.2f} SE"
        )
        cells = (
            name,
            f"{exact * 100:.4f} %",
            f"{result.estimate * 100:.4f} % ± {result.standard_error * 100:.4f}",
            "" if published is None else f"{published * 100:.2f} %",
            distance,
            f"{result.hands:,}",
            f"{result.hands / elapsed:,.0f}",
        )
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

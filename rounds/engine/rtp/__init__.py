"""RTP mathematics: exact side-bet returns, the infinite-deck main-game EV and strategy, and a Monte Carlo
figure for the first hand of a fresh shoe. Pure Python plus numpy/numba; no Django.

The simulator is imported lazily so that pages that only show side-bet RTPs or a strategy chart do not pay
for loading numba.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .main_game import main_game_ev, main_game_rtp
from .rules_config import RtpRules, rtp_rules_for, rtp_rules_from_engine
from .side_bets import (
    ALL_SIDE_BETS,
    INSURANCE,
    INSURANCE_PAYTABLE,
    default_paytable,
    side_bet_breakdown,
    side_bet_rtp,
)
from .strategy import StrategyChart, strategy_chart

if TYPE_CHECKING:
    from .simulation import SimulationResult, simulate_first_hand_rtp

__all__ = [
    "ALL_SIDE_BETS",
    "INSURANCE",
    "INSURANCE_PAYTABLE",
    "RtpRules",
    "SimulationResult",
    "StrategyChart",
    "default_paytable",
    "main_game_ev",
    "main_game_rtp",
    "rtp_rules_for",
    "rtp_rules_from_engine",
    "side_bet_breakdown",
    "side_bet_rtp",
    "simulate_first_hand_rtp",
    "strategy_chart",
]

_LAZY = {"SimulationResult", "simulate_first_hand_rtp"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import simulation

        return getattr(simulation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

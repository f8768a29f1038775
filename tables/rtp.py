"""The RTP figures of a table, from the rules engine's mathematics (this module only adapts and formats them).

Side-bet RTPs are exact fractions; the main game has an exact infinite-deck figure (a float from a DP) and a
simulated finite-shoe estimate stored in TableRtpRun.
"""

from __future__ import annotations

from fractions import Fraction

from rounds.engine.rtp import side_bets as side_bet_math
from rounds.engine.rtp.main_game import main_game_ev
from rounds.engine.rtp.strategy import strategy_chart
from rounds.engine.rules import Rules

PERCENT_PLACES = 4
ONE = Fraction(1)


def side_bet_rtp(side_bet: str, paytable: dict[str, int], decks: int) -> Fraction:
    return side_bet_math.side_bet_rtp(side_bet, paytable, decks)


def insurance_rtp(decks: int) -> Fraction:
    return side_bet_math.side_bet_rtp(side_bet_math.INSURANCE, side_bet_math.INSURANCE_PAYTABLE, decks)


def main_game_infinite_rtp(rules: Rules) -> float:
    return 1.0 + main_game_ev(rules)


def table_strategy_chart(rules: Rules) -> dict:
    return strategy_chart(rules)


def percent(value: Fraction, places: int = PERCENT_PLACES) -> str:
    """An exact fraction as a percentage rounded half-up to `places` decimals ("95.9036")."""
    scaled = value * 100 * 10**places
    rounded = (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)
    sign = "-" if rounded < 0 else ""
    whole, frac = divmod(abs(rounded), 10**places)
    return f"{sign}{whole}.{frac:0{places}d}" if places else f"{sign}{whole}"


def float_percent(value: float, places: int = 2) -> str:
    return f"{value * 100:.{places}f}"

"""The rule facts the RTP mathematics needs, and the one place that maps the engine's Rules onto them.

The engine's ``Rules`` carries everything a table needs (seats, timeouts, paytables...). The mathematics needs
only the facts below, in a small frozen dataclass: two tables that differ only in limits or paytables share
one cached solution, and the DP and the simulator do not follow every change of the engine's shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules import Rules, rules_for

ACE_UP, TEN_UP = "A", "T"
# Up cards on which the dealer checks for blackjack before the action round, per dealing.
_PEEK_UP_CARDS: dict[str, frozenset[str]] = {
    "ace_peek": frozenset({ACE_UP}),
    "us_peek_before": frozenset({ACE_UP, TEN_UP}),
    "eu": frozenset(),
    "us_peek_after": frozenset(),
}


@dataclass(frozen=True, slots=True)
class RtpRules:
    """Main-game rules as the RTP maths sees them (dealer S17, 3:2 blackjack, one split, no surrender)."""

    name: str
    # Two-card hard totals doubled for free (free bet = main bet); () when there is no free double.
    free_double_totals: tuple[int, ...]
    # Pairs A-A..9-9 split with a free bet on hand 2; 10-value pairs are always split with real money.
    free_split: bool
    dealer_22_pushes: bool
    # Cards that make an unbusted hand win outright; None when the table has no Charlie rule.
    charlie_cards: int | None
    charlie_beats_dealer_blackjack: bool
    peek_up_cards: frozenset[str]
    # EU: a dealer blackjack under a 10 found after the action returns the doubled portions.
    late_ten_blackjack_returns_doubles: bool
    double_after_split: bool
    # The dealer's second card is dealt before the action (a hole card) or after it (EU).
    hole_card: bool
    decks: int = 8
    # What a blackjack pays to 1: 1.5 (3:2) on every profile; 1.2 (6:5) is an analysis-only setting.
    blackjack_pays: float = 1.5


def rtp_rules_from_engine(rules: Rules | RtpRules) -> RtpRules:
    """Map the engine's ``Rules`` onto RtpRules (an RtpRules is returned as it is)."""
    if isinstance(rules, RtpRules):
        return rules
    if not isinstance(rules, Rules):
        raise TypeError(f"expected rounds.engine.rules.Rules or RtpRules, got {type(rules).__name__}")
    return RtpRules(
        name=rules.name,
        free_double_totals=tuple(sorted(rules.free_double_totals)) if rules.free_double else (),
        free_split=rules.free_split,
        dealer_22_pushes=rules.dealer_22_push,
        charlie_cards=rules.charlie,
        charlie_beats_dealer_blackjack=rules.charlie_beats_dealer_blackjack,
        peek_up_cards=_PEEK_UP_CARDS[rules.dealing],
        late_ten_blackjack_returns_doubles=rules.ten_up_blackjack_returns_double,
        double_after_split=rules.double_after_split,
        hole_card=rules.has_hole_card,
        decks=rules.decks,
    )


def rtp_rules_for(name: str, overrides: dict[str, Any] | None = None) -> RtpRules:
    """RtpRules of a script name (free_bet, free_bet_seated, classic_eu, ...) with table flag overrides."""
    return rtp_rules_from_engine(rules_for(name, overrides))

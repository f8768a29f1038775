"""The rule facts the RTP mathematics needs, and the one place that maps the engine's Rules onto them.

The engine's ``rounds.engine.rules.Rules`` carries everything a table needs (limits, timeouts, side bets...).
The mathematics needs only the handful of facts below, so it keeps its own small frozen dataclass: it stays
hashable for caching and the rules engine can evolve without touching the DP or the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

Dealing = Literal["free_bet", "eu", "us_peek_before", "us_peek_after"]

PROFILE_NAMES = ("free_bet", "free_bet_seated", "classic")
DEALINGS = ("eu", "us_peek_before", "us_peek_after")


@dataclass(frozen=True, slots=True)
class RtpRules:
    """Main-game rules as seen by the RTP calculators (dealer S17, 3:2 blackjack, one split, no surrender)."""

    profile: str
    # Free double on hard 9-11, free split of A-A..9-9, real split of 10-value pairs, dealer 22 pushes.
    free_bets: bool
    dealer_22_pushes: bool
    # Cards that make an unbusted hand win outright; None when the table has no Charlie rule.
    charlie_cards: int | None
    charlie_beats_dealer_blackjack: bool
    # Up cards ("A", "T") on which the dealer checks for blackjack before the players act.
    peek_up_cards: frozenset[str]
    # EU rule: a dealer blackjack under a 10 found after the action returns the doubled portions.
    late_ten_blackjack_returns_doubles: bool
    double_after_split: bool
    # The dealer's second card is dealt before the action (a hole card) or after it (EU).
    hole_card: bool
    decks: int = 8

    @property
    def name(self) -> str:
        return self.profile


def rtp_rules_for(profile: str, dealing: str = "eu", **overrides: Any) -> RtpRules:
    """Rules of a named profile (``dealing`` only matters for ``classic``), with per-table overrides."""
    if profile in ("free_bet", "free_bet_seated"):
        rules = RtpRules(
            profile=profile,
            free_bets=True,
            dealer_22_pushes=True,
            charlie_cards=6 if profile == "free_bet" else None,
            charlie_beats_dealer_blackjack=True,
            peek_up_cards=frozenset({"A"}),
            late_ten_blackjack_returns_doubles=False,
            double_after_split=False,
            hole_card=True,
        )
    elif profile == "classic":
        if dealing not in DEALINGS:
            raise ValueError(f"unknown dealing {dealing!r}; expected one of {DEALINGS}")
        rules = RtpRules(
            profile=f"classic_{dealing}",
            free_bets=False,
            dealer_22_pushes=False,
            charlie_cards=10,
            charlie_beats_dealer_blackjack=False,
            peek_up_cards=frozenset({"A", "T"}) if dealing == "us_peek_before" else frozenset(),
            late_ten_blackjack_returns_doubles=True,
            double_after_split=True,
            hole_card=dealing != "eu",
        )
    else:
        raise ValueError(f"unknown profile {profile!r}; expected one of {PROFILE_NAMES}")
    return replace(rules, **overrides) if overrides else rules


# Attribute names the engine's Rules may use for the facts above; the first one present wins.
_ENGINE_FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "dealing": ("dealing", "dealing_mode", "deal_mode"),
    "charlie_cards": ("charlie_cards", "charlie", "charlie_card_count"),
    "six_card_charlie": ("six_card_charlie",),
    "ten_card_charlie": ("ten_card_charlie",),
    "dealer_22_pushes": ("dealer_22_pushes", "dealer_22_push", "push_on_dealer_22"),
    "double_after_split": ("double_after_split", "das"),
    "decks": ("decks", "deck_count", "number_of_decks"),
}


def _engine_attr(rules: Any, fact: str) -> Any:
    for attr in _ENGINE_FIELD_NAMES[fact]:
        if hasattr(rules, attr):
            return getattr(rules, attr)
    return None


def rtp_rules_from_engine(rules: Any) -> RtpRules:
    """Map the engine's ``Rules`` (or an RtpRules, returned as is) onto RtpRules.

    Only the profile name is required; every other fact defaults to the profile's value and is overridden
    when the engine's object exposes it, so a per-table override (say, Charlie switched off) reaches the maths.
    """
    if isinstance(rules, RtpRules):
        return rules
    profile = getattr(rules, "profile", None) or getattr(rules, "name", None)
    profile = getattr(profile, "value", profile)  # an Enum member or a plain string
    if profile not in PROFILE_NAMES:
        raise ValueError(f"cannot map rules {rules!r}: unknown profile {profile!r}")
    dealing = _engine_attr(rules, "dealing")
    dealing = str(getattr(dealing, "value", dealing) or "eu")
    base = rtp_rules_for(profile, dealing=dealing if profile == "classic" else "eu")

    overrides: dict[str, Any] = {}
    charlie = _engine_attr(rules, "charlie_cards")
    if isinstance(charlie, bool):
        overrides["charlie_cards"] = base.charlie_cards if charlie else None
    elif isinstance(charlie, int):
        overrides["charlie_cards"] = charlie or None
    for flag, cards in (("six_card_charlie", 6), ("ten_card_charlie", 10)):
        value = _engine_attr(rules, flag)
        if value is not None:
            overrides["charlie_cards"] = cards if value else None
    for fact in ("dealer_22_pushes", "double_after_split"):
        value = _engine_attr(rules, fact)
        if value is not None:
            overrides[fact] = bool(value)
    decks = _engine_attr(rules, "decks")
    if isinstance(decks, int) and decks > 0:
        overrides["decks"] = decks
    return replace(base, **overrides) if overrides else base

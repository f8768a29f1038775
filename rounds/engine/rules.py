"""Rule profiles and per-table flags (docs/rules.md).

A table is one profile plus overrides. `Rules` is frozen and hashable so a round can snapshot it (`to_dict`) and
the settlement can use it as a cache key.

Decisions the rules contract left open (docs/rules.md writes them down):
- `classic` offers Perfect Pairs and 21+3 (as Live Blackjack tables do); the contract names side bets only for the
  free bet profiles. Golden Chips are a `classic` feature (default off elsewhere, a flag like any other).
- The balance fallbacks written under `free_bet` (unfunded double -> HIT, unfunded split -> HIT/STAND) apply to
  every profile: they are the only fallbacks the rules define.
- Overrides accept a few obvious spellings (`six_card_charlie`, `ten_card_charlie`, `das`, ...) besides the
  canonical flag names, because table forms and scripts are written by people.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import EngineError
from .sidebets import DEFAULT_PAYTABLES, SIDE_BETS

PROFILES = ("free_bet", "free_bet_seated", "classic")
# ace_peek: hole card dealt at once, peek only with an ace up (the free bet games).
DEALINGS = ("ace_peek", "eu", "us_peek_before", "us_peek_after")
TIMEOUT_RULES = ("hit_11_or_less", "stand")
# rules.md, Disconnection: what a player's disconnection does to their bets (a per-table setting).
DISCONNECT_POLICIES = ("void_while_betting", "bets_stand", "non_live")
NON_LIVE_DEADLINE_RANGE = (60, 30 * 24 * 3600)  # seconds: a minute to thirty days
SCRIPT_RULE_NAMES = {
    "free_bet": ("free_bet", None),
    "free_bet_seated": ("free_bet_seated", None),
    "classic": ("classic", "eu"),
    "classic_eu": ("classic", "eu"),
    "classic_us_peek_before": ("classic", "us_peek_before"),
    "classic_us_peek_after": ("classic", "us_peek_after"),
}

Paytables = tuple[tuple[str, tuple[tuple[str, int], ...]], ...]


def _freeze_paytables(tables: dict[str, dict[str, int]]) -> Paytables:
    return tuple((bet, tuple(sorted(lines.items()))) for bet, lines in sorted(tables.items()))


@dataclass(frozen=True)
class Rules:
    profile: str
    decks: int = 8
    common_draw: bool = False
    max_seats: int | None = 7
    dealing: str = "eu"
    insurance: bool = True
    free_double: bool = False
    free_double_totals: tuple[int, ...] = (9, 10, 11)
    free_split: bool = False
    double_after_split: bool = True
    dealer_22_push: bool = False
    charlie: int | None = None
    charlie_beats_dealer_blackjack: bool = False
    ten_up_blackjack_returns_double: bool = True
    timeout: str = "stand"
    bet_behind: bool = True
    side_bets: tuple[str, ...] = ()
    golden_chips: bool = False
    new_shoe_burn: bool = False
    multi_seat: bool = False
    deal_now: bool = False
    auto_confirm: bool = False
    disconnect_policy: str = "non_live"
    non_live_deadline: int = 24 * 3600  # seconds a non-live continuation waits for the player
    paytables: Paytables = _freeze_paytables(DEFAULT_PAYTABLES)

    def __post_init__(self) -> None:
        _check_rules(self)

    @property
    def name(self) -> str:
        """The script name of this profile and dealing, e.g. `classic_us_peek_after`."""
        return f"classic_{self.dealing}" if self.profile == "classic" else self.profile

    @property
    def split_seconds_first(self) -> bool:
        """After a split both hands get their second card before hand 1 is played (the seated Free Bet text)."""
        return self.profile == "free_bet_seated" and not self.common_draw

    @property
    def has_hole_card(self) -> bool:
        return self.dealing != "eu"

    def peeks(self, up_points: int) -> bool:
        """Whether the dealer checks for blackjack before the action round (a blackjack then ends the round)."""
        if self.dealing == "ace_peek":
            return up_points == 1
        if self.dealing == "us_peek_before":
            return up_points in (1, 10)
        return False

    def offers_insurance(self, up_points: int) -> bool:
        """Insurance is offered only with an ace up (also to a player holding blackjack)."""
        return self.insurance and up_points == 1

    def paytable(self, bet: str) -> dict[str, int]:
        return dict(dict(self.paytables)[bet])

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["free_double_totals"] = list(self.free_double_totals)
        data["side_bets"] = list(self.side_bets)
        data["paytables"] = {bet: dict(lines) for bet, lines in self.paytables}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        if not isinstance(data, dict) or data.get("profile") not in PROFILES:
            raise EngineError("rules snapshot needs a known 'profile'")
        flags = {key: value for key, value in data.items() if key != "profile"}
        return apply_overrides(PROFILE_DEFAULTS[data["profile"]], flags)


_ALIASES: dict[str, str] = {
    "dealer_22": "dealer_22_push",
    "push_22": "dealer_22_push",
    "das": "double_after_split",
    "timeout_rule": "timeout",
    "seats": "max_seats",
    "burn": "new_shoe_burn",
    "card_burn": "new_shoe_burn",
    "burn_card": "new_shoe_burn",
    "bet_auto_confirmation": "auto_confirm",
    "auto_confirmation": "auto_confirm",
    "charlie_cards": "charlie",
    "golden_chip": "golden_chips",
}
_CHARLIE_SWITCHES = {"six_card_charlie": 6, "ten_card_charlie": 10}
_FIELD_NAMES = {f.name for f in fields(Rules)} - {"profile"}


def _normalise_flag(key: str, value: Any) -> tuple[str, Any]:
    if key in _CHARLIE_SWITCHES:
        if not isinstance(value, bool):
            raise EngineError(f"flag {key} must be true or false, not {value!r}")
        return "charlie", _CHARLIE_SWITCHES[key] if value else None
    key = _ALIASES.get(key, key)
    if key not in _FIELD_NAMES:
        raise EngineError(f"unknown table flag {key!r}")
    if key in ("free_double_totals", "side_bets") and isinstance(value, list):
        value = tuple(value)
    if key == "paytables":
        value = _merge_paytables(value)
    return key, value


def _merge_paytables(value: Any) -> Paytables:
    if isinstance(value, tuple):
        value = {bet: dict(lines) for bet, lines in value}
    if not isinstance(value, dict):
        raise EngineError("paytables must map a side bet to its lines")
    merged = {bet: dict(lines) for bet, lines in DEFAULT_PAYTABLES.items()}
    for bet, lines in value.items():
        if bet not in merged or not isinstance(lines, dict):
            raise EngineError(f"unknown side bet paytable {bet!r}")
        for line, pay in lines.items():
            if line not in merged[bet] or not _is_int(pay) or pay < 0:
                raise EngineError(f"bad paytable line {bet}.{line}: {pay!r}")
            merged[bet][line] = pay
    return _freeze_paytables(merged)


def apply_overrides(base: Rules, overrides: dict[str, Any] | None) -> Rules:
    if overrides is None:
        return base
    if not isinstance(overrides, dict):
        raise EngineError("overrides must be an object of table flags")
    changes = dict(_normalise_flag(key, value) for key, value in overrides.items())
    return replace(base, **changes)


def rules_for(name: str, overrides: dict[str, Any] | None = None) -> Rules:
    """The rules of a profile by script name (free_bet, free_bet_seated, classic[_eu|_us_peek_*]) plus flags."""
    if name not in SCRIPT_RULE_NAMES:
        raise EngineError(f"unknown rules {name!r}")
    profile, dealing = SCRIPT_RULE_NAMES[name]
    base = PROFILE_DEFAULTS[profile]
    if dealing is not None:
        base = replace(base, dealing=dealing)
    rules = apply_overrides(base, overrides)
    # `classic_eu` and its siblings name their dealing, and the free bet games always deal ace_peek (as their
    # tables do): an override saying otherwise contradicts the name. Plain `classic` takes any classic dealing.
    fixed = name != "classic"
    if fixed and rules.dealing != base.dealing:
        raise EngineError(f"rules {name} deal {base.dealing}; overrides cannot make it {rules.dealing}")
    if profile == "classic" and rules.dealing == "ace_peek":
        raise EngineError("classic tables deal eu, us_peek_before or us_peek_after, not ace_peek")
    return rules


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_BOOL_FLAGS = (
    "common_draw",
    "insurance",
    "free_double",
    "free_split",
    "double_after_split",
    "dealer_22_push",
    "charlie_beats_dealer_blackjack",
    "ten_up_blackjack_returns_double",
    "bet_behind",
    "golden_chips",
    "new_shoe_burn",
    "multi_seat",
    "deal_now",
    "auto_confirm",
)


def _check_rules(rules: Rules) -> None:
    if rules.profile not in PROFILES:
        raise EngineError(f"unknown profile {rules.profile!r}")
    for name in _BOOL_FLAGS:
        if not isinstance(getattr(rules, name), bool):
            raise EngineError(f"flag {name} must be true or false, not {getattr(rules, name)!r}")
    if not _is_int(rules.decks) or not 1 <= rules.decks <= 16:
        raise EngineError(f"flag decks must be a whole number of decks from 1 to 16, not {rules.decks!r}")
    if rules.max_seats is not None and (not _is_int(rules.max_seats) or rules.max_seats < 1):
        raise EngineError(f"flag max_seats must be a positive number or null, not {rules.max_seats!r}")
    if rules.dealing not in DEALINGS:
        raise EngineError(f"flag dealing must be one of {', '.join(DEALINGS)}, not {rules.dealing!r}")
    if rules.timeout not in TIMEOUT_RULES:
        raise EngineError(f"flag timeout must be one of {', '.join(TIMEOUT_RULES)}, not {rules.timeout!r}")
    if rules.disconnect_policy not in DISCONNECT_POLICIES:
        raise EngineError(
            f"flag disconnect_policy must be one of {', '.join(DISCONNECT_POLICIES)}, not {rules.disconnect_policy!r}"
        )
    low, high = NON_LIVE_DEADLINE_RANGE
    if not _is_int(rules.non_live_deadline) or not low <= rules.non_live_deadline <= high:
        raise EngineError(f"flag non_live_deadline must be {low} to {high} seconds, not {rules.non_live_deadline!r}")
    if rules.charlie is not None and (not _is_int(rules.charlie) or not 3 <= rules.charlie <= 21):
        raise EngineError(f"flag charlie must be a card count from 3 to 21 or null, not {rules.charlie!r}")
    totals = rules.free_double_totals
    if not isinstance(totals, tuple) or not all(_is_int(t) and 4 <= t <= 20 for t in totals):
        raise EngineError(f"flag free_double_totals must list hard totals, not {totals!r}")
    if not isinstance(rules.side_bets, tuple) or not all(bet in SIDE_BETS for bet in rules.side_bets):
        raise EngineError(f"flag side_bets must list known side bets ({', '.join(SIDE_BETS)})")


PROFILE_DEFAULTS: dict[str, Rules] = {
    "free_bet": Rules(
        profile="free_bet",
        common_draw=True,
        max_seats=None,
        dealing="ace_peek",
        free_double=True,
        free_split=True,
        double_after_split=False,
        dealer_22_push=True,
        charlie=6,
        charlie_beats_dealer_blackjack=True,
        ten_up_blackjack_returns_double=False,
        timeout="hit_11_or_less",
        bet_behind=False,
        side_bets=("any_pair", "21+3", "hot3"),
        disconnect_policy="void_while_betting",
    ),
    "free_bet_seated": Rules(
        profile="free_bet_seated",
        max_seats=7,
        dealing="ace_peek",
        free_double=True,
        free_split=True,
        double_after_split=False,
        dealer_22_push=True,
        charlie=None,
        charlie_beats_dealer_blackjack=True,
        ten_up_blackjack_returns_double=False,
        timeout="hit_11_or_less",
        bet_behind=True,
        side_bets=("perfect_pairs", "21+3"),
        disconnect_policy="bets_stand",
    ),
    "classic": Rules(
        profile="classic",
        max_seats=7,
        dealing="eu",
        charlie=10,
        timeout="stand",
        bet_behind=True,
        side_bets=("perfect_pairs", "21+3"),
        golden_chips=True,
        new_shoe_burn=True,
        disconnect_policy="non_live",
    ),
}

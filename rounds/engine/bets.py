"""A player's stakes and decisions on one position, and the checks every round applies to them.

Decisions the rules contract left open (docs/rules.md writes them down):
- `balance` is what is left after the initial bets (main and side bets). Insurance is bought from it, so a
  paid double or split after insurance must be covered by what remains; insurance the balance cannot cover
  is an invalid record.
- A stake of 0 means "not staked". A position with no main bet can hold no side bet, insurance or decision.
- No stake may exceed `MAX_STAKE`, the largest single stake the live tables accept (the bet API refuses more),
  so a script cannot settle a round no table could have dealt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card
from .errors import EngineError
from .play import ACTIONS
from .rules import Rules
from .sidebets import SIDE_BETS

MAX_STAKE = 10**12


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """One player on a position: stakes in minor units, decision log, and whether it is a Bet Behind."""

    id: str
    main: int = 0
    golden_chip: int = 0
    side_bets: tuple[tuple[str, int], ...] = ()
    insurance: bool = False
    balance: int | None = None
    actions: tuple[str, ...] = ()
    behind: bool = False

    def __post_init__(self) -> None:
        # Callers may hand lists and dicts; the entry must be hashable because settlement memoises on it.
        if not isinstance(self.actions, tuple):
            object.__setattr__(self, "actions", tuple(self.actions))
        if type(self.side_bets) is tuple:
            return  # what settlement hands for every spot; the ABC's isinstance below was a fifth of building one
        if isinstance(self.side_bets, Mapping):
            object.__setattr__(self, "side_bets", tuple(self.side_bets.items()))
        elif not isinstance(self.side_bets, tuple):
            object.__setattr__(self, "side_bets", tuple(tuple(pair) for pair in self.side_bets))

    @property
    def unit(self) -> int:
        """The main bet, whether cash or Golden Chips: what a double or split costs and insurance halves."""
        return self.main + self.golden_chip

    @property
    def insurance_stake(self) -> int:
        return self.main // 2 if self.insurance else 0

    def balance_after_insurance(self) -> int | None:
        return None if self.balance is None else self.balance - self.insurance_stake


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_stake(name: str, value: Any, *, ceiling: int | None = MAX_STAKE) -> None:
    if not _is_int(value) or value < 0:
        raise EngineError(f"{name} must be a whole number of minor units, not {_short(value)}")
    if ceiling is not None and value > ceiling:
        raise EngineError(f"{name} {_short(value)} is above the largest stake the tables accept ({ceiling})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_entry(rules: Rules, entry: PlayerEntry, dealer_up: Card) -> None:
    """Raise EngineError (naming the player) for stakes or flags the rules do not allow."""
    try:
        _check_bets(rules, entry)
        _check_insurance(rules, entry, dealer_up)
        _check_log(rules, entry)
    except EngineError as error:
        raise EngineError(f"{entry.id}: {error}") from None


def _check_bets(rules: Rules, entry: PlayerEntry) -> None:
    _check_stake("main bet", entry.main)
    _check_stake("golden chip bet", entry.golden_chip)
    if entry.main and entry.golden_chip:
        raise EngineError("a position's main bet is either cash or Golden Chips, not both")
    if entry.golden_chip and not rules.golden_chips:
        raise EngineError("Golden Chips are not accepted at this table")
    if entry.unit % 2:
        raise EngineError(f"main bet {entry.unit} must be an even number of minor units")
    seen: set[str] = set()
    for name, stake in entry.side_bets:
        if name not in SIDE_BETS:
            raise EngineError(f"unknown bet {name!r}")
        if name not in rules.side_bets:
            raise EngineError(f"side bet {name} is not offered by {rules.name}")
        if name in seen:
            raise EngineError(f"side bet {name} is given twice")
        seen.add(name)
        _check_stake(f"side bet {name}", stake)
        if stake and not entry.unit:
            raise EngineError(f"side bet {name} needs a main bet on the same position")
    if entry.balance is not None:
        _check_stake("balance", entry.balance, ceiling=None)


def _check_insurance(rules: Rules, entry: PlayerEntry, dealer_up: Card) -> None:
    if not isinstance(entry.insurance, bool):
        raise EngineError(f"insurance must be true or false, not {_short(entry.insurance)}")
    if not entry.insurance:
        return
    if entry.behind:
        raise EngineError("a Bet Behind cannot be insured")
    if entry.golden_chip:
        raise EngineError("a Golden Chip bet cannot be insured")
    if not entry.main:
        raise EngineError("insurance needs a main bet")
    if not rules.offers_insurance(dealer_up.points):
        raise EngineError(f"insurance is offered only with an ace up, the up card is {dealer_up}")
    remaining = entry.balance_after_insurance()
    if remaining is not None and remaining < 0:
        raise EngineError(f"insurance costs {entry.insurance_stake} but the balance is {entry.balance}")


def _check_log(rules: Rules, entry: PlayerEntry) -> None:
    for action in entry.actions:
        if not isinstance(action, str) or action not in ACTIONS:
            raise EngineError(f"unknown action {_short(action)}")
    if entry.behind:
        if not rules.bet_behind:
            raise EngineError(f"Bet Behind is not offered by {rules.name}")
        if entry.actions:
            raise EngineError("a Bet Behind follows the seat and logs no decisions")


def side_bet_stakes(entry: PlayerEntry) -> Sequence[tuple[str, int]]:
    return [(name, stake) for name, stake in entry.side_bets if stake]

"""Checks of a table's settings, limits and paytables: pure (forms call them to show errors before
saving), each raising TableConfigError that names the offending field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from accounts.permissions import require_permission
from casino.checks import whole_number
from casino.money import format_minor
from rounds.engine.rules import NON_LIVE_DEADLINE_RANGE, PROFILE_DEFAULTS
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from tables import rtp
from tables.currencies import CURRENCIES, currency_get
from tables.errors import TableConfigError
from tables.models import (
    CLASSIC_DEALINGS,
    MAX_SEATS,
    SETTING_FIELDS,
    BetType,
    Dealing,
    DisconnectPolicy,
    Profile,
    SideBet,
    TimeoutRule,
)
from tables.selectors import document_rules

BOOL_FIELDS = (
    "dealer_22_push", "double_after_split", "new_shoe_burn", "bet_behind", "multi_seat", "deal_now",
    "auto_confirm", "golden_chips", "multiple_bets", "multi_game",
)

SEAT_FEATURES = ("bet_behind", "multi_seat")
DECKS_RANGE = (1, 8)
CHARLIE_RANGE = (5, 10)
BETTING_SECONDS_RANGE = (5, 120)
DECISION_SECONDS_RANGE = (3, 60)
MAX_CURRENCIES = 10
MAX_CHIPS = 10
MAX_AMOUNT = 10**12
PAY_RANGE = (0, 10_000)

# 3:2 blackjack and half-bet insurance must come out in whole minor units, so these stakes are even.
EVEN_BET_TYPES = (BetType.MAIN, BetType.BET_BEHIND)

# Default limits in EUR cents; other currencies are scaled (tables.currencies) and operators review them.
DEFAULT_LIMITS: dict[str, tuple[int, int, tuple[int, ...]]] = {
    BetType.MAIN: (100, 500_000, (100, 500, 2_500, 10_000, 50_000)),
    BetType.BET_BEHIND: (100, 100_000, (100, 500, 2_500, 10_000, 50_000)),
    BetType.ANY_PAIR: (100, 25_000, (100, 500, 2_500, 10_000)),
    BetType.TWENTY_ONE_PLUS_THREE: (100, 25_000, (100, 500, 2_500, 10_000)),
    BetType.HOT3: (100, 25_000, (100, 500, 2_500, 10_000)),
    BetType.PERFECT_PAIRS: (100, 25_000, (100, 500, 2_500, 10_000)),
    BetType.TIP: (100, 10_000, (100, 500, 2_500)),
}


def profile_defaults(profile: str) -> dict[str, Any]:
    """The settings a new table of `profile` starts with, taken from the rules engine's profile."""
    if profile not in Profile.values:
        raise TableConfigError(
            f"Unknown profile {profile!r}; choose one of {', '.join(Profile.values)}", field="profile"
        )
    rules = PROFILE_DEFAULTS[profile]
    return {
        "dealing": rules.dealing,
        "decks": rules.decks,
        "charlie_cards": rules.charlie,
        "dealer_22_push": rules.dealer_22_push,
        "double_after_split": rules.double_after_split,
        "timeout_rule": rules.timeout,
        "new_shoe_burn": rules.new_shoe_burn,
        "disconnect_policy": rules.disconnect_policy,
        "non_live_deadline": rules.non_live_deadline,
        "seats": None if rules.common_draw else (rules.max_seats or MAX_SEATS),
        "bet_behind": rules.bet_behind,
        "multi_seat": rules.multi_seat,
        "deal_now": rules.deal_now,
        "auto_confirm": rules.auto_confirm,
        "golden_chips": rules.golden_chips,
        "multiple_bets": False,
        "deal_now_players": MAX_SEATS,
        "multi_game": True,
        "betting_seconds": 15,
        "decision_seconds": 10,
        "side_bets": list(rules.side_bets),
    }




def _int_in(values: dict, field: str, label: str, low: int, high: int) -> None:
    value = values[field]
    if not whole_number(value) or not low <= value <= high:
        raise TableConfigError(f"{label} must be a whole number from {low} to {high}, not {value!r}", field=field)


def _clean_currencies(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [part for part in re.split(r"[\s,;]+", value) if part]
    if not isinstance(value, list | tuple) or not value:
        raise TableConfigError("A table must accept at least one currency", field="currencies")
    cleaned: list[str] = []
    for code in value:
        if not isinstance(code, str):
            raise TableConfigError(f"{code!r} is not a currency code", field="currencies")
        code = code.strip().upper()
        if code not in CURRENCIES:
            raise TableConfigError(
                f"{code!r} is not a currency tables accept (known: {', '.join(sorted(CURRENCIES))})",
                field="currencies",
            )
        if code not in cleaned:
            cleaned.append(code)
    if len(cleaned) > MAX_CURRENCIES:
        raise TableConfigError(f"A table accepts at most {MAX_CURRENCIES} currencies", field="currencies")
    return cleaned


def _clean_side_bets(value: Any) -> list[str]:
    if not isinstance(value, list | tuple | set | frozenset):
        raise TableConfigError("Side bets must be a list", field="side_bets")
    unknown = [bet for bet in value if bet not in SideBet.values]
    if unknown:
        raise TableConfigError(
            f"Unknown side bet {unknown[0]!r}; known: {', '.join(SideBet.values)}", field="side_bets"
        )
    return [bet for bet in SideBet.values if bet in value]


def table_settings_validate(*, profile: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Check a complete set of settings for a table of `profile`; returns them cleaned, or raises
    TableConfigError naming the first offending field. Pure: forms call it to show errors before saving."""
    unknown = sorted(set(values) - set(SETTING_FIELDS))
    if unknown:
        raise TableConfigError(f"Unknown table setting {unknown[0]!r}")
    values = dict(values)
    if not isinstance(values.get("name"), str) or not values["name"].strip():
        raise TableConfigError("A table needs a name", field="name")
    values["name"] = values["name"].strip()
    if len(values["name"]) > 100:
        raise TableConfigError("The name is longer than 100 characters", field="name")
    for field in BOOL_FIELDS:
        if not isinstance(values[field], bool):
            raise TableConfigError(f"{field} must be true or false, not {values[field]!r}", field=field)
    if profile == Profile.CLASSIC:
        if values["dealing"] not in CLASSIC_DEALINGS:
            raise TableConfigError(
                f"A classic table deals eu, us_peek_before or us_peek_after, not {values['dealing']!r}",
                field="dealing",
            )
    elif values["dealing"] != Dealing.ACE_PEEK:
        raise TableConfigError(
            "Free bet tables always deal a hole card and peek under an ace only (dealing ace_peek)", field="dealing"
        )
    _int_in(values, "decks", "Decks", *DECKS_RANGE)
    if values["charlie_cards"] is not None:
        _int_in(values, "charlie_cards", "Charlie cards", *CHARLIE_RANGE)
    if values["timeout_rule"] not in TimeoutRule.values:
        raise TableConfigError(
            f"Timeout rule must be one of {', '.join(TimeoutRule.values)}, not {values['timeout_rule']!r}",
            field="timeout_rule",
        )
    if values["disconnect_policy"] not in DisconnectPolicy.values:
        raise TableConfigError(
            f"Disconnection policy must be one of {', '.join(DisconnectPolicy.values)}, "
            f"not {values['disconnect_policy']!r}",
            field="disconnect_policy",
        )
    _int_in(values, "non_live_deadline", "The non-live deadline (seconds)", *NON_LIVE_DEADLINE_RANGE)
    if profile == Profile.FREE_BET:
        if values["seats"] is not None:
            raise TableConfigError("A free_bet table is a common draw with unlimited players: no seats", field="seats")
        for feature in SEAT_FEATURES:
            if values[feature]:
                raise TableConfigError(
                    f"{feature.replace('_', ' ').capitalize()} needs seats; a common-draw table has none",
                    field=feature,
                )
    else:
        _int_in(values, "seats", "Seats", 1, MAX_SEATS)
    _int_in(values, "deal_now_players", "Deal Now's most seated players", 1, MAX_SEATS)
    if values["golden_chips"] and profile != Profile.CLASSIC:
        raise TableConfigError("Golden Chips are played at classic tables only", field="golden_chips")
    _int_in(values, "betting_seconds", "Betting time (seconds)", *BETTING_SECONDS_RANGE)
    _int_in(values, "decision_seconds", "Decision time (seconds)", *DECISION_SECONDS_RANGE)
    values["currencies"] = _clean_currencies(values["currencies"])
    values["side_bets"] = _clean_side_bets(values["side_bets"])
    # The engine has the last word on whether these rules can be played.
    document_rules({**values, "profile": profile, "paytables": {}})
    return values


def paytable_validate(*, side_bet: str, paytable: Any, decks: int) -> dict[str, int]:
    """Check a paytable's lines and that its exact RTP at `decks` decks stays below 100 %."""
    if side_bet not in SideBet.values:
        raise TableConfigError(f"Unknown side bet {side_bet!r}; known: {', '.join(SideBet.values)}")
    lines = DEFAULT_PAYTABLES[side_bet]
    if not isinstance(paytable, Mapping):
        raise TableConfigError(f"The {SideBet(side_bet).label} paytable must map each line to its pay")
    extra = sorted(set(paytable) - set(lines))
    if extra:
        raise TableConfigError(f"{SideBet(side_bet).label} has no paytable line {extra[0]!r}", field=extra[0])
    cleaned: dict[str, int] = {}
    for line in lines:
        if line not in paytable:
            raise TableConfigError(f"The {SideBet(side_bet).label} paytable needs a pay for {line!r}", field=line)
        pay = paytable[line]
        if not whole_number(pay) or not PAY_RANGE[0] <= pay <= PAY_RANGE[1]:
            raise TableConfigError(
                f"The pay for {line!r} must be a whole number from {PAY_RANGE[0]} to {PAY_RANGE[1]} (to 1), "
                f"not {pay!r}",
                field=line,
            )
        cleaned[line] = pay
    value = rtp.side_bet_rtp(side_bet, cleaned, decks)
    if value >= 1:
        raise TableConfigError(
            f"The {SideBet(side_bet).label} paytable returns {rtp.percent(value)} % to players with {decks} "
            f"deck{'' if decks == 1 else 's'}; "
            "a paytable must return less than 100 %",
            code="rtp_too_high",
        )
    return cleaned


def bet_limit_validate(*, bet_type: str, currency: str, min: int, max: int, chips: Any) -> dict[str, Any]:
    if bet_type not in BetType.values:
        raise TableConfigError(f"Unknown bet type {bet_type!r}; known: {', '.join(BetType.values)}")
    label = f"{BetType(bet_type).label} in {currency}"
    if currency not in CURRENCIES:
        raise TableConfigError(f"{currency!r} is not a currency tables accept")
    for name, value in (("minimum", min), ("maximum", max)):
        if not whole_number(value):
            raise TableConfigError(f"{label}: the {name} must be a whole number of minor units")
    if not isinstance(chips, list | tuple) or not chips:
        raise TableConfigError(f"{label}: at least one chip denomination is needed")
    if not all(whole_number(chip) for chip in chips):
        raise TableConfigError(f"{label}: chip denominations must be whole numbers of minor units")

    # Every problem of the row at once, in the money the operator typed (major units, with the currency).
    def money(amount: int) -> str:
        return format_minor(amount, currency)

    problems = [f"the {name} must be between {money(1)} and {money(MAX_AMOUNT)}, not {money(value)}"
                for name, value in (("minimum", min), ("maximum", max)) if not 1 <= value <= MAX_AMOUNT]
    if min > max:
        problems.append(f"the minimum is above the maximum: {money(min)} against {money(max)}")
    chips = sorted(set(chips))
    if len(chips) > MAX_CHIPS:
        problems.append(f"at most {MAX_CHIPS} chip denominations, not {len(chips)}")
    outside = [chip for chip in chips if not min <= chip <= max] if min <= max else []
    if outside:
        listed = ", ".join(money(chip) for chip in outside)
        problems.append(f"chip{'s' if len(outside) > 1 else ''} {listed} {'are' if len(outside) > 1 else 'is'} "
                        f"outside the limits {format_minor(min, currency, with_code=False)}-{money(max)}")
    if bet_type in EVEN_BET_TYPES:
        odd = sorted({amount for amount in (min, max, *chips) if amount % 2})
        if odd:
            problems.append(
                f"{', '.join(money(amount) for amount in odd)}: main and Bet Behind amounts must end in an even "
                "smallest unit (such as 1.02, not 1.01) so that 3:2 and half-bet insurance pay exactly")
    if problems:
        raise TableConfigError(f"{label}: " + "; ".join(problems))
    return {"bet_type": bet_type, "currency": currency, "min": min, "max": max, "chips": chips}


def default_bet_limit(*, bet_type: str, currency: str) -> dict[str, Any]:
    low, high, chips = DEFAULT_LIMITS[bet_type]
    scale = currency_get(currency).scale * 10 ** currency_get(currency).exponent // 100
    return {"bet_type": bet_type, "currency": currency, "min": low * scale, "max": high * scale,
            "chips": [chip * scale for chip in chips]}


REASON_MAX_LENGTH = 2000


def reason_clean(*, actor, reason, required: bool = True) -> str:
    """A person says why they change a table (kept with the version and in the staff-activity record); the
    system (actor None: commands, data loads) need not."""
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise TableConfigError("A reason is text.", field="reason")
    reason = reason.strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise TableConfigError(f"A reason has at most {REASON_MAX_LENGTH} characters.", field="reason")
    if required and actor is not None and not reason:
        raise TableConfigError("Give a reason: it is kept with the table's history and in the staff-activity "
                               "record.", field="reason")
    return reason


def _check_actor(actor) -> None:
    # None is the system (management commands, data loads); a person must hold the permission.
    if actor is not None:
        require_permission(actor, "configure_tables")


def _limits_clean(limits: Iterable[Mapping[str, Any]], *, bet_types: list[str], currencies: list[str]) -> dict:
    cleaned: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in limits:
        if not isinstance(entry, Mapping):
            raise TableConfigError("Each limit must give bet_type, currency, min, max and chips")
        missing = [key for key in ("bet_type", "currency", "min", "max", "chips") if key not in entry]
        if missing:
            raise TableConfigError(f"A limit is missing {', '.join(missing)}")
        limit = bet_limit_validate(
            bet_type=entry["bet_type"], currency=entry["currency"], min=entry["min"], max=entry["max"],
            chips=entry["chips"],
        )
        if limit["bet_type"] not in bet_types:
            raise TableConfigError(f"The table does not offer {BetType(limit['bet_type']).label}")
        if limit["currency"] not in currencies:
            raise TableConfigError(f"The table does not accept {limit['currency']}")
        cleaned[(limit["bet_type"], limit["currency"])] = limit
    return cleaned


def _check_offered_paytables(*, stored: Mapping[str, Mapping[str, int]], side_bets: list[str], decks: int) -> None:
    """A deck-count change or a newly offered side bet must not publish a paytable at or above 100 %. `stored`:
    the table's paytable rows ({side bet: paytable}), as the change's `before` document has read them."""
    for bet in side_bets:
        paytable_validate(side_bet=bet, paytable=stored.get(bet, DEFAULT_PAYTABLES[bet]), decks=decks)

"""Every write to a table's configuration. Each change bumps `config_version` by compare-and-set and writes one
TableChange with the whole configuration before and after, in the same durable transaction.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.permissions import require_permission
from rounds.engine.errors import RoundError
from rounds.engine.rules import PROFILE_DEFAULTS, Rules, rules_for
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from tables import rtp
from tables.currencies import CURRENCIES, currency_get
from tables.errors import TableConfigError, TableConflictError
from tables.models import (
    CLASSIC_DEALINGS,
    CODE_PATTERN,
    MAX_SEATS,
    BetLimit,
    BetType,
    Dealing,
    Profile,
    RtpRunState,
    SideBet,
    Table,
    TableChange,
    TablePaytable,
    TableRtpRun,
    TableState,
    TimeoutRule,
)
from tables.signals import table_closed

# Settings a table_create/table_update may change (code and profile are fixed at creation: the code is in every
# game number already played, and a new profile is a new table).
FLAG_FIELDS = (
    "dealing", "decks", "charlie_cards", "dealer_22_push", "double_after_split", "timeout_rule", "new_shoe_burn",
    "seats", "bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips",
)
SETTING_FIELDS = ("name", *FLAG_FIELDS, "betting_seconds", "decision_seconds", "currencies", "side_bets")
CREATE_ONLY_OPTIONS = ("state", "limits", "paytables")
BOOL_FIELDS = (
    "dealer_22_push", "double_after_split", "new_shoe_burn", "bet_behind", "multi_seat", "deal_now",
    "auto_confirm", "golden_chips",
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
RTP_RUN_MAX_HANDS = 100_000_000
# Progress is written at most this often so a long run does not hammer the database.
PROGRESS_WRITE_SECONDS = 0.5


# --- defaults and validation ------------------------------------------------------------------------------

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
        "seats": None if rules.common_draw else (rules.max_seats or MAX_SEATS),
        "bet_behind": rules.bet_behind,
        "multi_seat": rules.multi_seat,
        "deal_now": rules.deal_now,
        "auto_confirm": rules.auto_confirm,
        "golden_chips": rules.golden_chips,
        "betting_seconds": 15,
        "decision_seconds": 10,
        "side_bets": list(rules.side_bets),
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_in(values: dict, field: str, label: str, low: int, high: int) -> None:
    value = values[field]
    if not _is_int(value) or not low <= value <= high:
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
    if values["golden_chips"] and profile != Profile.CLASSIC:
        raise TableConfigError("Golden Chips are played at classic tables only", field="golden_chips")
    _int_in(values, "betting_seconds", "Betting time (seconds)", *BETTING_SECONDS_RANGE)
    _int_in(values, "decision_seconds", "Decision time (seconds)", *DECISION_SECONDS_RANGE)
    values["currencies"] = _clean_currencies(values["currencies"])
    values["side_bets"] = _clean_side_bets(values["side_bets"])
    # The engine has the last word on whether these rules can be played.
    _rules_from_document({**values, "profile": profile, "paytables": {}})
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
        if not _is_int(pay) or not PAY_RANGE[0] <= pay <= PAY_RANGE[1]:
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


def _bet_types_offered(*, side_bets: Iterable[str], bet_behind: bool) -> list[str]:
    offered = [BetType.MAIN.value, *side_bets]
    if bet_behind:
        offered.append(BetType.BET_BEHIND.value)
    offered.append(BetType.TIP.value)
    return offered


def table_bet_types(table: Table) -> list[str]:
    """Bet types the table offers now: main, offered side bets, Bet Behind when on, tip."""
    offered = TablePaytable.objects.filter(table=table, offered=True).values_list("side_bet", flat=True)
    return _bet_types_offered(side_bets=[bet for bet in SideBet.values if bet in set(offered)],
                              bet_behind=table.bet_behind)


def bet_limit_validate(*, bet_type: str, currency: str, min: int, max: int, chips: Any) -> dict[str, Any]:
    if bet_type not in BetType.values:
        raise TableConfigError(f"Unknown bet type {bet_type!r}; known: {', '.join(BetType.values)}")
    label = f"{BetType(bet_type).label} in {currency}"
    if currency not in CURRENCIES:
        raise TableConfigError(f"{currency!r} is not a currency tables accept")
    for name, value in (("minimum", min), ("maximum", max)):
        if not _is_int(value) or not 1 <= value <= MAX_AMOUNT:
            raise TableConfigError(f"{label}: the {name} must be a positive whole number of minor units")
    if min > max:
        raise TableConfigError(f"{label}: the minimum is above the maximum")
    if not isinstance(chips, list | tuple) or not chips:
        raise TableConfigError(f"{label}: at least one chip denomination is needed")
    if not all(_is_int(chip) for chip in chips):
        raise TableConfigError(f"{label}: chip denominations must be whole numbers of minor units")
    chips = sorted(set(chips))
    if len(chips) > MAX_CHIPS:
        raise TableConfigError(f"{label}: at most {MAX_CHIPS} chip denominations")
    outside = [chip for chip in chips if not min <= chip <= max]
    if outside:
        raise TableConfigError(f"{label}: chip {outside[0]} is outside the limits {min}-{max} (minor units)")
    if bet_type in EVEN_BET_TYPES:
        odd = [amount for amount in (min, max, *chips) if amount % 2]
        if odd:
            raise TableConfigError(
                f"{label}: {odd[0]} is odd; main and Bet Behind amounts must be even (in minor units) "
                "so that 3:2 and half-bet insurance pay exactly"
            )
    return {"bet_type": bet_type, "currency": currency, "min": min, "max": max, "chips": chips}


def default_bet_limit(*, bet_type: str, currency: str) -> dict[str, Any]:
    low, high, chips = DEFAULT_LIMITS[bet_type]
    scale = currency_get(currency).scale * 10 ** currency_get(currency).exponent // 100
    return {"bet_type": bet_type, "currency": currency, "min": low * scale, "max": high * scale,
            "chips": [chip * scale for chip in chips]}


def _check_actor(actor) -> None:
    # None is the system (management commands, data loads); a person must hold the permission.
    if actor is not None:
        require_permission(actor, "configure_tables")


# --- reading a table as one document ------------------------------------------------------------------

def table_document(table: Table) -> dict[str, Any]:
    """The whole configuration of a table as JSON data; history stores it before and after every change."""
    paytables = {row.side_bet: row for row in TablePaytable.objects.filter(table=table)}
    limits: dict[str, dict[str, dict[str, Any]]] = {}
    for limit in BetLimit.objects.filter(table=table).order_by("bet_type", "currency"):
        limits.setdefault(limit.bet_type, {})[limit.currency] = {
            "min": limit.min, "max": limit.max, "chips": list(limit.chips),
        }
    document = {
        "code": table.code,
        "name": table.name,
        "profile": table.profile,
        "state": table.state,
        "config_version": table.config_version,
    }
    for field in (*FLAG_FIELDS, "betting_seconds", "decision_seconds"):
        document[field] = getattr(table, field)
    document["currencies"] = list(table.currencies)
    document["side_bets"] = [bet for bet in SideBet.values if bet in paytables and paytables[bet].offered]
    document["limits"] = limits
    document["paytables"] = {bet: dict(paytables[bet].paytable) for bet in SideBet.values if bet in paytables}
    return document


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def change_summary(before: dict | None, after: dict) -> str:
    """"decks: 8 → 6; limits.main.EUR.max: 500000 → 400000" — every difference, config_version excluded."""
    if before is None:
        return f"Created {after['profile']} table {after['code']}"
    old, new = _flatten(before), _flatten(after)
    parts = []
    for key in sorted(set(old) | set(new)):
        if key == "config_version" or old.get(key) == new.get(key):
            continue
        parts.append(f"{key}: {_show(old.get(key, '—'))} → {_show(new.get(key, '—'))}")
    return "; ".join(parts) or "No change"


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


# --- the change machinery -----------------------------------------------------------------------------------

def _change_begin(*, table: Table, expected_version: int | None) -> tuple[Table, dict]:
    fresh = Table.objects.get(pk=table.pk)
    if expected_version is not None and fresh.config_version != expected_version:
        raise TableConflictError(
            f"Table {fresh.code} was changed by someone else (now version {fresh.config_version}, your form was "
            f"version {expected_version}); reload it and apply your change again"
        )
    return fresh, table_document(fresh)


def _change_commit(*, table: Table, before: dict, actor, fields: dict[str, Any], write_rows=None) -> Table | None:
    """Bump the version by compare-and-set, write the rows, record the change. None when nothing changed."""
    version = before["config_version"]
    now = timezone.now()
    updated = Table.objects.filter(pk=table.pk, config_version=version).update(
        config_version=version + 1, updated_at=now, **fields
    )
    if updated != 1:
        raise TableConflictError(f"Table {table.code} was changed by someone else meanwhile; reload and try again")
    if write_rows is not None:
        write_rows()
    fresh = Table.objects.get(pk=table.pk)
    after = table_document(fresh)
    if {**after, "config_version": version} == before:
        # Nothing changed: undo the version bump by rolling back this transaction's writes.
        transaction.set_rollback(True)
        return None
    TableChange.objects.create(
        table=fresh, version=fresh.config_version, actor=actor, at=now, summary=change_summary(before, after),
        before=before, after=after,
    )
    return fresh


def _sync_rows(*, table: Table, side_bets: list[str], currencies: list[str], bet_behind: bool) -> None:
    """Offer exactly `side_bets`; keep limits for exactly the offered bet types x accepted currencies, adding
    defaults where a bet type or currency is new."""
    TablePaytable.objects.filter(table=table).exclude(side_bet__in=side_bets).update(offered=False)
    for bet in side_bets:
        row, created = TablePaytable.objects.get_or_create(
            table=table, side_bet=bet, defaults={"offered": True, "paytable": dict(DEFAULT_PAYTABLES[bet])}
        )
        if not created and not row.offered:
            TablePaytable.objects.filter(pk=row.pk).update(offered=True)
    bet_types = _bet_types_offered(side_bets=side_bets, bet_behind=bet_behind)
    BetLimit.objects.filter(table=table).exclude(bet_type__in=bet_types).delete()
    BetLimit.objects.filter(table=table).exclude(currency__in=currencies).delete()
    existing = set(BetLimit.objects.filter(table=table).values_list("bet_type", "currency"))
    BetLimit.objects.bulk_create(
        BetLimit(table=table, **default_bet_limit(bet_type=bet_type, currency=currency))
        for bet_type in bet_types for currency in currencies if (bet_type, currency) not in existing
    )


def _check_offered_paytables(*, table: Table, side_bets: list[str], decks: int) -> None:
    """A deck-count change or a newly offered side bet must not publish a paytable at or above 100 %."""
    stored = {row.side_bet: row.paytable for row in TablePaytable.objects.filter(table=table)}
    for bet in side_bets:
        paytable_validate(side_bet=bet, paytable=stored.get(bet, DEFAULT_PAYTABLES[bet]), decks=decks)


# --- services ---------------------------------------------------------------------------------------------

def table_create(*, actor, code: str, name: str, profile: str, currencies, **options) -> Table:
    """A new table with the profile's rules, default side bets with the default paytables and default limits.

    `options` may override any setting (see SETTING_FIELDS), and also set `state` (default closed), `limits`
    (a list of {bet_type, currency, min, max, chips}) and `paytables` ({side_bet: {line: pay}}).
    """
    _check_actor(actor)
    if not isinstance(code, str) or not re.fullmatch(CODE_PATTERN, code.strip()):
        raise TableConfigError(f"Table code {code!r} must be 2-8 capital letters or digits, e.g. FB01", field="code")
    code = code.strip()
    state = options.pop("state", TableState.CLOSED)
    if state not in TableState.values:
        raise TableConfigError(f"State must be one of {', '.join(TableState.values)}, not {state!r}", field="state")
    limits = options.pop("limits", None) or []
    paytables = options.pop("paytables", None) or {}
    settings = {**profile_defaults(profile), "name": name, "currencies": currencies, **options}
    settings = table_settings_validate(profile=profile, values=settings)
    side_bets = settings.pop("side_bets")
    for bet, paytable in paytables.items():
        paytables[bet] = paytable_validate(side_bet=bet, paytable=paytable, decks=settings["decks"])
    for bet in side_bets:
        if bet not in paytables:
            paytable_validate(side_bet=bet, paytable=DEFAULT_PAYTABLES[bet], decks=settings["decks"])
    offered_types = _bet_types_offered(side_bets=side_bets, bet_behind=settings["bet_behind"])
    custom_limits = _limits_clean(limits, bet_types=offered_types, currencies=settings["currencies"])
    try:
        with transaction.atomic(durable=True):
            if Table.objects.filter(code=code).exists():
                raise TableConfigError(f"There is already a table with code {code}", field="code")
            table = Table.objects.create(code=code, profile=profile, state=state, **settings)
            TablePaytable.objects.bulk_create(
                TablePaytable(
                    table=table, side_bet=bet, offered=bet in side_bets,
                    paytable=paytables.get(bet, dict(DEFAULT_PAYTABLES[bet])),
                )
                for bet in SideBet.values
            )
            _sync_rows(table=table, side_bets=side_bets, currencies=settings["currencies"],
                       bet_behind=settings["bet_behind"])
            for limit in custom_limits.values():
                BetLimit.objects.filter(table=table, bet_type=limit["bet_type"], currency=limit["currency"]).update(
                    min=limit["min"], max=limit["max"], chips=limit["chips"]
                )
            after = table_document(table)
            TableChange.objects.create(
                table=table, version=table.config_version, actor=actor, at=table.created_at,
                summary=change_summary(None, after), before=None, after=after,
            )
    except IntegrityError:
        # Two operators creating the same code at once: the unique constraint decides.
        if Table.objects.filter(code=code).exists():
            raise TableConfigError(f"There is already a table with code {code}", field="code") from None
        raise
    return table


def table_update(*, actor, table: Table, expected_version: int | None = None, **changes) -> Table:
    """Change any of SETTING_FIELDS. Newly offered side bets, Bet Behind or currencies get default limits;
    limits of bet types or currencies no longer offered are removed (the history keeps them)."""
    _check_actor(actor)
    for fixed in ("code", "profile", "state"):
        if fixed in changes:
            hint = "use table_state_set" if fixed == "state" else "create a new table"
            raise TableConfigError(f"A table's {fixed} cannot be changed here; {hint}", field=fixed)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        current = {field: before[field] for field in SETTING_FIELDS}
        settings = table_settings_validate(profile=fresh.profile, values={**current, **changes})
        side_bets = settings.pop("side_bets")
        _check_offered_paytables(table=fresh, side_bets=side_bets, decks=settings["decks"])

        def write_rows():
            _sync_rows(table=fresh, side_bets=side_bets, currencies=settings["currencies"],
                       bet_behind=settings["bet_behind"])

        result = _change_commit(table=fresh, before=before, actor=actor, fields=settings, write_rows=write_rows)
    return result or fresh


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


def bet_limits_set(*, actor, table: Table, limits: Iterable[Mapping[str, Any]],
                   expected_version: int | None = None) -> Table:
    """Set the limits given ({bet_type, currency, min, max, chips} in minor units); others stay as they are.
    Every offered bet type keeps limits in every accepted currency."""
    _check_actor(actor)
    limits = list(limits)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        offered = _bet_types_offered(side_bets=before["side_bets"], bet_behind=fresh.bet_behind)
        cleaned = _limits_clean(limits, bet_types=offered, currencies=fresh.currencies)
        for bet_type in offered:
            for currency in fresh.currencies:
                if (bet_type, currency) not in cleaned and currency not in before["limits"].get(bet_type, {}):
                    raise TableConfigError(f"{BetType(bet_type).label} has no limits in {currency}")

        def write_rows():
            for (bet_type, currency), limit in cleaned.items():
                BetLimit.objects.update_or_create(
                    table=fresh, bet_type=bet_type, currency=currency,
                    defaults={"min": limit["min"], "max": limit["max"], "chips": limit["chips"]},
                )

        result = _change_commit(table=fresh, before=before, actor=actor, fields={}, write_rows=write_rows)
    return result or fresh


def paytable_set(*, actor, table: Table, side_bet: str, paytable: Mapping[str, int],
                 expected_version: int | None = None) -> TablePaytable:
    """Replace a side bet's paytable; refused when its exact RTP at the table's deck count is 100 % or more."""
    _check_actor(actor)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        cleaned = paytable_validate(side_bet=side_bet, paytable=paytable, decks=fresh.decks)

        def write_rows():
            TablePaytable.objects.update_or_create(
                table=fresh, side_bet=side_bet,
                defaults={"paytable": cleaned},
                create_defaults={"paytable": cleaned, "offered": False},
            )

        _change_commit(table=fresh, before=before, actor=actor, fields={}, write_rows=write_rows)
    return TablePaytable.objects.get(table=fresh, side_bet=side_bet)


def table_state_set(*, actor, table: Table, state: str, expected_version: int | None = None) -> Table:
    _check_actor(actor)
    if state not in TableState.values:
        raise TableConfigError(f"State must be one of {', '.join(TableState.values)}, not {state!r}", field="state")
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        result = _change_commit(table=fresh, before=before, actor=actor, fields={"state": state})
        if result is not None and state == TableState.CLOSED:
            table_closed.send(sender=Table, table=result, at=result.updated_at)
    return result or fresh


# --- what a round needs ---------------------------------------------------------------------------------

def _rules_from_document(document: Mapping[str, Any]) -> Rules:
    name = f"classic_{document['dealing']}" if document["profile"] == Profile.CLASSIC else document["profile"]
    overrides = {
        "decks": document["decks"],
        "charlie": document["charlie_cards"],
        "dealer_22_push": document["dealer_22_push"],
        "double_after_split": document["double_after_split"],
        "timeout": document["timeout_rule"],
        "new_shoe_burn": document["new_shoe_burn"],
        "max_seats": document["seats"],
        "bet_behind": document["bet_behind"],
        "multi_seat": document["multi_seat"],
        "deal_now": document["deal_now"],
        "auto_confirm": document["auto_confirm"],
        "golden_chips": document["golden_chips"],
        "side_bets": list(document["side_bets"]),
        "paytables": {bet: dict(lines) for bet, lines in document["paytables"].items()},
    }
    try:
        return rules_for(name, overrides)
    except RoundError as exc:
        raise TableConfigError(f"The rules engine refuses this table's settings: {exc}") from exc


def table_rules(table: Table) -> Rules:
    """The engine's Rules for the table as it is now."""
    return _rules_from_document(table_document(table))


SNAPSHOT_FORMAT = 1


def table_config_snapshot(table: Table) -> dict[str, Any]:
    """Everything a round needs, as JSON data, consistent with one config_version.

    {"format": 1, "code", "name", "profile", "version", "rules": Rules.to_dict(), "currencies": [...],
     "seats": int | None, "common_draw": bool, "side_bets": [...],
     "limits": {bet_type: {currency: {"min", "max", "chips"}}}  (minor units; offered bet types only),
     "paytables": {side_bet: {line: pay}}  (offered side bets only, pays "to 1"),
     "features": {"bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips"},
     "timers": {"betting_seconds", "decision_seconds"}}
    """
    # Several statements read the configuration; retry if a change commits between them.
    for _ in range(5):
        fresh = Table.objects.get(pk=table.pk)
        document = table_document(fresh)
        if Table.objects.filter(pk=table.pk, config_version=fresh.config_version).exists():
            break
    else:
        raise TableConflictError(f"Table {table.code} keeps changing; try again")
    rules = _rules_from_document(document)
    return {
        "format": SNAPSHOT_FORMAT,
        "code": document["code"],
        "name": document["name"],
        "profile": document["profile"],
        "version": document["config_version"],
        "rules": rules.to_dict(),
        "currencies": document["currencies"],
        "seats": document["seats"],
        "common_draw": document["profile"] == Profile.FREE_BET,
        "side_bets": document["side_bets"],
        "limits": document["limits"],
        "paytables": {bet: document["paytables"][bet] for bet in document["side_bets"]},
        "features": {name: document[name] for name in
                     ("bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips")},
        "timers": {"betting_seconds": document["betting_seconds"],
                   "decision_seconds": document["decision_seconds"]},
    }


# --- main-game RTP simulation ---------------------------------------------------------------------------

def rtp_run_start(*, actor, table: Table, hands: int, seed: int | None = None) -> TableRtpRun:
    """Queue a simulation of the table's current rules; the worker fills in progress and the result."""
    from tables.tasks import rtp_simulation_run

    _check_actor(actor)
    if not _is_int(hands) or not 1 <= hands <= RTP_RUN_MAX_HANDS:
        raise TableConfigError(f"Hands must be a whole number from 1 to {RTP_RUN_MAX_HANDS:,}", field="hands")
    if seed is None:
        seed = secrets.randbits(62)
    elif not _is_int(seed) or not 0 <= seed < 2**63:
        raise TableConfigError("The seed must be a whole number from 0 to 2^63-1", field="seed")
    with transaction.atomic(durable=True):
        fresh = Table.objects.get(pk=table.pk)
        run = TableRtpRun.objects.create(
            table=fresh, config_version=fresh.config_version, rules=table_rules(fresh).to_dict(), hands=hands,
            seed=seed, requested_by=actor,
        )
        transaction.on_commit(lambda: rtp_simulation_run.delay(run.pk))
    return run


def rtp_run_execute(*, run_id: int) -> TableRtpRun:
    """Run a queued simulation to the end. Idempotent: a finished run is left alone; a run found 'running'
    (its worker died and the task was redelivered) starts again from the same seed, so it ends the same."""
    from rounds.engine.rtp.simulation import simulate_first_hand_rtp

    with transaction.atomic(durable=True):
        claimed = TableRtpRun.objects.filter(
            pk=run_id, state__in=(RtpRunState.QUEUED, RtpRunState.RUNNING)
        ).update(state=RtpRunState.RUNNING, started_at=timezone.now(), hands_done=0)
    run = TableRtpRun.objects.get(pk=run_id)
    if not claimed:
        return run
    last_write = time.monotonic()

    def progress(hands_done: int) -> None:
        nonlocal last_write
        if time.monotonic() - last_write >= PROGRESS_WRITE_SECONDS or hands_done >= run.hands:
            last_write = time.monotonic()
            with transaction.atomic(durable=True):
                TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(hands_done=hands_done)

    try:
        rules = Rules.from_dict(run.rules)
        result = simulate_first_hand_rtp(
            rules, run.hands, run.seed, progress=progress, progress_every=max(10_000, -(-run.hands // 100)),
        )
    except Exception as exc:
        with transaction.atomic(durable=True):
            TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(
                state=RtpRunState.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
            )
        raise
    with transaction.atomic(durable=True):
        TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(
            state=RtpRunState.DONE, hands_done=result.hands, estimate=result.estimate,
            standard_error=result.standard_error, finished_at=timezone.now(),
        )
    return TableRtpRun.objects.get(pk=run_id)

"""Every write to a table's configuration. Each change bumps `config_version` by compare-and-set and
writes one TableChange with the whole configuration before and after, in the same durable transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.staffaudit import Origin, for_table, staff_action_record
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from tables.errors import TableConfigError, TableConflictError
from tables.models import (
    CODE_PATTERN,
    SETTING_FIELDS,
    BetLimit,
    BetType,
    SideBet,
    Table,
    TableChange,
    TablePaytable,
    TableState,
)
from tables.selectors import bet_types_offered, document_of_rows, table_document
from tables.services.validation import (
    _check_actor,
    _check_offered_paytables,
    _limits_clean,
    default_bet_limit,
    paytable_validate,
    profile_defaults,
    reason_clean,
    table_settings_validate,
)
from tables.signals import table_closed

CREATE_ONLY_OPTIONS = ("state", "limits", "paytables")


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


def _change_begin(*, table: Table, expected_version: int | None) -> tuple[Table, dict]:
    fresh = Table.objects.get(pk=table.pk)
    if expected_version is not None and fresh.config_version != expected_version:
        raise TableConflictError(
            f"Table {fresh.code} was changed by someone else (now version {fresh.config_version}, your form was "
            f"version {expected_version}); reload it and apply your change again"
        )
    return fresh, table_document(fresh)


def _change_commit(*, table: Table, before: dict, actor, fields: dict[str, Any], reason: str, origin: Origin | None,
                   action: str = StaffActionKind.TABLE_CONFIGURED, write_rows=None) -> Table | None:
    """Bump the version by compare-and-set, write the rows, record the change (in the table's history and, for a
    person, in the staff-activity record). None when nothing changed."""
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
    summary = change_summary(before, after)
    TableChange.objects.create(
        table=fresh, version=fresh.config_version, actor=actor, at=now, summary=summary, reason=reason,
        before=before, after=after,
    )
    staff_action_record(actor=actor, action=action, target=for_table(fresh), origin=origin, reason=reason, at=now,
                        details={"version": fresh.config_version, "summary": summary})
    return fresh


def _sync_rows(*, table: Table, before: dict, side_bets: list[str], currencies: list[str], bet_behind: bool) -> None:
    """Offer exactly `side_bets`; keep limits for exactly the offered bet types x accepted currencies, adding
    defaults where a bet type or currency is new. Which rows there are comes from `before`, the table's document
    read at the start of this change (its version's compare-and-set guarantees no other change wrote since)."""
    stored, offered_before = before["paytables"], set(before["side_bets"])
    if offered_before - set(side_bets):
        TablePaytable.objects.filter(table=table).exclude(side_bet__in=side_bets).update(offered=False)
    TablePaytable.objects.bulk_create(
        TablePaytable(table=table, side_bet=bet, offered=True, paytable=dict(DEFAULT_PAYTABLES[bet]))
        for bet in side_bets if bet not in stored
    )
    reoffered = [bet for bet in side_bets if bet in stored and bet not in offered_before]
    if reoffered:
        TablePaytable.objects.filter(table=table, side_bet__in=reoffered).update(offered=True)
    bet_types = bet_types_offered(side_bets=side_bets, bet_behind=bet_behind)
    held = {(bet_type, currency) for bet_type, by_currency in before["limits"].items() for currency in by_currency}
    if any(bet_type not in bet_types or currency not in currencies for bet_type, currency in held):
        BetLimit.objects.filter(table=table).exclude(bet_type__in=bet_types).delete()
        BetLimit.objects.filter(table=table).exclude(currency__in=currencies).delete()
    BetLimit.objects.bulk_create(
        BetLimit(table=table, **default_bet_limit(bet_type=bet_type, currency=currency))
        for bet_type in bet_types for currency in currencies if (bet_type, currency) not in held
    )


def table_create(*, actor, code: str, name: str, profile: str, currencies, reason: str = "",
                 origin: Origin | None = None, **options) -> Table:
    """A new table with the profile's rules, default side bets with the default paytables and default limits.
    A person gives the reason (see reason_clean); `origin` is where their request came from.

    `options` may override any setting (see SETTING_FIELDS), and also set `state` (default closed), `limits`
    (a list of {bet_type, currency, min, max, chips}) and `paytables` ({side_bet: {line: pay}}).
    """
    _check_actor(actor)
    reason = reason_clean(actor=actor, reason=reason)
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
    offered_types = bet_types_offered(side_bets=side_bets, bet_behind=settings["bet_behind"])
    custom_limits = _limits_clean(limits, bet_types=offered_types, currencies=settings["currencies"])
    try:
        with transaction.atomic(durable=True):
            table = Table.objects.create(code=code, profile=profile, state=state, **settings)
            # A new table has no rows yet: write each once, as it is meant to be (no _sync_rows to reconcile),
            # and describe the table from the rows written rather than read them back.
            paytable_rows = TablePaytable.objects.bulk_create(
                TablePaytable(
                    table=table, side_bet=bet, offered=bet in side_bets,
                    paytable=paytables.get(bet, dict(DEFAULT_PAYTABLES[bet])),
                )
                for bet in SideBet.values
            )
            limit_rows = BetLimit.objects.bulk_create(
                BetLimit(table=table, **(custom_limits.get((bet_type, currency))
                                         or default_bet_limit(bet_type=bet_type, currency=currency)))
                for bet_type in offered_types for currency in settings["currencies"]
            )
            after = document_of_rows(table, paytables=paytable_rows, limits=limit_rows)
            summary = change_summary(None, after)
            TableChange.objects.create(
                table=table, version=table.config_version, actor=actor, at=table.created_at,
                summary=summary, reason=reason, before=None, after=after,
            )
            staff_action_record(actor=actor, action=StaffActionKind.TABLE_CREATED, target=for_table(table),
                                origin=origin, reason=reason, at=table.created_at,
                                details={"version": table.config_version, "summary": summary})
    except IntegrityError:
        # A code taken already (or by another operator creating it at this moment): the unique constraint
        # decides, and is the only check, so an insert that succeeds asks nothing first.
        if Table.objects.filter(code=code).exists():
            raise TableConfigError(f"There is already a table with code {code}", field="code") from None
        raise
    return table


def table_update(*, actor, table: Table, expected_version: int | None = None, reason: str = "",
                 origin: Origin | None = None, **changes) -> Table:
    """Change any of SETTING_FIELDS. Newly offered side bets, Bet Behind or currencies get default limits;
    limits of bet types or currencies no longer offered are removed (the history keeps them)."""
    _check_actor(actor)
    reason = reason_clean(actor=actor, reason=reason)
    for fixed in ("code", "profile", "state"):
        if fixed in changes:
            hint = "use table_state_set" if fixed == "state" else "create a new table"
            raise TableConfigError(f"A table's {fixed} cannot be changed here; {hint}", field=fixed)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        current = {field: before[field] for field in SETTING_FIELDS}
        settings = table_settings_validate(profile=fresh.profile, values={**current, **changes})
        side_bets = settings.pop("side_bets")
        _check_offered_paytables(stored=before["paytables"], side_bets=side_bets, decks=settings["decks"])

        def write_rows():
            _sync_rows(table=fresh, before=before, side_bets=side_bets, currencies=settings["currencies"],
                       bet_behind=settings["bet_behind"])

        result = _change_commit(table=fresh, before=before, actor=actor, fields=settings, reason=reason,
                                origin=origin, write_rows=write_rows)
    return result or fresh


def bet_limits_set(*, actor, table: Table, limits: Iterable[Mapping[str, Any]],
                   expected_version: int | None = None, reason: str = "", origin: Origin | None = None) -> Table:
    """Set the limits given ({bet_type, currency, min, max, chips} in minor units); others stay as they are.
    Every offered bet type keeps limits in every accepted currency."""
    _check_actor(actor)
    reason = reason_clean(actor=actor, reason=reason)
    limits = list(limits)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        offered = bet_types_offered(side_bets=before["side_bets"], bet_behind=fresh.bet_behind)
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

        result = _change_commit(table=fresh, before=before, actor=actor, fields={}, reason=reason, origin=origin,
                                write_rows=write_rows)
    return result or fresh


def paytable_set(*, actor, table: Table, side_bet: str, paytable: Mapping[str, int],
                 expected_version: int | None = None, reason: str = "",
                 origin: Origin | None = None) -> TablePaytable:
    """Replace a side bet's paytable; refused when its exact RTP at the table's deck count is 100 % or more."""
    _check_actor(actor)
    reason = reason_clean(actor=actor, reason=reason)
    with transaction.atomic(durable=True):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        cleaned = paytable_validate(side_bet=side_bet, paytable=paytable, decks=fresh.decks)

        def write_rows():
            TablePaytable.objects.update_or_create(
                table=fresh, side_bet=side_bet,
                defaults={"paytable": cleaned},
                create_defaults={"paytable": cleaned, "offered": False},
            )

        _change_commit(table=fresh, before=before, actor=actor, fields={}, reason=reason, origin=origin,
                       write_rows=write_rows)
    return TablePaytable.objects.get(table=fresh, side_bet=side_bet)


def _state_action(before: str, after: str) -> str:
    if after == TableState.OPEN:
        return StaffActionKind.TABLE_RESUMED if before == TableState.PAUSED else StaffActionKind.TABLE_OPENED
    return StaffActionKind.TABLE_PAUSED if after == TableState.PAUSED else StaffActionKind.TABLE_CLOSED


def table_state_set(*, actor, table: Table, state: str, reason: str = "", origin: Origin | None = None,
                    expected_version: int | None = None, durable: bool = True) -> Table:
    """The table's side of a state change: the version bump, its TableChange, the reason on the table (shown on
    its page even when no round was in play), the staff-activity record and, closing, `table_closed`.

    A person pausing or closing gives a reason; opening and resuming need none. Open, pause, resume and close
    through rounds.services (table_state_change and the like): they call this with `durable=False` and, in the
    same transaction, void, pause or resume the round being played there."""
    _check_actor(actor)
    if state not in TableState.values:
        raise TableConfigError(f"State must be one of {', '.join(TableState.values)}, not {state!r}", field="state")
    reason = reason_clean(actor=actor, reason=reason, required=state != TableState.OPEN)
    with transaction.atomic(durable=durable):
        fresh, before = _change_begin(table=table, expected_version=expected_version)
        result = _change_commit(table=fresh, before=before, actor=actor,
                                fields={"state": state, "state_reason": reason}, reason=reason, origin=origin,
                                action=_state_action(before["state"], state))
        if result is not None and state == TableState.CLOSED:
            table_closed.send(sender=Table, table=result, at=result.updated_at)
    return result or fresh

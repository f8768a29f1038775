"""Every write of responsible gambling: limits, time-outs and self-exclusions, the player's jurisdiction and
reality-check interval, reality-check answers, and the default national register's entries.

Each service checks its input first (bad input writes nothing), then runs in one durable transaction; a
change entered by staff records a staff action with its reason in the same transaction.
Decisions where the issue is silent (docs/responsible.md lists them all):
- A new limit, or a lower one, takes effect at once; a higher one, or removing one, after the player's
  jurisdiction's cooling-off period. Asking again before a pending change took effect replaces it.
- Where a deposit limit is mandatory (Sweden) the last deposit limit of a currency cannot be removed.
- A time-out lasts 1 to 42 days, a self-exclusion 6 months or more, or indefinitely; neither can be shortened
  or lifted early, by the player or by support. Only an indefinite self-exclusion can end, on request, where
  the jurisdiction allows it: after a minimum time excluded and a cooling-off after the request.
- Operators change a jurisdiction's rules with a reason; each change is a new version in its immutable history.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import StaffActionKind
from accounts.permissions import require_permission
from accounts.staffaudit import Origin, StaffObject, for_user, staff_action_record
from casino.checks import reason_check
from responsible import selectors
from responsible.errors import JurisdictionRuleError, ResponsibleError
from responsible.jurisdictions import jurisdiction_ensure, rules_clean, rules_of
from responsible.limits import tightens
from responsible.models import (
    REASON_MAX_LENGTH,
    Exclusion,
    ExclusionEnd,
    ExclusionEndRule,
    ExclusionKind,
    Jurisdiction,
    JurisdictionChange,
    LimitChange,
    LimitKind,
    LimitPeriod,
    PlayerSettings,
    RealityCheckAnswer,
    RealityCheckChoice,
    RegisterEntry,
)
from wallet.currencies import currency_get
from wallet.errors import UnknownCurrency

SESSION_MINUTES = (10, 24 * 60)
REALITY_CHECK_MINUTES = (10, 15, 20, 30, 45, 60, 90, 120)
TIME_OUT_DAYS = (1, 42)
SELF_EXCLUSION_MIN_DAYS = 183
MAX_MONEY_LIMIT = 10**12
STAFF_PERMISSION = "lookup_players"
RULES_PERMISSION = "configure_jurisdictions"


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _staff_reason(actor, reason) -> str:
    if actor is None:
        return ""
    require_permission(actor, STAFF_PERMISSION)
    return reason_check(reason, max_length=REASON_MAX_LENGTH, error=ResponsibleError)


def _settings_lock(player) -> PlayerSettings:
    # The player's settings row serialises their responsible-gambling writes (two tabs, or support at once).
    PlayerSettings.objects.get_or_create(player=player)
    return PlayerSettings.objects.select_for_update().get(player=player)


def _limit_check(kind, period, currency, value) -> tuple[str, str, str, int | None]:
    if kind not in LimitKind.values:
        raise ResponsibleError(_("A limit is a deposit, loss or session limit, not %r.") % (kind,))
    if kind == LimitKind.SESSION:
        if period not in ("", LimitPeriod.SESSION) or currency:
            raise ResponsibleError(_("A session time limit is minutes per session, without a currency."))
        period, currency, low, high = LimitPeriod.SESSION, "", *SESSION_MINUTES
    else:
        if period not in ("day", "week", "month"):
            raise ResponsibleError(_("A money limit is per day, week or month, not %r.") % (period,))
        try:
            currency_get(currency)
        except UnknownCurrency as error:
            raise ResponsibleError(str(error)) from None
        low, high = 1, MAX_MONEY_LIMIT
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
        raise ResponsibleError(_("The limit must be a whole number from %(low)s to %(high)s, or none.")
                               % {"low": low, "high": high})
    return kind, period, currency, value


def limit_set(*, player, kind: str, period: str = "", currency: str = "", value: int | None, actor=None,
              reason: str = "", origin: Origin | None = None, now: datetime | None = None) -> LimitChange:
    """Set, lower, raise or remove (value None) one limit. Returns the change, with the time it takes effect."""
    kind, period, currency, value = _limit_check(kind, period, currency, value)
    reason = _staff_reason(actor, reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        settings_row = _settings_lock(player)
        jurisdiction = selectors.jurisdiction_get(settings_row.jurisdiction_id)
        state = selectors.player_state(player_id=player.pk, now=now)
        current = state.limits(now).get((kind, period, currency))
        in_force = current.value if current else None
        effective_at = now if tightens(in_force, value) else now + timedelta(hours=jurisdiction.cooling_off_hours)
        if value is None and kind == LimitKind.DEPOSIT and jurisdiction.deposit_limit_required:
            others = [s for (k, p, c), s in state.limits(now, kind="deposit", currency=currency).items()
                      if p != period and (s.value is not None or (s.pending_at and s.pending_value is not None))]
            if not others:
                raise ResponsibleError(_("The rules of %(jurisdiction)s require a deposit limit: set another "
                                         "one in %(currency)s before removing this one.")
                                       % {"jurisdiction": jurisdiction.name, "currency": currency})
        change = LimitChange.objects.create(player=player, kind=kind, period=period, currency=currency,
                                            value=value, requested_at=now, effective_at=effective_at, actor=actor)
        staff_action_record(actor=actor, action=StaffActionKind.RG_LIMIT_SET, target=for_user(player),
                            origin=origin, reason=reason, at=now, details={
                                "kind": kind, "period": period, "currency": currency, "value": value,
                                "effective_at": effective_at.isoformat()})
    return change


def exclusion_start(*, player, kind: str, days: int | None, reason: str = "", actor=None,
                    origin: Origin | None = None, now: datetime | None = None) -> Exclusion:
    """A time-out (1-42 days) or a self-exclusion (at least 6 months, or days None: indefinitely), from now."""
    if kind not in ExclusionKind.values:
        raise ResponsibleError(_("Choose a time-out or a self-exclusion."))
    if days is not None and (isinstance(days, bool) or not isinstance(days, int)):
        raise ResponsibleError(_("The length is a whole number of days."))
    if kind == ExclusionKind.TIME_OUT and (days is None or not TIME_OUT_DAYS[0] <= days <= TIME_OUT_DAYS[1]):
        raise ResponsibleError(_("A time-out lasts from 1 to 42 days; for longer, choose a self-exclusion."))
    if kind == ExclusionKind.SELF_EXCLUSION and days is not None and not SELF_EXCLUSION_MIN_DAYS <= days <= 36500:
        raise ResponsibleError(_("A self-exclusion lasts at least 6 months, or until further notice."))
    staff_reason = _staff_reason(actor, reason)
    player_reason = reason_check(reason, max_length=REASON_MAX_LENGTH, error=ResponsibleError, required=False)
    now = _now(now)
    with transaction.atomic(durable=True):
        exclusion = Exclusion.objects.create(player=player, kind=kind, starts_at=now, created_at=now,
                                             ends_at=None if days is None else now + timedelta(days=days),
                                             reason=staff_reason or player_reason, actor=actor)
        staff_action_record(actor=actor, action=StaffActionKind.RG_EXCLUSION_STARTED, target=for_user(player),
                            origin=origin, reason=staff_reason, at=now, details={
                                "kind": kind, "days": days, "exclusion": exclusion.pk})
    return exclusion


def reality_check_set(*, player, minutes: int | None, now: datetime | None = None) -> PlayerSettings:
    """The player's reality-check interval (None: no reality checks)."""
    if minutes is not None and minutes not in REALITY_CHECK_MINUTES:
        raise ResponsibleError(_("A reality check comes every %s minutes.")
                               % ", ".join(str(m) for m in REALITY_CHECK_MINUTES))
    with transaction.atomic(durable=True):
        row, _created = PlayerSettings.objects.get_or_create(player=player)
        row.reality_check_minutes = minutes
        row.updated_at = _now(now)
        row.save(update_fields=["reality_check_minutes", "updated_at"])
    return row


def reality_check_answer(*, player, choice: str, now: datetime | None = None) -> RealityCheckAnswer:
    """The player's answer to the reality check due now; the next one is due an interval later."""
    if choice not in RealityCheckChoice.values:
        raise ResponsibleError(_("Answer continue or stop."))
    now = _now(now)
    session = selectors.play_session(player_id=player.pk, now=now)
    with transaction.atomic(durable=True):
        return RealityCheckAnswer.objects.create(player=player, choice=choice, answered_at=now,
                                                 session_started_at=session.started_at if session else now)


def jurisdiction_assign(*, player, code: str, actor, reason: str, origin: Origin | None = None) -> PlayerSettings:
    """Support sets the licence a player plays under (from their verified address)."""
    if actor is None:
        raise ResponsibleError(_("Only support sets a player's jurisdiction."))
    reason = _staff_reason(actor, reason)
    if not isinstance(code, str) or jurisdiction_ensure(Jurisdiction, code) is None:
        raise ResponsibleError(_("Unknown jurisdiction %r.") % (code,))
    with transaction.atomic(durable=True):
        row, _created = PlayerSettings.objects.get_or_create(player=player)
        before = row.jurisdiction_id
        row.jurisdiction_id = code
        row.updated_at = timezone.now()
        row.save(update_fields=["jurisdiction", "updated_at"])
        staff_action_record(actor=actor, action=StaffActionKind.RG_JURISDICTION_SET, target=for_user(player),
                            origin=origin, reason=reason, details={"from": before, "to": code})
    return row


def _register_target(identity: str) -> StaffObject:
    return StaffObject(kind="", ref="", label=identity, extra={"identity": identity})


def register_add(*, identity: str, days: int | None, reason: str, actor, origin: Origin | None = None,
                 now: datetime | None = None) -> RegisterEntry:
    """An entry in the default national register (days None: indefinitely)."""
    if actor is None:
        raise ResponsibleError(_("Only support adds register entries."))
    reason = _staff_reason(actor, reason)
    if not isinstance(identity, str) or not identity.strip() or len(identity) > 150:
        raise ResponsibleError(_("Give the identity (user name) to add."))
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 36500):
        raise ResponsibleError(_("The length is a whole number of days, or none for indefinitely."))
    now = _now(now)
    identity = identity.strip()
    with transaction.atomic(durable=True):
        if RegisterEntry.objects.select_for_update().filter(identity=identity, removed_at__isnull=True).exists():
            raise ResponsibleError(_("%s is already in the register.") % identity)
        entry = RegisterEntry.objects.create(identity=identity, reason=reason, added_by=actor, added_at=now,
                                             ends_at=None if days is None else now + timedelta(days=days))
        staff_action_record(actor=actor, action=StaffActionKind.RG_REGISTER_ADDED,
                            target=_register_target(identity), origin=origin, reason=reason, at=now,
                            details={"entry": entry.pk, "days": days})
    return entry


def register_remove(*, entry_id: int, reason: str, actor, origin: Origin | None = None,
                    now: datetime | None = None) -> RegisterEntry:
    if actor is None:
        raise ResponsibleError(_("Only support removes register entries."))
    reason = _staff_reason(actor, reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        entry = RegisterEntry.objects.select_for_update().filter(pk=entry_id, removed_at__isnull=True).first()
        if entry is None:
            raise ResponsibleError(_("There is no such entry in the register (or it was removed already)."))
        entry.removed_at, entry.removed_by, entry.removed_reason = now, actor, reason
        entry.save(update_fields=["removed_at", "removed_by", "removed_reason"])
        staff_action_record(actor=actor, action=StaffActionKind.RG_REGISTER_REMOVED,
                            target=_register_target(entry.identity), origin=origin, reason=reason, at=now,
                            details={"entry": entry.pk})
    return entry


# ------------------------------------------------------------------------------------------ jurisdictions' rules


def jurisdiction_rules_set(*, actor, code: str, values: dict, expected_version: int, reason: str,
                           origin: Origin | None = None, now: datetime | None = None) -> Jurisdiction:
    """An operator changes a jurisdiction's rules: every rule checked (responsible.jurisdictions.rules_clean),
    refused when someone saved another version since the operator read it, or when nothing changes. The new
    rules apply to what is asked from now on: a limit raise or an exclusion end already waiting keeps the
    time it was given."""
    require_permission(actor, RULES_PERMISSION)
    reason = reason_check(reason, max_length=REASON_MAX_LENGTH, error=JurisdictionRuleError)
    if not isinstance(code, str) or jurisdiction_ensure(Jurisdiction, code) is None:
        raise JurisdictionRuleError(_("Unknown jurisdiction %r.") % (code,))
    clean = rules_clean(code, values)
    now = _now(now)
    with transaction.atomic(durable=True):
        row = Jurisdiction.objects.select_for_update().get(code=code)
        if row.version != expected_version:
            raise JurisdictionRuleError(
                f"The rules of {row.name} were changed by someone else since you opened them (now version "
                f"{row.version}): nothing was saved. Read them again before you change them.")
        before = rules_of(row)
        if before == clean:
            raise JurisdictionRuleError("Nothing to save: these are the rules in force. Change a rule first.")
        for name, value in clean.items():
            setattr(row, name, value)
        row.version += 1
        row.save(update_fields=[*clean, "version"])
        JurisdictionChange.objects.create(jurisdiction=row, version=row.version, actor=actor, at=now,
                                          reason=reason, before=before, after=clean)
        staff_action_record(actor=actor, action=StaffActionKind.RG_JURISDICTION_CHANGED,
                            target=StaffObject(kind="", ref="", label=f"{row.code} {row.name}",
                                               extra={"jurisdiction": row.code}),
                            origin=origin, reason=reason, at=now,
                            details={"version": row.version, "before": before, "after": clean})
    return row


# ------------------------------------------------------------------------------- ending a self-exclusion


def exclusion_end_request(*, player, reason: str = "", actor=None, origin: Origin | None = None,
                          now: datetime | None = None) -> list[ExclusionEnd]:
    """The player (actor None), or support on the player's written request (with a reason), asks to end their
    indefinite self-exclusion. Where the player's jurisdiction allows it, the end takes effect at the later of
    the minimum time excluded and the cooling-off after the request; until then the exclusion is in force.
    Refused where the jurisdiction never ends one, for a time-out or a fixed self-exclusion (those run their
    course), and when an end is already waiting. Returns one request per indefinite exclusion in force."""
    staff_reason = _staff_reason(actor, reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        settings_row = _settings_lock(player)
        jurisdiction = selectors.jurisdiction_get(settings_row.jurisdiction_id)
        open_ones = selectors.indefinite_exclusions(player=player, now=now)
        if not open_ones:
            raise ResponsibleError(_("There is no indefinite self-exclusion to end. A time-out or a self-exclusion "
                                     "for a set time cannot be ended early: it ends by itself."))
        if any(end is not None for _exclusion, end in open_ones):
            raise ResponsibleError(_("Ending your self-exclusion is already requested; see when it takes effect "
                                     "below."))
        if jurisdiction.exclusion_end != ExclusionEndRule.ON_REQUEST:
            raise ResponsibleError(_("The rules of %(jurisdiction)s do not let an indefinite self-exclusion end on "
                                     "request: it stays in force.") % {"jurisdiction": jurisdiction.name})
        effective_at = selectors.exclusion_end_effective_at(
            jurisdiction=jurisdiction, exclusions=[exclusion for exclusion, _end in open_ones], now=now)
        rule = {"jurisdiction": jurisdiction.code, "min_days": jurisdiction.exclusion_end_min_days,
                "cooling_off_hours": jurisdiction.exclusion_end_cooling_off_hours}
        ends = [ExclusionEnd.objects.create(exclusion=exclusion, player=player, requested_at=now,
                                            effective_at=effective_at, actor=actor, reason=staff_reason, rule=rule)
                for exclusion, _end in open_ones]
        staff_action_record(actor=actor, action=StaffActionKind.RG_EXCLUSION_END_REQUESTED, target=for_user(player),
                            origin=origin, reason=staff_reason, at=now, details={
                                "exclusions": [e.exclusion_id for e in ends], "effective_at": effective_at.isoformat(),
                                **rule})
    return ends


def exclusion_end_withdraw(*, player, reason: str = "", actor=None, origin: Origin | None = None,
                           now: datetime | None = None) -> int:
    """The player (or support for them, with a reason) withdraws a waiting end: the exclusion stays in force
    indefinitely, at once (like a lower limit). Returns how many requests were withdrawn."""
    staff_reason = _staff_reason(actor, reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        _settings_lock(player)
        waiting = list(ExclusionEnd.objects.select_for_update().filter(
            player=player, withdrawn_at__isnull=True, effective_at__gt=now))
        if not waiting:
            raise ResponsibleError(_("No end of a self-exclusion is waiting to take effect."))
        for end in waiting:
            end.withdrawn_at, end.withdrawn_by, end.withdrawn_reason = now, actor, staff_reason
            end.save(update_fields=["withdrawn_at", "withdrawn_by", "withdrawn_reason"])
        staff_action_record(actor=actor, action=StaffActionKind.RG_EXCLUSION_END_WITHDRAWN, target=for_user(player),
                            origin=origin, reason=staff_reason, at=now,
                            details={"exclusions": [e.exclusion_id for e in waiting]})
    return len(waiting)

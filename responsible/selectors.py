"""Reads of the responsible-gambling state: a player's jurisdiction, limits, exclusions and play session, and
the sums the limits are checked against (deposits and net losses per period, read from the ledger)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from types import SimpleNamespace

from django.conf import settings
from django.db import connection
from django.db.models import Case, F, IntegerField, OuterRef, Q, Subquery, Sum, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from responsible.jurisdictions import jurisdiction_ensure
from responsible.limits import LimitState, limit_state
from responsible.models import (
    Exclusion,
    ExclusionEnd,
    ExclusionKind,
    Jurisdiction,
    JurisdictionChange,
    LimitChange,
    RealityCheckAnswer,
)
from responsible.periods import period_end, period_start
from wallet.models import AccountKind, Bet, BetResolution, Entry, TransactionKind

# A play session is continuous play: it begins at the first bet after at least this long without a bet, so a
# session time limit is a break the player must take before playing again.
SESSION_BREAK = timedelta(minutes=30)
CALENDAR_PERIODS = ("day", "week", "month")


@cache
def _jurisdiction_sql() -> str:
    columns = ", ".join(field.column for field in Jurisdiction._meta.concrete_fields)
    return f"SELECT {columns} FROM {Jurisdiction._meta.db_table} WHERE code = %s"


def jurisdiction_get(code: str | None) -> Jurisdiction:
    code = code or settings.RESPONSIBLE_DEFAULT_JURISDICTION
    # Every deposit reads its player's jurisdiction: one statement written once, not compiled per call.
    fields = Jurisdiction._meta.concrete_fields
    with connection.cursor() as cursor:
        cursor.execute(_jurisdiction_sql(), [code])
        row = cursor.fetchone()
    if row is not None:
        # to_python: SQLite's raw SQL hands booleans back as 0 and 1.
        return Jurisdiction.from_db(connection.alias, [f.attname for f in fields],
                                    [f.to_python(value) for f, value in zip(fields, row, strict=True)])
    found = jurisdiction_ensure(Jurisdiction, code)
    # An unknown jurisdiction still has the model's defaults (72 hours).
    return found or Jurisdiction(code=code, name=code)


@dataclass
class PlayerState:
    """Everything the checks need about a player, read in one statement (the bet path's budget)."""

    jurisdiction_code: str | None = None
    reality_check_minutes: int | None = None
    changes: dict[tuple[str, str, str], list] = field(default_factory=lambda: defaultdict(list))
    exclusion: SimpleNamespace | None = None
    last_answer: SimpleNamespace | None = None

    def limits(self, now: datetime, *, kind: str | None = None, currency: str | None = None
               ) -> dict[tuple[str, str, str], LimitState]:
        return {key: limit_state(rows, now) for key, rows in self.changes.items()
                if (kind is None or key[0] == kind) and (currency is None or key[2] in (currency, ""))}

    @property
    def empty(self) -> bool:
        return not (self.changes or self.exclusion or self.reality_check_minutes)


def _when(value):
    # SQLite hands raw SQL its datetimes as text in UTC without an offset (Django stores them so).
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


# An indefinite exclusion with a live (not withdrawn) end request ends at the request's effective_at; at most
# one live request per exclusion (a database constraint), so the join adds no rows.
_STATE_SQL = """
SELECT 'L', kind, period, currency, value, requested_at, effective_at, id
  FROM responsible_limitchange WHERE player_id = %(player)s
UNION ALL
SELECT 'X', x.kind, '', '', NULL, x.starts_at, COALESCE(x.ends_at, e.effective_at), x.id
  FROM responsible_exclusion x
  LEFT JOIN responsible_exclusionend e ON e.exclusion_id = x.id AND e.withdrawn_at IS NULL
 WHERE x.player_id = %(player)s AND x.starts_at <= %(now)s
   AND (COALESCE(x.ends_at, e.effective_at) IS NULL OR COALESCE(x.ends_at, e.effective_at) > %(now)s)
UNION ALL
SELECT 'S', COALESCE(jurisdiction_id, ''), '', '', reality_check_minutes, updated_at, NULL, 0
  FROM responsible_playersettings WHERE player_id = %(player)s
UNION ALL
SELECT * FROM (SELECT 'R', choice, '', '', CAST(NULL AS BIGINT), session_started_at, answered_at, id
                 FROM responsible_realitycheckanswer WHERE player_id = %(player)s ORDER BY id DESC LIMIT 1) r
"""


def player_state(*, player_id: int, now: datetime) -> PlayerState:
    state = PlayerState()
    with connection.cursor() as cursor:
        cursor.execute(_STATE_SQL, {"player": player_id, "now": now})
        rows = cursor.fetchall()
    for tag, kind, period, currency, value, first, second, pk in rows:
        if tag == "L":
            state.changes[(kind, period, currency)].append(SimpleNamespace(
                id=pk, value=value, requested_at=_when(first), effective_at=_when(second)))
        elif tag == "X":
            ends = _when(second)
            if state.exclusion is None or (state.exclusion.ends_at is not None
                                           and (ends is None or ends > state.exclusion.ends_at)):
                state.exclusion = SimpleNamespace(id=pk, kind=kind, starts_at=_when(first), ends_at=ends)
        elif tag == "S":
            state.jurisdiction_code = kind or None
            state.reality_check_minutes = value
        else:
            state.last_answer = SimpleNamespace(choice=kind, session_started_at=_when(first),
                                                answered_at=_when(second))
    return state


def player_jurisdiction(*, player) -> Jurisdiction:
    from responsible.models import PlayerSettings

    row = PlayerSettings.objects.filter(player=player).only("jurisdiction_id").first()
    return jurisdiction_get(row.jurisdiction_id if row else None)


# ------------------------------------------------------------------------------------------------ period sums


def period_starts(now: datetime, time_zone: str) -> dict[str, datetime]:
    return {period: period_start(period, now, time_zone) for period in CALENDAR_PERIODS}


def period_resets(now: datetime, time_zone: str) -> dict[str, datetime]:
    return {period: period_end(period, now, time_zone) for period in CALENDAR_PERIODS}


def _per_period(queryset, *, amount: str, at: str, starts: dict[str, datetime]) -> dict[str, int]:
    earliest = min(starts.values())
    sums = queryset.filter(**{f"{at}__gte": earliest}).aggregate(**{
        period: Coalesce(Sum(Case(When(Q(**{f"{at}__gte": start}), then=amount), default=0,
                                  output_field=IntegerField())), 0)
        for period, start in starts.items()
    })
    return {period: int(value) for period, value in sums.items()}


def deposits_per_period(*, player_id: int, currency: str, starts: dict[str, datetime]) -> dict[str, int]:
    """Cash deposited in each period (a withdrawal does not give a deposit limit back)."""
    entries = Entry.objects.filter(account__player_id=player_id, account__kind=AccountKind.PLAYER_CASH,
                                   account__currency=currency, transaction__kind=TransactionKind.DEPOSIT)
    return _per_period(entries, amount="amount", at="created_at", starts=starts)


def losses_per_period(*, player_id: int, currency: str, starts: dict[str, datetime]) -> dict[str, int]:
    """Net loss in each period: cash staked minus cash returned. A bet still open counts as lost until it is
    resolved (the cautious reading); Golden Chips stakes are the house's promotion, not the player's money,
    but the cash a Golden Chip bet wins is the player's and counts as returned."""
    stakes = _per_period(Bet.objects.filter(account__player_id=player_id, account__currency=currency,
                                            account__kind=AccountKind.PLAYER_CASH),
                         amount="amount", at="created_at", starts=starts)
    returns = _per_period(BetResolution.objects.filter(bet__account__player_id=player_id,
                                                       bet__account__currency=currency),
                          amount="cash_return", at="created_at", starts=starts)
    return {period: stakes[period] - returns[period] for period in starts}


# ------------------------------------------------------------------------------------------ the first occasion


@dataclass(frozen=True)
class Occasions:
    """What ends a player's first occasion (docs/responsible.md): their first promotional grant, their first bet."""

    first_grant_at: datetime | None
    first_bet_at: datetime | None

    @property
    def first_occasion_over(self) -> bool:
        return self.first_grant_at is not None or self.first_bet_at is not None


def occasions(*, player_id: int) -> Occasions:
    """The player's first Golden Chips grant and first bet, in any currency, at any table, as cash or chips."""
    grant = (Entry.objects.filter(account__player_id=player_id, transaction__kind=TransactionKind.GOLDEN_CHIP_GRANT)
             .order_by("created_at").values_list("created_at", flat=True).first())
    bet = (Bet.objects.filter(account__player_id=player_id).order_by("created_at")
           .values_list("created_at", flat=True).first())
    return Occasions(first_grant_at=grant, first_bet_at=bet)


# ------------------------------------------------------------------------------------------------ the session


@dataclass(frozen=True)
class PlaySession:
    started_at: datetime
    last_bet_at: datetime
    # Per currency: cash staked and cash returned in the session (the net result is returned - staked).
    staked: dict[str, int]
    returned: dict[str, int]

    def played(self, now: datetime) -> timedelta:
        return now - self.started_at

    def net(self) -> dict[str, int]:
        return {c: self.returned.get(c, 0) - self.staked.get(c, 0) for c in sorted({*self.staked, *self.returned})}


def play_session(*, player_id: int, now: datetime) -> PlaySession | None:
    """The session the player is in now (None if their last bet is a break ago or more)."""
    times = list(Bet.objects.filter(account__player_id=player_id, created_at__gt=now - timedelta(days=1))
                 .order_by("-created_at").values_list("created_at", flat=True))
    if not times or now - times[0] >= SESSION_BREAK:
        return None
    start = times[0]
    for earlier in times[1:]:
        if start - earlier >= SESSION_BREAK:
            break
        start = earlier
    staked: dict[str, int] = defaultdict(int)
    returned: dict[str, int] = defaultdict(int)
    for currency, kind, amount, cash_return in (
        Bet.objects.filter(account__player_id=player_id, created_at__gte=start)
        .values_list("account__currency", "account__kind", "amount", "resolution__cash_return")
    ):
        if kind == AccountKind.PLAYER_CASH:
            staked[currency] += amount
        returned[currency] += cash_return or 0
    return PlaySession(started_at=start, last_bet_at=times[0], staked=dict(staked), returned=dict(returned))


# ---------------------------------------------------------------------------------------- pages and support


def limit_history(*, player) -> list[LimitChange]:
    return list(LimitChange.objects.filter(player=player).select_related("actor").order_by("-id"))


def exclusions(*, player) -> list[Exclusion]:
    """Newest first, each with `ended_at` (its end, or the time a live end request ends it)."""
    return list(_with_end(Exclusion.objects.filter(player=player)).select_related("actor").order_by("-id"))


def _live_end():
    return ExclusionEnd.objects.filter(exclusion=OuterRef("pk"), withdrawn_at__isnull=True).values("effective_at")[:1]


def _with_end(queryset):
    """Exclusions with `ended_at`: when they stop (their own end, or a live end request's; None: indefinitely)."""
    return queryset.annotate(ended_at=Coalesce("ends_at", Subquery(_live_end())))


def exclusion_active(*, player, now: datetime) -> Exclusion | None:
    # The one that ends last (an indefinite one first of all).
    return (_with_end(Exclusion.objects.filter(player=player, starts_at__lte=now))
            .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=now))
            .order_by(F("ended_at").desc(nulls_first=True), "-id").first())


def indefinite_exclusions(*, player, now: datetime) -> list[tuple[Exclusion, ExclusionEnd | None]]:
    """The player's indefinite self-exclusions in force now, each with its waiting end request (or None)."""
    found = []
    for exclusion in Exclusion.objects.filter(player=player, kind=ExclusionKind.SELF_EXCLUSION, ends_at__isnull=True,
                                              starts_at__lte=now).order_by("id"):
        end = ExclusionEnd.objects.filter(exclusion=exclusion, withdrawn_at__isnull=True).first()
        if end is None or end.effective_at > now:
            found.append((exclusion, end))
    return found


def exclusion_end_effective_at(*, jurisdiction: Jurisdiction, exclusions: list[Exclusion], now: datetime
                               ) -> datetime:
    """When a request made now would end these indefinite exclusions: the later of the cooling-off after the
    request and the minimum time excluded counted from each exclusion's start."""
    return max(now + timedelta(hours=jurisdiction.exclusion_end_cooling_off_hours),
               *(e.starts_at + timedelta(days=jurisdiction.exclusion_end_min_days) for e in exclusions))


def exclusion_ends(*, player) -> list[ExclusionEnd]:
    return list(ExclusionEnd.objects.filter(player=player).select_related("actor", "withdrawn_by").order_by("-id"))


def reality_answers(*, player, limit: int = 20) -> list[RealityCheckAnswer]:
    return list(RealityCheckAnswer.objects.filter(player=player).order_by("-id")[:limit])


def jurisdictions_all() -> list[Jurisdiction]:
    from responsible.jurisdictions import DEFAULTS

    for code in DEFAULTS:
        jurisdiction_ensure(Jurisdiction, code)
    return list(Jurisdiction.objects.order_by("code"))


def jurisdiction_history(*, code: str, limit: int = 50) -> list[JurisdictionChange]:
    return list(JurisdictionChange.objects.filter(jurisdiction_id=code).select_related("actor")
                .order_by("-version")[:limit])

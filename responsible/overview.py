"""A player's responsible-gambling state as the pages and the API show it: each limit in force with its
pending change, the exclusion or register entry in force, and the session with its reality check."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from responsible import checks, selectors
from responsible.errors import Excluded, RegisterUnavailable
from responsible.models import LimitKind
from responsible.signals import login_refusal

LIMIT_ORDER = {("deposit", "day"): 0, ("deposit", "week"): 1, ("deposit", "month"): 2, ("loss", "day"): 3,
               ("loss", "week"): 4, ("loss", "month"): 5, ("session", "session"): 6}


@dataclass(frozen=True)
class LimitRow:
    kind: str
    period: str
    currency: str
    name: str
    value: int | None
    pending_value: int | None
    pending_at: datetime | None

    @property
    def is_money(self) -> bool:
        return self.kind != LimitKind.SESSION


@dataclass(frozen=True)
class Overview:
    jurisdiction: object
    limits: list[LimitRow]
    refusal: str            # why the player may not play now ("" if they may)
    session: selectors.PlaySession | None
    played_minutes: int
    reality_check_minutes: int | None
    reality_check_due: bool
    now: datetime


def overview(*, player, now: datetime | None = None) -> Overview:
    now = now or timezone.now()
    state = selectors.player_state(player_id=player.pk, now=now)
    jurisdiction = selectors.jurisdiction_get(state.jurisdiction_code)
    rows = [
        LimitRow(kind=kind, period=period, currency=currency, name=checks._limit_name(kind, period),
                 value=s.value, pending_value=s.pending_value, pending_at=s.pending_at)
        for (kind, period, currency), s in state.limits(now).items()
        if s.value is not None or s.pending_at is not None
    ]
    rows.sort(key=lambda r: (r.currency, LIMIT_ORDER[(r.kind, r.period)]))
    session = selectors.play_session(player_id=player.pk, now=now)
    try:
        refusal = login_refusal(player)
    except (Excluded, RegisterUnavailable) as error:
        refusal = error.message
    return Overview(
        jurisdiction=jurisdiction, limits=rows, refusal=refusal, session=session,
        played_minutes=int(session.played(now).total_seconds() // 60) if session else 0,
        reality_check_minutes=state.reality_check_minutes,
        reality_check_due=checks.reality_check_due(state, session, now=now), now=now,
    )



@dataclass(frozen=True)
class ExclusionEndOverview:
    """What the pages say about ending an indefinite self-exclusion in force (`indefinite` False: there is none)."""

    indefinite: bool
    allowed: bool                       # the jurisdiction ends one on request
    pending: object | None = None       # the waiting ExclusionEnd
    would_end_at: datetime | None = None  # when a request made now would end it
    min_days: int = 0
    cooling_off_hours: int = 0


def exclusion_end_overview(*, player, now: datetime | None = None) -> ExclusionEndOverview:
    from responsible.models import ExclusionEndRule

    now = now or timezone.now()
    found = selectors.indefinite_exclusions(player=player, now=now)
    jurisdiction = selectors.player_jurisdiction(player=player)
    allowed = jurisdiction.exclusion_end == ExclusionEndRule.ON_REQUEST
    if not found:
        return ExclusionEndOverview(indefinite=False, allowed=allowed)
    pending = next((end for _exclusion, end in found if end is not None), None)
    return ExclusionEndOverview(
        indefinite=True, allowed=allowed, pending=pending,
        would_end_at=selectors.exclusion_end_effective_at(jurisdiction=jurisdiction,
                                                          exclusions=[e for e, _end in found], now=now),
        min_days=jurisdiction.exclusion_end_min_days, cooling_off_hours=jurisdiction.exclusion_end_cooling_off_hours)

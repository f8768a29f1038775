"""The checks in the money path. The wallet calls `deposit_allowed` for every deposit under the player's
account lock (settings.WALLET_DEPOSIT_CHECKS); the bet service calls `bet_allowed` once per bet request, and the hand
once per paid double, split or insurance (rounds.services.play, continuation, insurance), each after the round
and spot locks; it takes the account lock itself before it reads the sums. So two concurrent
requests that would pass a limit together are ordered by that lock, and the second sees the first's money.

Every refusal names the limit, what has been used of it and when it resets; nothing has moved when it is
raised (the caller's transaction rolls back).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from casino.locale_formats import money_in
from responsible import selectors
from responsible.errors import DepositLimitRequired, Excluded, LimitReached, PromotionRefused, RealityCheckDue
from responsible.limits import LimitState
from responsible.models import PlayerSettings, PromotionRule
from responsible.register import register_lookup
from wallet.models import Account, AccountKind

PERIOD_WORDS = {"day": "daily", "week": "weekly", "month": "monthly"}


def money_format(amount: int, currency: str) -> str:
    """In the reader's language, as the player's pages write money."""
    return money_in(amount, currency, language=get_language() or "en")


def when_text(moment: datetime | None, time_zone: str) -> str:
    if moment is None:
        return _("further notice")
    return f"{moment.astimezone(ZoneInfo(time_zone)):%Y-%m-%d %H:%M} ({time_zone})"


def _limit_name(kind: str, period: str) -> str:
    names = {
        ("deposit", "day"): _("daily deposit limit"), ("deposit", "week"): _("weekly deposit limit"),
        ("deposit", "month"): _("monthly deposit limit"), ("loss", "day"): _("daily loss limit"),
        ("loss", "week"): _("weekly loss limit"), ("loss", "month"): _("monthly loss limit"),
        ("session", "session"): _("session time limit"),
    }
    return names[(kind, period)]


def _excluded_refuse(state: selectors.PlayerState, *, doing: str, time_zone: str) -> None:
    exclusion = state.exclusion
    if exclusion is None:
        return
    what = _("time-out") if exclusion.kind == "time_out" else _("self-exclusion")
    raise Excluded(_("Your %(what)s is in force until %(until)s: %(doing)s is not possible until then. "
                     "You can still withdraw your balance.")
                   % {"what": what, "until": when_text(exclusion.ends_at, time_zone), "doing": doing})


def register_refuse(player, *, now: datetime, doing: str, time_zone: str) -> None:
    answer = register_lookup(player, now)
    if answer.excluded:
        raise Excluded(_("You are registered in the national self-exclusion register until %(until)s: "
                         "%(doing)s is not possible. You can still withdraw your balance.")
                       % {"until": when_text(answer.until, time_zone), "doing": doing})


def _money_limits_check(*, kind: str, limits: dict, used: dict[str, int], amount: int, currency: str,
                        now: datetime, time_zone: str) -> None:
    resets = selectors.period_resets(now, time_zone)
    for (_kind, period, _currency), state in sorted(limits.items()):
        if state.value is None or used[period] + amount <= state.value:
            continue
        left = max(state.value - used[period], 0)
        raise LimitReached(
            _("This would pass your %(limit)s of %(value)s: %(used)s is used in this period, so %(left)s is "
              "left. The limit resets at %(reset)s.")
            % {"limit": _limit_name(kind, period), "value": money_format(state.value, currency),
               "used": money_format(max(used[period], 0), currency), "left": money_format(left, currency),
               "reset": when_text(resets[period], time_zone)}
        )


def deposit_allowed(*, player, currency: str, amount: int, now: datetime) -> None:
    """Refuse a deposit an exclusion, the national register or a deposit limit forbids. Runs under the
    player's cash account lock, inside the deposit's transaction."""
    state = selectors.player_state(player_id=player.pk, now=now)
    jurisdiction = selectors.jurisdiction_get(state.jurisdiction_code)
    zone = jurisdiction.time_zone
    _excluded_refuse(state, doing=_("a deposit"), time_zone=zone)
    register_refuse(player, now=now, doing=_("a deposit"), time_zone=zone)
    limits = {key: s for key, s in state.limits(now, kind="deposit", currency=currency).items()}
    if jurisdiction.deposit_limit_required and not any(s.value is not None for s in limits.values()):
        raise DepositLimitRequired(
            _("Before your first deposit in %(currency)s, set a deposit limit (per day, week or month) on your "
              "responsible gambling page; the rules of %(jurisdiction)s require one.")
            % {"currency": currency, "jurisdiction": jurisdiction.name})
    if not limits:
        return
    used = selectors.deposits_per_period(player_id=player.pk, currency=currency,
                                         starts=selectors.period_starts(now, zone))
    _money_limits_check(kind="deposit", limits=limits, used=used, amount=amount, currency=currency, now=now,
                        time_zone=zone)


def _session_check(state: selectors.PlayerState, *, player_id: int, now: datetime, time_zone: str) -> None:
    session_limit: LimitState | None = state.limits(now, kind="session").get(("session", "session", ""))
    minutes = session_limit.value if session_limit else None
    if minutes is None and not state.reality_check_minutes:
        return
    session = selectors.play_session(player_id=player_id, now=now)
    if session is None:
        return  # this bet starts a new session
    if minutes is not None and session.played(now) >= timedelta(minutes=minutes):
        ends = session.started_at + timedelta(minutes=minutes)
        raise LimitReached(
            _("Your session time limit of %(minutes)s minutes was reached at %(ends)s. You can play again "
              "after a break of %(break)s minutes without play, from %(again)s.")
            % {"minutes": minutes, "ends": when_text(ends, time_zone),
               "break": int(selectors.SESSION_BREAK.total_seconds() // 60),
               "again": when_text(session.last_bet_at + selectors.SESSION_BREAK, time_zone)})
    if reality_check_due(state, session, now=now):
        raise RealityCheckDue(_("A reality check is waiting for your answer: you have played for %(minutes)s "
                                "minutes. Continue or stop before your next bet.")
                              % {"minutes": int(session.played(now).total_seconds() // 60)})


def reality_check_due(state: selectors.PlayerState, session: selectors.PlaySession | None, *,
                      now: datetime) -> bool:
    """A check is due when the player has played an interval since the session began or since they last
    answered one in this session."""
    if not state.reality_check_minutes or session is None:
        return False
    since = session.started_at
    answer = state.last_answer
    if answer is not None and answer.answered_at >= session.started_at:
        since = answer.answered_at
    return now - since >= timedelta(minutes=state.reality_check_minutes)


def bet_allowed(*, player, currency: str, cash_amount: int, now: datetime) -> None:
    """Refuse a bet an exclusion, the session time limit, an unanswered reality check or a loss limit forbids.

    Call inside the bet's transaction after the round and spot locks: when the player has a limit this takes
    their cash account lock (the next in the lock order) before it reads what they have lost."""
    state = selectors.player_state(player_id=player.pk, now=now)
    if state.empty:
        return  # the common case: one statement
    zone = selectors.jurisdiction_get(state.jurisdiction_code).time_zone
    _excluded_refuse(state, doing=_("a bet"), time_zone=zone)
    limits = state.limits(now, kind="loss", currency=currency)
    if any(s.value is not None for s in limits.values()):
        list(Account.objects.select_for_update().filter(player=player, kind=AccountKind.PLAYER_CASH,
                                                         currency=currency).values_list("id", flat=True))
    _session_check(state, player_id=player.pk, now=now, time_zone=zone)
    if cash_amount and any(s.value is not None for s in limits.values()):
        used = selectors.losses_per_period(player_id=player.pk, currency=currency,
                                           starts=selectors.period_starts(now, zone))
        _money_limits_check(kind="loss", limits=limits, used=used, amount=cash_amount, currency=currency,
                            now=now, time_zone=zone)


def _promotion_refuse(player, *, now: datetime, jurisdiction=None) -> None:
    if jurisdiction is None:
        jurisdiction = selectors.player_jurisdiction(player=player)
    rule = jurisdiction.promotions
    if rule == PromotionRule.ANY:
        return
    if rule == PromotionRule.NONE:
        raise PromotionRefused(_("The rules of %(jurisdiction)s allow no promotional credit: no Golden Chips can "
                                 "be granted to this player.") % {"jurisdiction": jurisdiction.name})
    seen = selectors.occasions(player_id=player.pk)
    if not seen.first_occasion_over:
        return
    zone = jurisdiction.time_zone
    if seen.first_grant_at is not None:
        why = _("received promotional credit already, on %(when)s") % {"when": when_text(seen.first_grant_at, zone)}
    else:
        why = _("placed a first bet already, on %(when)s") % {"when": when_text(seen.first_bet_at, zone)}
    raise PromotionRefused(
        _("The rules of %(jurisdiction)s allow promotional credit only at a player's first occasion (before "
          "their first bet, and only once), and this player %(why)s.") % {"jurisdiction": jurisdiction.name,
                                                                          "why": why})


def promotion_refusal(*, player, now: datetime, jurisdiction=None) -> str:
    """Why a promotional credit to this player would be refused now ("" if it would not): the grant page says
    it before the review; `promotion_allowed` decides again under the lock. A page that read the player's
    jurisdiction already passes it, so it is not read twice."""
    try:
        _promotion_refuse(player, now=now, jurisdiction=jurisdiction)
    except PromotionRefused as refusal:
        return refusal.message
    return ""


def promotion_allowed(*, player, currency: str, amount: int, now: datetime) -> None:
    """Refuse a promotional credit the player's jurisdiction forbids (settings.WALLET_PROMOTION_CHECKS). Runs
    inside the grant's transaction under the player's Golden Chips account lock; it then locks the player's
    settings row too, so two concurrent grants (in one currency or two) are ordered and the second reads the
    first. Only a write of this app (limit_set, exclusion ends) takes that row, and none holds an account."""
    PlayerSettings.objects.bulk_create([PlayerSettings(player=player)], ignore_conflicts=True)
    PlayerSettings.objects.select_for_update().filter(player=player).values_list("player_id", flat=True).get()
    _promotion_refuse(player, now=now)

"""The back office's only writes: the daily totals of settled rounds (a cache, recomputed whole per day) that the
RTP report, the dashboard and the GGR report read: money per table, version, bet type and currency (RtpDaily),
rounds per table and currency (RtpDailyRounds) and the players who bet (RtpDailyPlayer).

Decisions where the issue is silent:
- A day is rolled up once it is over (UTC); the periodic task recomputes yesterday on every run (a round whose
  settlement committed just after midnight is then counted), the days of rounds reversed in the last two days
  (a reversal makes a settled round voided, so its day's totals change), and backfills up to ten missing days
  of the last ninety per run. `manage.py rtp_rollup` backfills any range at once.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from django.db import transaction
from django.utils import timezone

from backoffice import ggr, reports
from backoffice.models import RtpAlert, RtpDaily, RtpDailyPlayer, RtpDailyRounds, RtpDay
from rounds.models import Round, VoidKind

BACKFILL_DAYS = 90
BACKFILL_PER_RUN = 10
REVERSALS_LOOKBACK = timedelta(days=2)


def _today(now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(UTC).date()


def rtp_day_rollup(*, day: date, now: datetime | None = None) -> int:
    """Recompute the totals of one whole UTC day before today; returns how many rows it holds."""
    if not isinstance(day, date) or isinstance(day, datetime):
        raise TypeError(f"a day is a date, not {day!r}")
    if day >= _today(now):
        raise ValueError(f"{day} is not over yet: only days before today are rolled up")
    since = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
    until = since + timedelta(days=1)
    rows = reports._aggregate(since=since, until=until)
    rounds, players = ggr.activity_aggregate(since=since, until=until)
    with transaction.atomic(durable=True):
        for model in (RtpDaily, RtpDailyRounds, RtpDailyPlayer):
            model.objects.filter(day=day).delete()
        RtpDaily.objects.bulk_create([
            RtpDaily(day=day, table_id=row["table_id"], config_version=row["config_version"],
                     bet_type=row["bet_type"], currency=row["currency"], rounds=row["rounds"], bets=row["bets"],
                     initial=row["initial"], staked=row["staked"], returned=row["returned"],
                     chips_staked=row["chips_staked"], chips_returned=row["chips_returned"],
                     initial_sq=row["initial_sq"], net_sq=row["net_sq"])
            for row in rows
        ])
        RtpDailyRounds.objects.bulk_create([
            RtpDailyRounds(day=day, table_id=row["table_id"], currency=row["currency"], rounds=row["rounds"])
            for row in rounds
        ])
        RtpDailyPlayer.objects.bulk_create([
            RtpDailyPlayer(day=day, table_id=row["table_id"], currency=row["currency"], bet_type=row["bet_type"],
                           player_id=row["player_id"])
            for row in players
        ], batch_size=2000)
        RtpDay.objects.update_or_create(day=day, defaults={"computed_at": timezone.now()})
    return len(rows)


def rtp_rollups_refresh(*, now: datetime | None = None) -> list[date]:
    """What the periodic task does: yesterday, the days of recent reversals, and some missing days."""
    now = now or timezone.now()
    today = _today(now)
    days = {today - timedelta(days=1)}
    reversed_days = Round.objects.filter(
        void_kind=VoidKind.REVERSAL, voided_at__gte=now - REVERSALS_LOOKBACK, settled_at__isnull=False
    ).values_list("settled_at", flat=True)
    days |= {moment.astimezone(UTC).date() for moment in reversed_days if moment is not None}
    window = [today - timedelta(days=n) for n in range(1, BACKFILL_DAYS + 1)]
    done = set(RtpDay.objects.filter(day__in=window).values_list("day", flat=True))
    days |= set([day for day in window if day not in done][:BACKFILL_PER_RUN])
    due = sorted(day for day in days if day < today)
    for day in due:
        rtp_day_rollup(day=day, now=now)
    return due


ALERT_WINDOW = timedelta(days=7)


def rtp_alerts_check(*, now: datetime | None = None) -> list[RtpAlert]:
    """Raise an alert for every table, bet type and currency whose observed RTP over the last seven days lies
    outside its 99.7 % band (with enough bets to judge), and clear those back inside; one transaction. Returns
    the alerts open afterwards."""
    now = now or timezone.now()
    rows = reports.rtp_report(since=now - ALERT_WINDOW, until=now)
    with transaction.atomic(durable=True):
        open_alerts = {(a.table_id, a.bet_type, a.currency): a
                       for a in RtpAlert.objects.select_for_update().filter(cleared_at__isnull=True)}
        still = []
        for row in rows:
            key = (row.table.pk, row.bet_type, row.currency)
            alert = open_alerts.pop(key, None)
            if not row.alarm:
                if alert is not None:
                    open_alerts[key] = alert  # cleared below
                continue
            band = row.band_997
            assert band is not None and row.observed is not None
            if alert is None:
                alert = RtpAlert.objects.create(table=row.table, bet_type=row.bet_type, currency=row.currency,
                                                raised_at=now, observed=row.observed, low=band[0], high=band[1],
                                                bets=row.bets, checked_at=now)
            else:
                RtpAlert.objects.filter(pk=alert.pk).update(observed=row.observed, low=band[0], high=band[1],
                                                            bets=row.bets, checked_at=now)
            still.append(alert)
        RtpAlert.objects.filter(pk__in=[a.pk for a in open_alerts.values()]).update(cleared_at=now, checked_at=now)
    return still

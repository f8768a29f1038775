"""The RTP monitor: bands from the exact variance against tables whose observed RTP is known (rounds played
through the services with chosen cards), the "not enough bets" threshold, the charts' series per table, the CSV,
and the alert the beat check raises and clears on the real worker."""

import csv
import io
import math
from datetime import UTC, datetime, timedelta

import pytest
from celery import current_app
from django.urls import reverse
from django.utils import timezone

from backoffice import charts, reports
from backoffice.models import RtpAlert
from rounds import services as round_services
from tests.factories import RoundTableFactory
from tests.helpers import wait_for


def _round(play, table, player, *, win: bool, side: dict | None = None):
    """Seat 1 stands on 20 (wins) or 16 (loses) against the dealer's 9 then T = 19. EU deal: no hole card. A fresh
    shoe every 8 rounds: an 8-deck shoe holds 8 nines of clubs."""
    played = _round.count.get(table.pk, 0)
    _round.count[table.pk] = played + 1
    if played % 8 == 0:
        round_services.shoe_start(table=table, actor=play.studio)
    r = play(table)
    r.bet(player, {"main": 1000, **(side or {})}, seat=1)
    r.close()
    r.cards("Th", "9c", "Kd" if win else "6c")
    r.decide(player, "stand", seat=1)
    r.cards("Ts")
    r.complete()
    return r.settle()


_round.count = {}


def _rows(**kwargs):
    now = timezone.now()
    return {(r.table.code, r.bet_type): r for r in reports.rtp_report(since=now - timedelta(days=1),
                                                                       until=now + timedelta(minutes=1), **kwargs)}


@pytest.mark.slow  # a hundred rounds through the services: seconds each, left to make test
@pytest.mark.django_db
def test_bands_judge_a_table_paying_exactly_its_stakes_back_once_there_are_enough_bets(play, classic_table,
                                                                                       funded):
    player = funded(cash=1_000_00)
    for i in range(reports.MIN_BETS - 1):
        _round(play, classic_table, player, win=i % 2 == 0)
    row = _rows()[("LB01", "main")]
    assert row.bets == 99 and row.effective_bets == pytest.approx(99)
    assert row.verdict == "not enough bets to judge yet" and not row.alarm
    _round(play, classic_table, player, win=False)
    row = _rows()[("LB01", "main")]
    # 50 won, 50 lost at 10.00 each: observed exactly 100 %.
    assert (row.bets, row.initial, row.returned) == (100, 100_000, 100_000) and row.observed == pytest.approx(1.0)
    half_95, half_997 = 1.96 * row.sigma / 10, 3 * row.sigma / 10  # σ/√100
    assert row.band == pytest.approx((row.theoretical - half_95, row.theoretical + half_95))
    assert row.band_997 == pytest.approx((row.theoretical - half_997, row.theoretical + half_997))
    assert row.verdict == "within the band"


@pytest.mark.slow  # a hundred rounds through the services: seconds each, left to make test
@pytest.mark.django_db
def test_a_table_that_never_pays_leaves_its_band_and_a_side_bet_band_stays_in_the_possible_range(
        play, classic_table, funded):
    player = funded(cash=10_000_00)
    for _ in range(reports.MIN_BETS):
        _round(play, classic_table, player, win=False, side={"21+3": 100})
    rows = _rows()
    main, side = rows[("LB01", "main")], rows[("LB01", "21+3")]
    assert main.observed == 0.0 and main.verdict == "outside the 99.7 % band" and main.alarm
    # 21+3 pays up to 100 to 1 on rare hands: 100 bets cannot judge it, and its band never goes below 0 %.
    assert side.observed == 0.0 and side.min_bets > 1000
    assert side.verdict == "not enough bets to judge yet" and not side.alarm
    assert side.theoretical - 3 * side.standard_error < 0 and side.band_997[0] == 0.0  # clamped, not negative
    assert side.band[0] == pytest.approx(side.theoretical - 1.96 * side.standard_error) and side.band[0] > 0
    assert side.band_997[1] == pytest.approx(side.theoretical + 3 * side.standard_error)
    assert side.band_997[1] < side.high


def test_the_daily_chart_draws_one_line_per_table_placed_by_day_over_the_whole_period():
    since = datetime(2026, 11, 1, tzinfo=UTC)
    until = since + timedelta(days=30)

    class T:
        def __init__(self, code):
            self.code = code

    def point(day, observed):
        return reports.SeriesPoint(at=since + timedelta(days=day), rounds=5, observed=observed, bucket_observed=observed,
                                   low=0.9, high=1.1, bets=100.0 * (day + 1), low_997=0.85, high_997=1.15, enough=True,
                                   theoretical=0.99)

    chart = charts.daily_chart([(T("AA01"), [point(28, 0.97)]), (T("BB01"), [point(3, 1.0), point(20, 1.02)])],
                               since=since, until=until, hourly=False)
    assert [line.code for line in chart.lines] == ["AA01", "BB01"]
    assert chart.bands == []  # several tables: each keeps its own theoretical line, no shared band
    left, _top, right, _bottom = chart.plot
    only = chart.lines[0].markers[0][0]
    # The one day of AA01 sits near the end of the 30 days, not alone in the middle of the plot.
    assert only == pytest.approx(left + (right - left) * 29 / 30, abs=0.2)
    assert chart.lines[1].markers[0][0] < chart.lines[1].markers[1][0] < only
    assert len(chart.x_ticks) == 5 and chart.x_ticks[0].label == "01 Nov" and chart.x_ticks[-1].label == "01 Dec"
    single = charts.daily_chart([(T("BB01"), [point(3, 1.0), point(20, 1.02)])], since=since, until=until,
                                hourly=False)
    assert [css for css, _ in single.bands] == ["band-997", "band"]


@pytest.mark.django_db
def test_all_tables_chart_and_csv_show_every_table(client_for, operator, play, classic_table, funded):
    other = RoundTableFactory(profile="classic", code="LB09")
    player = funded(cash=1_000_00)
    for table, win in ((classic_table, True), (other, False), (other, True)):
        _round(play, table, player, win=win)
    client = client_for(operator)
    page = client.get(reverse("backoffice_rtp"), {"bet": "main"}).content.decode()
    assert 'data-table="LB01"' in page and 'data-table="LB09"' in page and "one line per table" in page
    assert "Funnel: observed RTP of Main game" in page and "not enough bets to judge yet" in page
    response = client.get(reverse("backoffice_rtp_csv"), {"table": "LB09"})
    assert response.status_code == 200 and response.streaming
    lines = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["table"], r["bet_type"], r["bets"], r["total_returned"]) for r in lines] == [("LB09", "main", "2",
                                                                                             "2000")]
    assert float(lines[0]["observed_rtp"]) == pytest.approx(1.0)  # one lost, one won
    assert lines[0]["verdict"] == "not enough bets to judge yet" and lines[0]["band_95_low"] == ""
    assert client.get(reverse("backoffice_rtp_csv"), {"from": "nope"}).status_code == 400
    assert client.get(reverse("backoffice_rtp_csv"), {"table": "NOPE"}).status_code == 404


@pytest.mark.worker
def test_the_beat_check_raises_the_alert_on_the_worker_and_clears_it(celery_worker, client_for, operator, play,
                                                                    funded):
    table = RoundTableFactory(profile="classic", code="LB77")
    player = funded(cash=10_000_00)
    rounds = [_round(play, table, player, win=False) for _ in range(reports.MIN_BETS)]
    current_app.send_task("backoffice.tasks.rtp_alerts_check")
    alert = wait_for(lambda: RtpAlert.objects.filter(table=table, cleared_at__isnull=True).first(), timeout=60,
                     what="the beat check to raise the alert")
    assert (alert.bet_type, alert.currency, alert.bets, alert.observed) == ("main", "EUR", 100, 0.0)
    assert alert.low > 0.5 and math.isfinite(alert.high)
    page = client_for(operator).get(reverse("backoffice_dashboard")).content.decode()
    assert 'data-rtp-alert="LB77:main:EUR"' in page and "outside the 99.7 % band" in page
    # A reversal takes one round out: 99 bets are too few to judge, so the next check clears the alert.
    round_services.round_reverse(round_id=rounds[0].pk, actor=operator, reason="Dealer misread the cards")
    current_app.send_task("backoffice.tasks.rtp_alerts_check")
    wait_for(lambda: RtpAlert.objects.filter(pk=alert.pk, cleared_at__isnull=False).exists(), timeout=60,
             what="the beat check to clear the alert")
    assert 'data-rtp-alert="LB77' not in client_for(operator).get(reverse("backoffice_dashboard")).content.decode()

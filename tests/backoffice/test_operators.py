"""The operator's dashboard and the return actually paid, beside the theoretical RTP, with its chart."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from backoffice import charts, reports
from rounds import services as round_services
from rounds.selectors import round_rules
from tables import rtp as table_rtp
from tests.backoffice.scenarios import settle_classic

pytestmark = pytest.mark.django_db


def test_the_dashboard_shows_tables_rounds_money_waiting_and_voided_rounds(client_for, operator, play,
                                                                          classic_table, alice, bob, settled):
    waiting = play(classic_table)
    waiting.bet(alice, {"main": 1000}, seat=1)
    waiting.close()
    waiting.cards("Th", "9c", "Kd")
    waiting.decide(alice, "stand", seat=1)
    waiting.cards("Ts")
    waiting.complete()  # settling: the worker has not settled it (no worker in this test)
    voided = play(classic_table)
    voided.bet(bob, {"main": 1000}, seat=2)
    round_services.round_void(round_id=voided.id, actor=operator, reason="Camera failure")
    page = client_for(operator).get(reverse("backoffice_dashboard")).content.decode()
    assert "LB01" in page and "Open tables" in page
    assert waiting.round.game_number in page and "Rounds waiting for settlement" in page
    assert voided.round.game_number in page and "Camera failure" in page and "pending" in page
    assert "40.00 EUR" in page and "20.00 EUR" in page  # staked and returned in the settled round
    assert "+20.00 EUR" in page  # the house's result
    fragment = client_for(operator).get(reverse("backoffice_dashboard"), {"period": "24h"},
                                        headers={"HX-Request": "true"})
    assert "<html" not in fragment.content.decode() and "last 24 hours" in fragment.content.decode()
    assert client_for(operator).get(reverse("backoffice_dashboard"), {"period": "forever"}).status_code == 200


def test_observed_rtp_is_per_initial_bet_beside_the_theoretical_figure_and_its_band(settled, classic_table):
    now = timezone.now()
    rows = reports.rtp_report(since=now - timedelta(days=1), until=now + timedelta(minutes=1))
    main = next(r for r in rows if r.bet_type == "main")
    assert (main.rounds, main.bets, main.initial, main.staked, main.returned) == (1, 2, 4000, 4000, 2000)
    assert main.observed == pytest.approx(0.5)
    assert main.theoretical == pytest.approx(table_rtp.main_game_infinite_rtp(round_rules(settled)))
    # σ from the results: Σnet² / Σstake² = (1000² + 3000²) / (1000² + 3000²) = 1; se = √10⁷ / 4000
    assert main.standard_error == pytest.approx(10_000_000**0.5 / 4000)
    assert main.band[0] < main.observed < main.band[1] and main.verdict == "within the band"


def test_side_bets_carry_their_exact_theoretical_rtp_and_doubles_count_in_the_main_game(play, classic_table,
                                                                                        funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000, "21+3": 500}, seat=1)
    r.close()
    r.cards("5h", "9c", "6h")  # 11 against a 9
    r.decide(player, "double", seat=1)
    r.cards("Ts")  # 21
    r.cards("8d")  # dealer 17
    r.complete()
    r.settle()
    now = timezone.now()
    rows = {row.bet_type: row for row in reports.rtp_report(since=now - timedelta(days=1), until=now)}
    main, side = rows["main"], rows["21+3"]
    assert (main.initial, main.staked, main.returned) == (1000, 2000, 4000)
    assert main.observed == pytest.approx(1 + (4000 - 2000) / 1000)
    config = r.refresh().config
    expected = table_rtp.side_bet_rtp("21+3", config["paytables"]["21+3"], config["rules"]["decks"])
    assert side.theoretical == pytest.approx(float(expected)) and side.sigma > 1
    assert (side.staked, side.returned) == (500, 0)


def test_the_rtp_report_page_draws_the_chart_and_refuses_bad_dates(client_for, operator, settled, play,
                                                                   classic_table, alice, bob):
    settle_classic(play, classic_table, alice, bob)
    client = client_for(operator)
    page = client.get(reverse("backoffice_rtp"), {"table": "LB01", "bet": "main"}).content.decode()
    assert "<svg" in page and 'class="band"' in page and 'class="observed"' in page and "theoretical" in page
    assert "Main game" in page and "within the band" in page
    assert client.get(reverse("backoffice_rtp"), {"from": "yesterday"}).status_code == 400
    assert client.get(reverse("backoffice_rtp"), {"from": "2026-02-01", "to": "2026-01-01"}).status_code == 400
    assert client.get(reverse("backoffice_rtp"), {"table": "NOPE"}).status_code == 404
    assert client.get(reverse("backoffice_rtp"), {"bet": "'; drop"}).status_code == 400


def test_the_chart_geometry_keeps_the_band_around_the_theoretical_line():
    from datetime import UTC, datetime

    points = [reports.SeriesPoint(at=datetime(2026, 11, day, tzinfo=UTC), rounds=10, observed=0.98 + day / 1000,
                                  bucket_observed=0.99, low=0.9 + day / 100, high=1.1 - day / 100)
              for day in range(1, 6)]
    chart = charts.rtp_chart(points, 0.99, hourly=False)
    left, top, right, bottom = chart.plot
    assert top <= chart.theoretical_y <= bottom
    assert len(chart.markers) == 5 and chart.markers[0][0] == left and chart.markers[-1][0] == right
    assert chart.outside == 0 and len(chart.band.split()) == 10
    assert charts.rtp_chart([], 0.99, hourly=True) is None


def _move_to(round, days_ago: int):
    from rounds.models import Round

    moment = timezone.now() - timedelta(days=days_ago)
    Round.objects.filter(pk=round.pk).update(settled_at=moment, opened_at=moment)


def _figures(rows):
    return sorted((r.table.code, r.bet_type, r.currency, r.rounds, r.bets, r.initial, r.staked, r.returned,
                   round(r.initial_sq), round(r.net_sq), r.theoretical) for r in rows)


def test_daily_totals_give_the_same_report_as_the_live_figures(play, classic_table, alice, bob):
    from backoffice import services
    from backoffice.models import RtpDaily, RtpDay

    for days_ago in (5, 3, 3, 0):
        _move_to(settle_classic(play, classic_table, alice, bob), days_ago)
    now = timezone.now()
    since = now - timedelta(days=10)
    live = _figures(reports.rtp_report(since=since, until=now))
    assert not RtpDay.objects.exists()
    rolled = services.rtp_rollups_refresh(now=now)
    assert len(rolled) == 10 and RtpDaily.objects.count() == 2  # two days had rounds (main bets only)
    assert _figures(reports.rtp_report(since=since, until=now)) == live
    points, total = reports.rtp_series(table=classic_table, bet_type="main", currency="EUR", since=since,
                                       until=now + timedelta(seconds=1))
    assert [p.rounds for p in points] == [1, 2, 1] and total.rounds == 4


def test_a_reversal_recomputes_its_days_totals(play, classic_table, operator, alice, bob):
    from backoffice import services
    from rounds import services as rounds_services

    old = settle_classic(play, classic_table, alice, bob)
    _move_to(old, 1)
    now = timezone.now()
    services.rtp_rollups_refresh(now=now)
    before = reports.rtp_report(since=now - timedelta(days=3), until=now)
    assert sum(r.rounds for r in before) == 1
    rounds_services.round_reverse(round_id=old.pk, actor=operator, reason="Dealer error")
    assert services.rtp_rollups_refresh(now=timezone.now())[-1] == (now - timedelta(days=1)).date()
    assert reports.rtp_report(since=now - timedelta(days=3), until=now) == []


def test_only_days_that_are_over_are_rolled_up():
    from backoffice import services

    with pytest.raises(ValueError, match="not over yet"):
        services.rtp_day_rollup(day=timezone.now().date())

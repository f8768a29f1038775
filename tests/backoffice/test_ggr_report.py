"""The GGR and hold report against a simulated period whose totals the test computes itself: rounds played through
the services on each of the 12 days before today (and one today), at three tables and in two currencies, with main
bets, a side bet, insurance, Bet Behind and Golden Chips; the days rolled up by the beat task's service, today live. Every
figure is compared to the minor unit; a reversal on a past day changes that day; the CSV is the page.

12 days are the fewest that hold every kind of round and day the month it was had (30 days, 39 rounds, 8.7 s): each
of anna's five stakes, days with and without bo, cleo's Golden Chip pushing and winning, dan's Bet Behind, eva in
SEK, a day at the side-bet table, one at the insured table, and the day with two rounds (and a side-bet round)
whose reversal is refreshed two days back, not yesterday, which the refresh redoes anyway."""

import csv
import io
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from backoffice import ggr
from backoffice import services as backoffice_services
from backoffice.models import RtpDailyPlayer, RtpDailyRounds, RtpDay
from casino.money import format_minor, parse_major
from rounds import services as round_services
from tests.factories import RoundTableFactory

pytestmark = pytest.mark.django_db

DAYS = 12


@dataclass
class Expected:
    rounds: int = 0
    players: set = field(default_factory=set)
    staked: int = 0
    returned: int = 0
    chips_staked: int = 0
    chips_returned: int = 0

    def add(self, *, player, staked=0, returned=0, chips_staked=0, chips_returned=0):
        self.players.add(player.pk)
        self.staked += staked
        self.returned += returned
        self.chips_staked += chips_staked
        self.chips_returned += chips_returned

    def figures(self):
        ggr_ = self.staked - self.returned
        hold = (Decimal(ggr_ * 100) / self.staked).quantize(Decimal("0.01"), ROUND_HALF_UP) if self.staked else None
        return (self.rounds, len(self.players), self.staked, self.returned, ggr_, hold, self.chips_staked,
                self.chips_returned)


def figures(line):
    return (line.rounds, line.active_players, line.staked, line.returned, line.ggr, line.hold, line.chips_staked,
            line.chips_returned)


class Month:
    """Plays the month and books, bet by bet, what each round must add to each line of the report."""

    def __init__(self, play, funded):
        self.play = play
        self.today = timezone.now().astimezone(UTC).date()
        self.first = self.today - timedelta(days=DAYS)
        self.main = RoundTableFactory(profile="classic", code="LB31", currencies=["EUR", "SEK"])
        self.side = RoundTableFactory(profile="classic", code="LB32")
        self.insured = RoundTableFactory(profile="free_bet", code="FB31")
        self.a = funded(username="gg_anna", cash=5_000_00)
        self.b = funded(username="gg_bo", cash=5_000_00)
        self.c = funded(username="gg_cleo", cash=100_00, golden_chips=1_000_00)
        self.d = funded(username="gg_dan", cash=1_000_00)
        self.e = funded(username="gg_eva", cash=50_000_00, currency="SEK")
        # round id -> (bet bookings, rounds it adds per (day, table code, currency)): what the report must show
        self.per_round: dict = {}

    def _book(self, bookings, day, table, currency, bet_type, player, **amounts):
        bookings.append((day, table.code, currency, bet_type, player, amounts))

    def round_main(self, i: int, day: date):
        """LB31: anna wins (20 v 19) with a lost 21+3; bo loses (16); cleo's Golden Chip pushes (19) or wins (20);
        dan's Bet Behind on anna wins; eva (SEK) loses on 18."""
        bookings: list = []
        anna, side_bet = 500 + 100 * (i % 5), 100
        bo = 1000 if i % 2 == 0 else 0
        cleo = 1000 + 50 * i if i % 3 == 0 else 0
        cleo_pushes = i % 2 == 1
        dan = 300 if i % 4 == 1 else 0
        eva = 5000 + 1000 * (i % 3) if i % 5 == 2 else 0
        round_services.shoe_start(table=self.main, actor=self.play.studio)
        r = self.play(self.main)
        r.bet(self.a, {"main": anna, "21+3": side_bet}, seat=1)
        seats = [(1, "Kd")]
        self._book(bookings, day, self.main, "EUR", "main", self.a, staked=anna, returned=2 * anna)
        self._book(bookings, day, self.main, "EUR", "21+3", self.a, staked=side_bet)  # Th Kd 9c: no 21+3 hand
        if bo:
            r.bet(self.b, {"main": bo}, seat=2)
            seats.append((2, "6c"))
            self._book(bookings, day, self.main, "EUR", "main", self.b, staked=bo)
        if cleo:
            r.bet(self.c, {"golden_chip": cleo}, seat=3)
            seats.append((3, "9h" if cleo_pushes else "Qh"))
            if cleo_pushes:  # the chips come back; no cash moves
                self._book(bookings, day, self.main, "EUR", "golden_chip", self.c, chips_staked=cleo,
                           chips_returned=cleo)
            else:  # the win is paid in cash, the chips are spent
                self._book(bookings, day, self.main, "EUR", "golden_chip", self.c, chips_staked=cleo,
                           returned=cleo)
        if dan:
            r.bet(self.d, {"main": dan}, seat=1, behind=True)
            self._book(bookings, day, self.main, "EUR", "bet_behind", self.d, staked=dan, returned=2 * dan)
        if eva:
            r.bet(self.e, {"main": eva}, seat=4, currency="SEK")
            seats.append((4, "8s"))
            self._book(bookings, day, self.main, "SEK", "main", self.e, staked=eva)
        r.close()
        first = {1: "Th", 2: "Td", 3: "Tc", 4: "Ts"}
        r.cards(*[first[seat] for seat, _ in seats], "9c", *[second for _, second in seats])
        for seat, _ in seats:
            player = {1: self.a, 2: self.b, 3: self.c, 4: self.e}[seat]
            r.decide(player, "stand", seat=seat)
        r.cards("Tc")
        r.complete()
        settled = r.settle()
        self.per_round[settled.pk] = (bookings, {(day, "LB31", "EUR"): 1, **({(day, "LB31", "SEK"): 1} if eva else {})})
        return settled

    def round_side(self, day: date, stake: int):
        """LB32: anna stands on 17 against 19 and loses."""
        round_services.shoe_start(table=self.side, actor=self.play.studio)
        r = self.play(self.side)
        r.bet(self.a, {"main": stake}, seat=1)
        r.close()
        r.cards("Th", "9c", "7d")
        r.decide(self.a, "stand", seat=1)
        r.cards("Tc")
        r.complete()
        settled = r.settle()
        bookings: list = []
        self._book(bookings, day, self.side, "EUR", "main", self.a, staked=stake)
        self.per_round[settled.pk] = (bookings, {(day, "LB32", "EUR"): 1})
        return settled

    def round_insured(self, day: date):
        """FB31 (Free Bet, the dealer peeks): bo takes insurance against the dealer's ace, the dealer has
        blackjack: the main bet is lost, the insurance (half the main bet) pays 2 to 1."""
        r = self.play(self.insured)
        r.bet(self.b, {"main": 1000})
        r.close()
        r.cards("9h", "As", "9d", "Kc")
        r.insurance(self.b, True)
        r.advance(now=timezone.now() + timedelta(minutes=5))
        settled = r.settle()
        bookings: list = []
        self._book(bookings, day, self.insured, "EUR", "main", self.b, staked=1000)
        self._book(bookings, day, self.insured, "EUR", "insurance", self.b, staked=500, returned=1500)
        self.per_round[settled.pk] = (bookings, {(day, "FB31", "EUR"): 1})
        return settled

    def play_month(self):
        rounds = []
        for i in range(DAYS):
            day = self.first + timedelta(days=i)
            with time_machine.travel(datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12),
                                     tick=False):
                rounds.append(self.round_main(i, day))
                if i == 10:  # a second round that day: the reversal below changes the day, not only removes it
                    self.round_main(i + 1, day)
                if i % 7 == 3:
                    self.round_side(day, 2000 + 10 * i)
                if i % 9 == 4:
                    self.round_insured(day)
        # today: live, not rolled up; the 30th round of the month it was: anna, bo and cleo's Golden Chip win
        rounds.append(self.round_main(30, self.today))
        return rounds

    def expected(self):
        """Per day, table and currency; per table and currency; per currency; per bet type and currency: from the
        bookings of the rounds that stand. Money and rounds add up; players are distinct."""
        days, tables, totals, bet_types = (defaultdict(Expected) for _ in range(4))
        type_rounds = defaultdict(set)
        for rid, (bookings, rounds_of) in self.per_round.items():
            for (day, code, currency), count in rounds_of.items():
                for target in (days[(day, code, currency)], tables[(code, currency)], totals[currency]):
                    target.rounds += count
            for day, code, currency, bet_type, player, amounts in bookings:
                for target in (days[(day, code, currency)], tables[(code, currency)], totals[currency],
                               bet_types[(bet_type, currency)]):
                    target.add(player=player, **amounts)
                type_rounds[(bet_type, currency)].add(rid)
        for key, ids in type_rounds.items():
            bet_types[key].rounds = len(ids)
        return days, tables, totals, bet_types


def compare(report, month):
    days, tables, totals, bet_types = month.expected()
    assert {(line.day, line.table.code, line.currency): figures(line) for line in report.days} == {
        key: e.figures() for key, e in days.items()}
    assert {(line.table.code, line.currency): figures(line) for line in report.tables} == {
        key: e.figures() for key, e in tables.items()}
    assert {line.currency: figures(line) for line in report.totals} == {key: e.figures() for key, e in totals.items()}
    assert {(line.bet_type, line.currency): figures(line) for line in report.bet_types} == {
        key: e.figures() for key, e in bet_types.items()}


class Cells(HTMLParser):
    """The rows of each report table's body, as the text of their cells."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, list[list[str]]] = defaultdict(list)
        self.section = self.part = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "data-section" in attrs:
            self.section = attrs["data-section"]
        elif tag in ("tbody", "tfoot", "thead"):
            self.part = tag
        elif tag == "tr" and self.section and self.part == "tbody":
            self.sections[self.section].append([])
        elif tag in ("td", "th") and self.section and self.part == "tbody":
            self.cell = []

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.sections[self.section][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table":
            self.section = None


def page_rows(html: str):
    parser = Cells()
    parser.feed(html)
    return parser.sections


def shown(csv_row: dict) -> list[str]:
    """A CSV row as the page writes it: money with grouping and its currency, hold with two decimals."""
    cur = csv_row["currency"]

    def money(text):
        return format_minor(parse_major(text, cur), cur)

    hold = f"{csv_row['hold_percent']} %" if csv_row["hold_percent"] else "–"
    return [csv_row["rounds"], csv_row["active_players"], money(csv_row["cash_staked"]),
            money(csv_row["cash_returned"]), money(csv_row["ggr"]), hold, money(csv_row["golden_chips_staked"]),
            money(csv_row["golden_chips_returned"])]


def test_a_simulated_period_gives_every_figure_to_the_minor_unit_and_a_reversal_changes_its_day(
        play, funded, client_for, operator):
    month = Month(play, funded)
    rounds = month.play_month()
    compare(ggr.ggr_report(start=month.first, end=month.today), month)  # nothing rolled up yet: all live
    # The beat task's service rolls up the 30 past days; today stays live.
    for n in range(DAYS):
        backoffice_services.rtp_day_rollup(day=month.first + timedelta(days=n))
    assert RtpDay.objects.filter(day__gte=month.first).count() == DAYS
    assert RtpDailyRounds.objects.count() > DAYS and RtpDailyPlayer.objects.count() > DAYS
    report = ggr.ggr_report(start=month.first, end=month.today)
    compare(report, month)
    # Sanity of the books themselves, so the comparison above is not of two empty things.
    # 12 days and today at LB31 in EUR, 2 days in SEK (2, 7), 2 days at LB32 (3, 10), 1 at FB31 (4).
    assert len(report.days) == DAYS + 1 + 2 + 2 + 1 and {line.currency for line in report.totals} == {"EUR", "SEK"}
    eur = next(line for line in report.totals if line.currency == "EUR")
    assert {line.bet_type for line in report.bet_types} == {"main", "21+3", "golden_chip", "bet_behind", "insurance"}
    assert eur.rounds == DAYS + 1 + 1 + 2 + 1 and eur.active_players == 4 and eur.chips_staked > 0 and eur.ggr != 0
    golden = next(line for line in report.bet_types if line.bet_type == "golden_chip")
    assert golden.staked == 0 and golden.hold is None and golden.returned > 0 and golden.chips_returned > 0

    # The page and its CSV show the same rows with the same figures.
    client = client_for(operator)
    params = {"from": month.first.isoformat(), "to": month.today.isoformat()}
    html = client.get(reverse("backoffice_ggr"), params).content.decode()
    response = client.get(reverse("backoffice_ggr_csv"), params)
    assert response.status_code == 200 and response.streaming
    lines = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    sections = page_rows(html)
    for section in ("total", "bet_type", "table", "day"):
        expected = [shown(row) for row in lines if row["section"] == section]
        assert [cells[1:] for cells in sections[section]] == expected, section
        assert expected
    assert "UTC" in html and "cash GGR" in html

    # A reversal on a past day: the beat task's refresh recomputes that day, and only that day changes.
    reversed_round = rounds[10]
    before = {(line.day, line.table.code, line.currency): figures(line) for line in report.days}
    round_services.round_reverse(round_id=reversed_round.pk, actor=operator, reason="Dealer misread the cards")
    refreshed = backoffice_services.rtp_rollups_refresh()
    assert month.first + timedelta(days=10) in refreshed
    del month.per_round[reversed_round.pk]
    after = ggr.ggr_report(start=month.first, end=month.today)
    compare(after, month)
    now = {(line.day, line.table.code, line.currency): figures(line) for line in after.days}
    changed = {key for key in before.keys() | now.keys() if before.get(key) != now.get(key)}
    day = month.first + timedelta(days=10)
    assert changed == {(day, "LB31", "EUR")} and now[(day, "LB31", "EUR")][0] == 1 == before[(day, "LB31", "EUR")][0] - 1


def test_filters_narrow_to_a_table_and_a_currency_and_bad_input_is_refused(play, funded, client_for, operator):
    month = Month(play, funded)
    today = month.today
    month.round_main(2, today)  # eva plays SEK on i % 5 == 2
    month.round_side(today, 4000)
    client = client_for(operator)
    sek = ggr.ggr_report(start=today, end=today, currency="SEK")
    assert [(line.table.code, line.currency, line.staked) for line in sek.days] == [("LB31", "SEK", 5000 + 2000)]
    side = ggr.ggr_report(start=today, end=today, table=month.side)
    assert [(line.table.code, line.staked, line.returned, line.hold) for line in side.days] == [
        ("LB32", 4000, 0, Decimal("100.00"))]
    page = client.get(reverse("backoffice_ggr"), {"table": "LB32", "currency": "EUR"}).content.decode()
    assert "40.00 EUR" in page and "100.00 %" in page and "LB31" not in re.sub(r"<option.*?</option>", "", page)
    for params, status in (({"from": "2026-13-01"}, 400), ({"from": "2026-11-02", "to": "2026-11-01"}, 400),
                           ({"currency": "XXX"}, 400), ({"from": "2020-01-01", "to": "2026-01-01"}, 400),
                           ({"table": "NOPE"}, 404)):
        assert client.get(reverse("backoffice_ggr"), params).status_code == status, params
        assert client.get(reverse("backoffice_ggr_csv"), params).status_code == status, params


def test_the_hold_is_rounded_half_up_to_two_decimals():
    assert ggr.hold_percent(1, 3) == Decimal("33.33") and ggr.hold_percent(2, 3) == Decimal("66.67")
    assert ggr.hold_percent(1, 800) == Decimal("0.13")  # 0.125 -> 0.13, not banker's 0.12
    assert ggr.hold_percent(-1, 800) == Decimal("-0.13") and ggr.hold_percent(5, 0) is None


@pytest.mark.worker
def test_the_beat_task_on_the_real_worker_rolls_up_yesterday_with_the_same_figures_as_live(celery_worker, play,
                                                                                           funded, monkeypatch):
    from celery import current_app

    from tests.helpers import wait_for

    month = Month(play, funded)
    yesterday = month.today - timedelta(days=1)
    send_task = current_app.send_task

    def send_all_but_settlements(name, *args, **kwargs):
        # round_main settles each round in this process, at yesterday's travelled time. The worker's clock is not
        # travelled: a settlement it queued on the deal's commit and ran first was dated today, and the round
        # left yesterday's figures.
        return None if name == "rounds.tasks.round_settle" else send_task(name, *args, **kwargs)

    with monkeypatch.context() as patch, time_machine.travel(
            datetime.combine(yesterday, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12), tick=False):
        patch.setattr(current_app, "send_task", send_all_but_settlements)
        month.round_main(2, yesterday)  # anna, bo and eva (SEK)
        month.round_main(3, yesterday)  # anna and cleo's Golden Chip (a push)
    live = ggr.ggr_report(start=yesterday, end=yesterday)
    compare(live, month)
    assert not RtpDay.objects.filter(day=yesterday).exists()
    current_app.send_task("backoffice.tasks.rtp_rollups_refresh")
    wait_for(lambda: RtpDay.objects.filter(day=yesterday).exists(), timeout=60,
             what="the beat task to roll up yesterday")
    assert RtpDailyPlayer.objects.filter(day=yesterday).count() == 5  # anna (main, 21+3), bo, cleo, eva
    assert sorted(RtpDailyRounds.objects.filter(day=yesterday).values_list("currency", "rounds")) == [
        ("EUR", 2), ("SEK", 1)]
    rolled = ggr.ggr_report(start=yesterday, end=yesterday)
    compare(rolled, month)
    assert [figures(line) for line in rolled.days] == [figures(line) for line in live.days]


def test_the_dashboard_says_its_stakes_include_golden_chips_where_the_ggr_report_counts_cash(
        play, funded, client_for, operator):
    # The dashboard read "Staked 20.50 EUR" beside the GGR report's "9.00 EUR" for the same round, unexplained.
    month = Month(play, funded)
    month.round_main(3, month.today)  # anna 8.00 main (wins) + 1.00 21+3 (lost); cleo 11.50 Golden Chips (push)
    client = client_for(operator)
    report = ggr.ggr_report(start=month.today, end=month.today)
    assert [(line.staked, line.chips_staked) for line in report.totals] == [(900, 1150)]
    dashboard = client.get(reverse("backoffice_dashboard"), {"period": "24h"}).content.decode()
    row = re.search(r'<th scope="row">LB31 <small>EUR</small></th>(.*?)</tr>', dashboard, re.S).group(1)
    assert "20.50 EUR" in row and "27.50 EUR" in row  # cash and Golden Chips together, as the RTP report counts
    assert "Staked, cash and Golden Chips" in dashboard and "House result on all stakes" in dashboard
    assert "they are not GGR" in dashboard and "The GGR report counts cash only" in dashboard
    page = client.get(reverse("backoffice_ggr")).content.decode()
    assert "9.00 EUR" in page and "11.50 EUR" in page

"""The GGR report in Debian's Chromium at desktop and phone size: an operator opens it from the navigation, reads
the totals, bet types, tables and days (yesterday rolled up, today live), narrows it to a currency and downloads
the CSV of what is shown. Screenshots go to var/test-output/."""

import csv
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connections

import casino.queue
from backoffice import services as backoffice_services
from tests.backoffice.test_browser import PHONE, nothing_wider_than_a_phone, sign_in
from tests.backoffice.test_ggr_report import Month
from tests.helpers import OUTPUT

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport=DESKTOP, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    connections.close_all()
    context.close()


class _HeldTasks:
    """Stands in for the Celery app while yesterday's round is played: its settle task is kept, not sent."""

    def __init__(self):
        self.names: list[str] = []

    def send_task(self, name, **kwargs):
        self.names.append(name)


def test_an_operator_reads_the_ggr_report_at_desktop_and_phone_size(live_server, page, operator, play, funded,
                                                                     monkeypatch):
    from playwright.sync_api import expect

    month = Month(play, funded)
    yesterday = month.today - timedelta(days=1)
    # This test commits (live_server), so dealer_complete's round_settle is sent at once; a real worker left
    # running by an earlier test of the session would settle the round at today's time, racing the settlement
    # below that runs at yesterday's, and the round would count today. Yesterday's task is held instead.
    held = _HeldTasks()
    with monkeypatch.context() as patched, time_machine.travel(
            datetime.combine(yesterday, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12), tick=False):
        patched.setattr(casino.queue, "current_app", held)
        month.round_main(2, yesterday)  # with eva's SEK bet
    assert "rounds.tasks.round_settle" in held.names
    backoffice_services.rtp_day_rollup(day=yesterday)
    month.round_main(0, month.today)  # with cleo's Golden Chip win
    month.round_side(month.today, 4000)

    sign_in(page, live_server, "olivia_operator")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="GGR report").click()
    page.get_by_label("From (UTC day)").fill(yesterday.isoformat())
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", name="Gross gaming revenue and hold")).to_be_visible()
    totals = page.locator("table[data-section=total] tbody tr")
    expect(totals).to_have_count(2)
    # EUR: yesterday anna 7.00 won, 21+3 1.00 lost, bo 10.00 lost; today anna 5.00 won, 1.00 lost, bo 10.00
    # lost, cleo's Golden Chip won 10.00 in cash; LB32 40.00 lost.
    expect(totals.nth(0)).to_contain_text("74.00 EUR")  # cash staked: 7+1+10 + 5+1+10 + 40
    expect(totals.nth(0)).to_contain_text("34.00 EUR")  # cash returned: 14 + 10 + 10
    expect(totals.nth(0)).to_contain_text("40.00 EUR")  # GGR
    expect(totals.nth(0)).to_contain_text("54.05 %")  # 40 / 74
    expect(totals.nth(1)).to_contain_text("70.00 SEK")
    expect(page.locator("table[data-section=bet_type]")).to_contain_text("Golden Chips · EUR")
    expect(page.locator("table[data-section=day] tbody tr")).to_have_count(4)
    body = page.locator("main").inner_text()
    for raw in ("golden_chip", "bet_behind", "None", "minor", "{"):
        assert raw not in body, raw
    page.screenshot(path=OUTPUT / "ggr-report-desktop.png", full_page=True)

    page.set_viewport_size(PHONE)
    assert nothing_wider_than_a_phone(page) == []
    expect(page.get_by_label("Currency")).to_be_visible()
    page.screenshot(path=OUTPUT / "ggr-report-phone.png", full_page=True)
    page.locator("section", has=page.locator("table[data-section=bet_type]")).screenshot(
        path=OUTPUT / "ggr-report-phone-bet-types.png")

    page.get_by_label("Currency").select_option("SEK")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("table[data-section=total] tbody tr")).to_have_count(1)
    expect(page.locator("table[data-section=day] tbody tr")).to_have_count(1)
    assert nothing_wider_than_a_phone(page) == []
    with page.expect_download() as download:
        page.get_by_role("link", name="Download exactly these rows as CSV").click()
    with open(download.value.path(), encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["currency"] for row in rows} == {"SEK"}
    assert [(row["section"], row["cash_staked"], row["ggr"], row["hold_percent"]) for row in rows
            if row["section"] == "total"] == [("total", "70.00", "70.00", "100.00")]
    page.screenshot(path=OUTPUT / "ggr-report-phone-sek.png", full_page=True)

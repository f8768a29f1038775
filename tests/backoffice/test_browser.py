"""The back office in Debian's Chromium: support looks a game number up and voids the round (a real worker
refunds it), a player reads their game history and exports it, an operator reads the dashboard and the RTP chart.
One browser for the session (tests/conftest.py); screenshots go to var/test-output/ for a reviewer."""

import csv
from datetime import UTC

import pytest
from django.db import connections

from tests.backoffice.scenarios import settle_classic
from tests.helpers import OUTPUT, browser_sign_in

PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.browser


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    # ORM calls made while Playwright's loop runs open their own connection; close it before the test database
    # is flushed or dropped.
    connections.close_all()
    context.close()


def sign_in(page, live_server, username):
    browser_sign_in(page, live_server.url, username)


def nothing_wider_than_a_phone(page) -> list:
    return page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.table-scroll'))
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")


def smallest_chart_label_px(page) -> float:
    """The smallest chart label as drawn, in CSS px: its font size in SVG units times the SVG's scale."""
    return page.evaluate("""() => Math.min(...[...document.querySelectorAll('.chart svg text')]
        .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))""")


def test_support_looks_up_a_game_number_and_voids_the_round(live_server, page, celery_worker, support, in_play,
                                                           alice):
    from playwright.sync_api import expect

    from rounds.models import Round
    from tests.helpers import cash

    before = cash(alice)
    round = in_play.refresh()
    opened = round.opened_at.astimezone(UTC)
    sign_in(page, live_server, "sam_support")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Search").click()
    # What a caller remembers: the table and the minute the round began.
    page.get_by_label("Game number, player or transaction").fill(f"LB01 {opened:%Y-%m-%d %H:%M}")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("heading", name=f"Round {round.game_number}")).to_be_visible()
    expect(page.get_by_role("img", name="8 of hearts").first).to_be_visible()
    expect(page.get_by_role("img", name="9 of clubs")).to_be_visible()
    expect(page.get_by_role("link", name="alice_plays").first).to_be_visible()  # the summary's, then her seat's
    page.screenshot(path=OUTPUT / "backoffice-1-round-in-play.png", full_page=True)

    # Without a reason the review is refused, and the refusal reaches the screen (htmx swaps the 400 in).
    page.get_by_role("button", name="Review the void").click()
    expect(page.get_by_role("alert")).to_contain_text("Give a reason")
    page.get_by_label("Reason").fill("Camera froze: the dealer's card could not be read")
    page.get_by_role("button", name="Review the void").click()
    expect(page.get_by_text("10.00 EUR in stakes go back to 1 player")).to_be_visible()
    page.screenshot(path=OUTPUT / "backoffice-2-void-confirm.png", full_page=True)
    page.get_by_role("button", name=f"Confirm: void {round.game_number}").click()
    # The worker refunds the stake; the progress fragment polls until it says so.
    expect(page.get_by_text("Voided, every stake refunded")).to_be_visible(timeout=30_000)
    page.screenshot(path=OUTPUT / "backoffice-3-voided.png", full_page=True)

    round.refresh_from_db()
    assert (round.state, round.void_reason) == ("voided", "Camera froze: the dealer's card could not be read")
    assert round.refunds_done_at is not None and cash(alice) == before + 1000
    page.reload()
    expect(page.get_by_text("Why it was voided:")).to_be_visible()
    expect(page.locator("table.audit").get_by_text("Round voided: Camera froze", exact=False)).to_have_count(1)
    page.set_viewport_size(PHONE)
    page.screenshot(path=OUTPUT / "backoffice-4-round-phone.png", full_page=True)
    assert nothing_wider_than_a_phone(page) == []
    assert Round.objects.filter(state="voided").count() == 1

    # From the round to the player: the refund is in their account history, and support leaves a note.
    page.set_viewport_size({"width": 1200, "height": 900})
    page.get_by_role("link", name="alice_plays").first.click()
    expect(page.get_by_role("heading", name="alice_plays")).to_be_visible()
    expect(page.get_by_role("cell", name="Refund").first).to_be_visible()
    page.get_by_label("New note").fill("Round voided after the camera froze; player informed.")
    page.get_by_role("button", name="Add note").click()
    expect(page.get_by_text("Note added.")).to_be_visible()
    page.screenshot(path=OUTPUT / "backoffice-4b-player.png", full_page=True)


def test_a_player_reads_their_game_history_and_exports_it(live_server, page, play, classic_table, alice, bob):
    from playwright.sync_api import expect

    rounds = [settle_classic(play, classic_table, alice, bob) for _ in range(3)]
    sign_in(page, live_server, "alice_plays")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="My games").click()
    expect(page.get_by_role("heading", name="My games")).to_be_visible()
    rows = page.locator("#game-rows tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text(rounds[-1].game_number)
    expect(rows.first).to_contain_text("+10.00 EUR")
    page.screenshot(path=OUTPUT / "backoffice-5-my-games.png", full_page=True)

    with page.expect_download() as download:
        page.get_by_role("link", name="Download the whole game history (CSV)").click()
    path = download.value.path()
    lines = list(csv.reader(open(path, encoding="utf-8")))  # noqa: SIM115 - read at once
    assert [line[0] for line in lines[1:]] == [r.game_number for r in reversed(rounds)]
    assert download.value.suggested_filename == f"game-history-{alice.pk}.csv"

    page.get_by_role("link", name=rounds[0].game_number, exact=True).click()
    expect(page.get_by_role("heading", name=f"Game {rounds[0].game_number}")).to_be_visible()
    expect(page.get_by_role("img", name="King of diamonds").first).to_be_visible()
    expect(page.get_by_role("img", name="6 of clubs")).to_have_count(0)  # bob's seat is not hers to see
    expect(page.get_by_text("bob_plays")).to_have_count(0)
    page.screenshot(path=OUTPUT / "backoffice-6-my-game.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=OUTPUT / "backoffice-7-my-game-phone.png", full_page=True)
    assert nothing_wider_than_a_phone(page) == []


def test_an_operator_reads_the_dashboard_and_the_rtp_chart(live_server, page, operator, play, classic_table,
                                                          alice, bob):
    from playwright.sync_api import expect

    from rounds import services

    for _ in range(4):
        settle_classic(play, classic_table, alice, bob)
    voided = play(classic_table)
    voided.bet(alice, {"main": 2000}, seat=1)
    services.round_void(round_id=voided.id, actor=operator, reason="Shuffler jammed")
    sign_in(page, live_server, "olivia_operator")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Dashboard").click()
    expect(page.get_by_role("heading", name="Dashboard", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Open tables")).to_be_visible()
    expect(page.get_by_text("Shuffler jammed")).to_be_visible()
    expect(page.get_by_role("row", name="LB01 EUR 4").first).to_be_visible()
    page.screenshot(path=OUTPUT / "backoffice-8-dashboard.png", full_page=True)

    page.get_by_role("link", name="RTP report by table and bet type, with the chart").click()
    expect(page.get_by_role("heading", name="Return actually paid")).to_be_visible()
    chart = page.get_by_role("img", name="Observed RTP of Main game (EUR) over the period, table LB01")
    expect(chart).to_be_visible()
    expect(page.locator("td.verdict", has_text="not enough bets to judge yet").first).to_be_visible()
    page.screenshot(path=OUTPUT / "backoffice-9-rtp.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/dashboard/")
    page.screenshot(path=OUTPUT / "backoffice-10-dashboard-phone.png", full_page=True)
    assert nothing_wider_than_a_phone(page) == []

    # A promotion for alice: Golden Chips from her player page, with the reason her history will show.
    from tests.helpers import chips

    page.goto(f"{live_server.url}/support/players/{alice.pk}/")
    grants = page.get_by_role("region", name="Golden Chip grants")
    grants.get_by_label("Golden Chips").fill("15.00")
    grants.get_by_label("Reason").fill("Loyalty week")
    grants.get_by_role("button", name="Grant Golden Chips").click()
    expect(page.get_by_role("heading", name="Confirm the Golden Chip grant")).to_be_visible()
    assert chips(alice) == 0  # the review moved nothing
    page.screenshot(path=OUTPUT / "backoffice-11a-golden-chips-review-phone.png", full_page=True)
    page.get_by_role("button", name="Grant 15.00 EUR in Golden Chips").click()
    expect(page.get_by_text("15.00 EUR in Golden Chips granted to alice_plays")).to_be_visible()
    expect(grants.get_by_role("cell", name="Loyalty week")).to_be_visible()
    page.screenshot(path=OUTPUT / "backoffice-11-golden-chips-phone.png", full_page=True)
    assert chips(alice) == 15_00 and nothing_wider_than_a_phone(page) == []


def test_the_rtp_monitor_reads_at_desktop_and_phone_size_with_legible_chart_labels(live_server, page, operator,
                                                                                   play, classic_table, alice, bob):
    from playwright.sync_api import expect

    from tests.factories import RoundTableFactory

    other = RoundTableFactory(profile="classic", code="LB09")
    for table in (classic_table, other, classic_table):
        settle_classic(play, table, alice, bob)
    sign_in(page, live_server, "olivia_operator")
    for size, name in (({"width": 1280, "height": 800}, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.goto(f"{live_server.url}/dashboard/rtp/?bet=main")
        daily = page.get_by_role("img", name="Observed RTP of Main game (EUR) over the period, one line per table")
        expect(daily).to_be_visible()
        expect(page.get_by_role("img", name="Funnel: observed RTP of Main game (EUR) against the number of bets")
               ).to_be_visible()
        assert page.locator(".chart svg g.series[data-table]").count() == 4  # two tables, in both charts
        expect(page.get_by_role("link", name="Download these rows as CSV")).to_be_visible()
        page.screenshot(path=OUTPUT / f"rtp-monitor-report-{name}.png", full_page=True)
        assert smallest_chart_label_px(page) >= 11, name
        page.goto(f"{live_server.url}/dashboard/")
        expect(page.get_by_role("heading", name="Dashboard", exact=True)).to_be_visible()
        expect(page.get_by_role("columnheader", name="Band (99.7 %)")).to_be_visible()
        page.screenshot(path=OUTPUT / f"rtp-monitor-dashboard-{name}.png", full_page=True)
    assert nothing_wider_than_a_phone(page) == []

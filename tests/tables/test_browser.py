import re
from fractions import Fraction

import pytest
from django.db import connections

from tables import rtp
from tests.helpers import OUTPUT, browser_sign_in

# Perfect Pairs with 6 decks: perfect 5/311, coloured 6/311, mixed 12/311 (the rest loses).
PP_30 = rtp.percent(Fraction(5 * 31 + 6 * 13 + 12 * 7, 311))  # 101.9293: refused
PP_20 = rtp.percent(Fraction(5 * 21 + 6 * 13 + 12 * 7, 311))


@pytest.fixture
def browser_page(chromium):
    """A page of the session's browser (tests/conftest.py)."""
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()
    # ORM calls made while Playwright's loop runs open their own connection; close it, or it outlives the
    # session and keeps the test database from being dropped.
    connections.close_all()


@pytest.mark.browser
def test_operator_creates_a_table_edits_limits_and_a_paytable_watching_the_live_rtp(
    live_server, browser_page, operator
):
    from playwright.sync_api import expect

    from tables.models import BetLimit, Table, TableChange, TablePaytable

    page = browser_page
    browser_sign_in(page, live_server.url, "olivia_operator")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Tables").click()
    expect(page.get_by_role("heading", name="Tables")).to_be_visible()
    page.get_by_role("link", name="New table").click()

    # Choosing the classic profile swaps in its fields (dealing, seats, Golden Chips) through htmx.
    expect(page.get_by_label("Dealing and peek")).to_have_count(0)
    page.get_by_label("Profile").select_option("classic")
    expect(page.get_by_label("Dealing and peek")).to_be_visible()
    expect(page.get_by_label("Golden Chips")).to_be_checked()
    page.get_by_label("Code").fill("LB07")
    page.get_by_label("Name").fill("Browser Blackjack")
    page.get_by_label("Dealing and peek").select_option("us_peek_before")
    page.get_by_label("Decks").fill("6")
    page.get_by_label("Currencies").fill("EUR, GBP")
    page.screenshot(path=OUTPUT / "tables-1-create.png", full_page=True)
    page.get_by_label("Reason for this change").fill("New studio opens")
    page.get_by_role("button", name="Create table").click()

    expect(page.get_by_role("heading", name=re.compile("Browser Blackjack"))).to_be_visible()
    expect(page.get_by_text("Table LB07 created")).to_be_visible()
    expect(page.locator('td[data-side-bet="perfect_pairs"]')).to_have_text(
        f"{rtp.percent(Fraction(5 * 26 + 6 * 13 + 12 * 7, 311))} %")

    page.get_by_role("link", name="Edit limits").click()
    page.get_by_label("Main bet (EUR) minimum").fill("2")
    page.get_by_label("Main bet (EUR) maximum").fill("1000")
    page.get_by_label("Main bet (EUR) chips").fill("2, 10, 50, 100")
    page.screenshot(path=OUTPUT / "tables-2-limits.png", full_page=True)
    page.get_by_label("Reason for this change").fill("Higher limits for the VIP room")
    page.get_by_role("button", name="Review the change").click()
    # The review says what saving changes before anything is saved.
    expect(page.get_by_text("Main bet in EUR")).to_be_visible()
    page.get_by_role("button", name="Save the limits").click()
    expect(page.get_by_text("Limits of LB07 saved.")).to_be_visible()

    page.get_by_role("link", name="Edit Perfect Pairs paytable").click()
    live = page.locator("#paytable-rtp [data-rtp]")
    expect(live).to_have_text(f"{rtp.percent(Fraction(5 * 26 + 6 * 13 + 12 * 7, 311))} %")
    page.get_by_label("Perfect pair pays (to 1)").fill("30")
    expect(live).to_have_text(f"{PP_30} %")
    expect(page.locator("#paytable-rtp").get_by_text("cannot be saved")).to_be_visible()
    page.screenshot(path=OUTPUT / "tables-3-paytable-too-high.png", full_page=True)
    page.get_by_label("Perfect pair pays (to 1)").fill("20")
    expect(live).to_have_text(f"{PP_20} %")
    page.get_by_label("Reason for this change").fill("Perfect Pairs promotion")
    page.get_by_role("button", name="Review the change").click()
    page.get_by_role("button", name="Save the paytable").click()
    expect(page.get_by_text(f"Perfect Pairs paytable of LB07 saved: RTP {PP_20} %.")).to_be_visible()
    expect(page.locator('td[data-side-bet="perfect_pairs"]')).to_have_text(f"{PP_20} %")

    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=OUTPUT / "tables-4-detail-phone.png", full_page=True)
    overflowing = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.table-scroll'))
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
    assert overflowing == []  # nothing but scrollable tables is wider than a phone

    table = Table.objects.get(code="LB07")
    assert (table.profile, table.dealing, table.decks, table.currencies) == (
        "classic", "us_peek_before", 6, ["EUR", "GBP"])
    main = BetLimit.objects.get(table=table, bet_type="main", currency="EUR")
    assert (main.min, main.max, main.chips) == (200, 100_000, [200, 1000, 5000, 10000])
    assert TablePaytable.objects.get(table=table, side_bet="perfect_pairs").paytable["perfect"] == 20
    history = list(TableChange.objects.filter(table=table).order_by("version").values_list("version", "actor"))
    assert history == [(1, operator.pk), (2, operator.pk), (3, operator.pk)]

"""A player reads a table's help in Chromium, in English and in Swedish, at desktop and phone size: reached
from their tables page, nothing cut off or wider than the phone; screenshots under var/test-output/."""

import pytest
from django.db import connections

from tests.helpers import OUTPUT, PHONE, browser_sign_in, wider_than_the_phone

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1200, "height": 900}


@pytest.fixture
def context(chromium):
    made = []

    def make(**options):
        made.append(chromium.new_context(viewport=DESKTOP, **options))
        page = made[-1].new_page()
        page.set_default_timeout(15_000)
        return page

    yield make
    connections.close_all()
    for context in made:
        context.close()


def test_a_player_reads_the_rules_in_english_and_in_swedish(live_server, context, player, classic_table):
    from playwright.sync_api import expect

    from tables.models import Table

    Table.objects.filter(pk=classic_table.pk).update(state="open")
    page = context()
    browser_sign_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/me/tables/")
    page.get_by_role("link", name=f"Rules, paytables and limits of {classic_table.code}").click()
    expect(page.get_by_role("heading", name=f"Live Blackjack at table {classic_table.code}: the rules")).to_be_visible()
    expect(page.get_by_role("heading", name="Timers and automatic decisions")).to_be_visible()
    expect(page.get_by_text("If the time runs out, your hand stands.")).to_be_visible()
    expect(page.get_by_role("heading", name="Perfect Pairs")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.screenshot(path=OUTPUT / "help-1-english.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / "help-2-english-phone.png", full_page=True)

    page.set_viewport_size(DESKTOP)
    page.get_by_role("link", name="Läs på svenska").click()
    expect(page.get_by_role("heading", name=f"Live Blackjack vid bord {classic_table.code}: reglerna")).to_be_visible()
    expect(page.get_by_role("heading", name="Dina beslut")).to_be_visible()
    expect(page.get_by_text("Om tiden går ut stannar din hand.")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "sv")
    # Swedish money: a decimal comma and the euro sign after the amount.
    expect(page.get_by_role("cell", name="1,00 €").first).to_be_visible()
    page.screenshot(path=OUTPUT / "help-3-swedish.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / "help-4-swedish-phone.png", full_page=True)


def test_a_swedish_browser_gets_the_swedish_help(live_server, context, player, classic_table):
    from playwright.sync_api import expect

    page = context(locale="sv-SE")
    browser_sign_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/me/tables/{classic_table.code}/help/")
    expect(page.get_by_role("heading", name="Tidsgränser och automatiska beslut")).to_be_visible()
    expect(page.get_by_role("link", name="Read in English")).to_be_visible()

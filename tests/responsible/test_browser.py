"""A player reads and uses the responsible-gambling page in Chromium, in English and in Swedish, at desktop and phone
size: a limit set and raised shows its pending change, nothing is cut off or wider than the phone; screenshots
under var/test-output/."""

import pytest

from responsible import services as rg
from tests.helpers import OUTPUT, PHONE, browser_sign_in, wider_than_the_phone

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1200, "height": 900}


def test_a_player_sets_limits_in_english_and_reads_them_in_swedish(live_server, page, player):
    from playwright.sync_api import expect

    rg.limit_set(player=player, kind="session", value=120)
    browser_sign_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/me/responsible/?lang=en")
    expect(page.get_by_role("heading", name="Responsible gambling")).to_be_visible()
    for amount in ("100.00", "300"):
        page.get_by_label("Limit", exact=True).select_option("deposit")
        page.get_by_label("Period").select_option("day")
        page.get_by_label("Currency").select_option("EUR")
        page.get_by_label("Amount (empty: no limit)").fill(amount)
        page.get_by_role("button", name="Save limit").click()
        if amount == "100.00":
            expect(page.get_by_text("Saved: the new limit applies now.")).to_be_visible()
    expect(page.get_by_text("takes effect after the cooling-off period")).to_be_visible()
    expect(page.get_by_role("cell", name="Daily deposit limit (EUR)")).to_be_visible()
    expect(page.get_by_role("cell", name="€100.00").first).to_be_visible()
    page.screenshot(path=OUTPUT / "responsible-1-english.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / "responsible-2-english-phone.png", full_page=True)

    page.set_viewport_size(DESKTOP)
    page.get_by_role("link", name="På svenska").click()
    expect(page.get_by_role("heading", name="Spelansvar")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "sv")
    expect(page.get_by_role("cell", name="Daglig insättningsgräns (EUR)")).to_be_visible()
    expect(page.get_by_role("cell", name="100,00 €").first).to_be_visible()
    expect(page.get_by_role("heading", name="Ta en paus")).to_be_visible()
    page.screenshot(path=OUTPUT / "responsible-3-swedish.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / "responsible-4-swedish-phone.png", full_page=True)

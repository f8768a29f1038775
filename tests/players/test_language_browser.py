"""A player whose browser asks for English picks Svenska on their settings page in Chromium: the settings page,
and the pages they go to after it without any ?lang=, are Swedish at desktop and phone size (no English left,
nothing cut off); picking "my browser's language" gives English back. Screenshots under var/test-output/."""

import pytest
from django.db import connections
from django.urls import reverse

from players import selectors
from tests.helpers import OUTPUT, browser_sign_in
from tests.players.test_swedish_browser import DESKTOP, PHONE, cut_off, read_in_swedish

pytestmark = pytest.mark.browser


@pytest.fixture
def english(chromium):
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    connections.close_all()
    context.close()


def read_in_english(page, name: str) -> None:
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(50)
        assert page.locator("html").get_attribute("lang") == "en", name
        assert cut_off(page) == [], (name, size)
        page.screenshot(path=OUTPUT / f"language-{name}-{size}.png", full_page=True)
    page.set_viewport_size(DESKTOP)


def test_a_player_picks_svenska_in_the_settings_and_every_page_after_is_swedish(live_server, english, funded):
    from playwright.sync_api import expect

    alice = funded(username="alice_plays", cash=100_00)
    page = english
    browser_sign_in(page, live_server.url, alice.get_username())
    page.goto(live_server.url + reverse("player_settings"))
    expect(page.get_by_role("group", name="Language")).to_be_visible()
    expect(page.get_by_label("My browser's language")).to_be_checked()
    read_in_english(page, "settings-english")

    page.get_by_label("Svenska").check()
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Inställningarna är sparade. Alla enheter du spelar på använder dem.")).to_be_visible()
    expect(page.get_by_label("Svenska")).to_be_checked()
    assert selectors.player_language(player=alice) == "sv"
    read_in_swedish(page, "language-settings")
    for name, url in (("language-tables", reverse("player_tables")), ("language-account", reverse("wallet_home")),
                      ("language-statement", reverse("player_statement"))):
        page.goto(live_server.url + url)
        read_in_swedish(page, name)

    page.goto(live_server.url + reverse("player_settings"))
    page.get_by_label("Webbläsarens språk").check()
    page.get_by_role("button", name="Spara inställningarna").click()
    expect(page.get_by_text("Settings saved. Every device you play on uses them.")).to_be_visible()
    read_in_english(page, "settings-browser-again")

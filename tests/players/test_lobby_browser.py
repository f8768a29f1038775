"""The player's tables page (the lobby) in Chromium at desktop and phone size, with a paused table among open ones:
nothing wider than the phone; screenshots under var/test-output/."""

import pytest

from tests.factories import RoundTableFactory
from tests.helpers import OUTPUT, browser_sign_in
from tests.players.test_help_browser import DESKTOP, PHONE, context, wider_than_the_phone  # noqa: F401

pytestmark = pytest.mark.browser


def test_the_lobby_shows_open_and_paused_tables_at_desktop_and_phone_size(live_server, context, player,  # noqa: F811
                                                                          operator):
    from playwright.sync_api import expect

    from rounds import services

    RoundTableFactory(profile="classic", code="LB01", currencies=["EUR", "GBP"])
    RoundTableFactory(profile="classic", code="LB02", dealing="us_peek_before", multi_game=False)
    paused = RoundTableFactory(profile="free_bet", code="FB01")
    services.round_open(table=paused, actor=operator)
    services.table_pause(table=paused, actor=operator, reason="card reader fault")
    page = context()
    browser_sign_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/me/tables/")
    expect(page.get_by_role("heading", name="FB01")).to_be_visible()
    expect(page.get_by_text("The game is paused while the studio sorts out a problem.")).to_be_visible()
    expect(page.get_by_text("You can join when it resumes.")).to_be_visible()
    expect(page.get_by_text("Played on its own: you switch to it from other tables")).to_be_visible()
    expect(page.get_by_role("button", name="Join LB01")).to_be_visible()
    assert "{#" not in page.locator("body").inner_text()  # no template comment shows as text
    page.screenshot(path=OUTPUT / "lobby-1-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / "lobby-2-phone.png", full_page=True)
    page.set_viewport_size(DESKTOP)
    page.get_by_role("button", name="Join LB01").click()
    expect(page.get_by_text("You are at table LB01")).to_be_visible()
    page.screenshot(path=OUTPUT / "lobby-3-table.png", full_page=True)

"""The statement and the daily reconciliation read in Chromium at desktop and phone size: a player's statement in
English and Swedish, support's copy of it, and the operator's reconciliation of the days; nothing cut off or wider
than the phone (tables scroll inside their own box); screenshots under var/test-output/."""

import pytest

from tests.factories import new_key
from tests.helpers import DESKTOP, OUTPUT, PHONE, browser_sign_in, wider_than_the_phone
from wallet import services as wallet

pytestmark = pytest.mark.browser


def both_sizes(page, name: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=OUTPUT / f"{name}-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == []
    page.screenshot(path=OUTPUT / f"{name}-phone.png", full_page=True)
    page.set_viewport_size(DESKTOP)


@pytest.fixture
def history(funded, operator):
    player = funded(username="stella_reads", cash=1234_50)
    bet = wallet.bet_hold(player=player, holds=[wallet.BetHoldSpec(amount=10_00, currency="EUR")],
                          idempotency_key=new_key())[0]
    wallet.bet_resolve(resolutions=[wallet.BetResolutionSpec(bet_id=bet.pk, cash_return=25_00)],
                       idempotency_key=new_key())
    wallet.golden_chips_grant(player=player, currency="EUR", amount=5_00, staff=operator,
                              reason="welcome to the tables", idempotency_key=new_key())
    return player


def test_a_player_reads_their_statement_in_english_and_swedish(live_server, page, history):
    from playwright.sync_api import expect

    browser_sign_in(page, live_server.url, history.username)
    page.goto(f"{live_server.url}/wallet/")
    page.get_by_role("link", name="Statement of a period (page and CSV)").click()
    page.goto(page.url + "?lang=en")
    expect(page.get_by_role("heading", name="Statement", exact=True)).to_be_visible()
    cash = page.locator("section.statement-account").first
    expect(cash.get_by_role("heading", name="Cash EUR")).to_be_visible()
    expect(cash.locator("[data-balance]")).to_have_text(["€1,234.50", "€1,224.50", "€1,249.50"])
    expect(cash.locator("[data-closing]")).to_have_text("€1,249.50")
    expect(page.get_by_text("Golden Chips granted. Reason: welcome to the tables")).to_be_visible()
    both_sizes(page, "statement-1-english")

    page.get_by_role("link", name="På svenska").click()
    expect(page.locator("html")).to_have_attribute("lang", "sv")
    expect(page.get_by_role("heading", name="Kontoutdrag", exact=True)).to_be_visible()
    cash = page.locator("section.statement-account").first
    expect(cash.get_by_role("heading", name="Kontanter EUR")).to_be_visible()
    expect(cash.locator("[data-closing]")).to_have_text("1\xa0249,50\xa0€")
    expect(page.get_by_text("Golden Chips tilldelade. Anledning: welcome to the tables")).to_be_visible()
    expect(page.get_by_role("link", name="Ladda ner kontoutdraget (CSV)")).to_be_visible()
    both_sizes(page, "statement-2-swedish")


def test_support_reads_a_players_statement(live_server, page, history, support):
    from playwright.sync_api import expect

    browser_sign_in(page, live_server.url, support.username)
    page.goto(f"{live_server.url}/support/players/{history.pk}/")
    page.get_by_role("link", name="in English").click()
    expect(page.get_by_role("heading", name=f"Statement of {history.username}")).to_be_visible()
    expect(page.locator("section.statement-account").first.locator("[data-closing]")).to_have_text("€1,249.50")
    both_sizes(page, "statement-3-support")


def test_an_operator_reads_the_daily_reconciliation(live_server, page, history, operator):
    from playwright.sync_api import expect

    browser_sign_in(page, live_server.url, operator.username)
    page.goto(f"{live_server.url}/dashboard/")
    page.get_by_role("link", name="Reconciliation").click()
    expect(page.get_by_role("heading", name="Daily reconciliation")).to_be_visible()
    expect(page.get_by_text("Every day of this period ties, to the minor unit.")).to_be_visible()
    today = page.locator("details.reconciliation-day").first
    today.locator("summary").click()
    expect(today.get_by_role("row", name="Cash").first).to_contain_text("1,249.50 EUR")
    expect(today.get_by_role("columnheader", name="Golden Chips grant")).to_be_visible()
    both_sizes(page, "reconciliation-1-operator")

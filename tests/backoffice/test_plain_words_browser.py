"""The pages issue #16 rewrote, read in Chromium at desktop (1280x800) and phone (390x844) size: the round page's
summary and plain audit trail, the player's game page, the configuration history, the filtered histories and the
review before closing a table. Nothing is wider than the phone (tables scroll in their own box); screenshots go
to var/test-output/ for a reviewer."""

import pytest
from django.db import connections
from django.urls import reverse

from tables import services as table_services
from tests.backoffice.scenarios import settle_classic
from tests.backoffice.test_browser import nothing_wider_than_a_phone, sign_in
from tests.helpers import DESKTOP, OUTPUT, PHONE

pytestmark = pytest.mark.browser


def both_sizes(page, name: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=OUTPUT / f"office-{name}-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=OUTPUT / f"office-{name}-phone.png", full_page=True)
    assert nothing_wider_than_a_phone(page) == [], name
    page.set_viewport_size(DESKTOP)


def test_support_reads_the_round_summary_and_the_audit_trail_in_words(live_server, page, support, play,
                                                                      classic_table, alice, bob):
    from playwright.sync_api import expect

    round = settle_classic(play, classic_table, alice, bob)
    sign_in(page, live_server, support.get_username())
    page.goto(live_server.url + reverse("backoffice_round", args=[round.game_number]))
    summary = page.locator("section.summary")
    expect(summary).to_contain_text("Settled: the dealer had 19")
    expect(summary.locator("tbody tr")).to_have_count(2)
    expect(page.locator("table.audit")).to_contain_text("alice_plays (seat 1) placed Main 10.00 EUR.")
    both_sizes(page, "round")
    page.set_viewport_size(PHONE)
    summary.screenshot(path=OUTPUT / "office-round-summary-phone.png")
    page.locator("section[aria-labelledby=audit-heading]").screenshot(path=OUTPUT / "office-round-audit-phone.png")
    page.locator("section[aria-labelledby=config-heading]").screenshot(path=OUTPUT / "office-round-config-phone.png")


def test_the_player_reads_their_game_and_histories_with_a_period(live_server, page, play, classic_table, alice,
                                                                 bob):
    from playwright.sync_api import expect

    round = settle_classic(play, classic_table, alice, bob)
    sign_in(page, live_server, "alice_plays")
    page.goto(live_server.url + reverse("player_game", args=[round.game_number]))
    expect(page.locator("section.summary")).to_contain_text("You (seat 1) bet Main 10.00 EUR.")
    expect(page.get_by_text("bob_plays")).to_have_count(0)
    both_sizes(page, "my-game")
    day = round.opened_at.date().isoformat()
    page.goto(live_server.url + reverse("player_games") + f"?from={day}&to={day}")
    expect(page.locator("[data-totals]")).to_contain_text("In this period: 1 game")
    both_sizes(page, "my-games-period")
    page.goto(live_server.url + reverse("wallet_home") + "?type=deposit")
    expect(page.locator("[data-totals]")).to_contain_text("In this selection")
    both_sizes(page, "account-history-filtered")


def test_an_operator_reads_the_configuration_history_and_reviews_closing_a_table(live_server, page, operator,
                                                                                 play, classic_table, alice):
    from playwright.sync_api import expect

    table_services.bet_limits_set(actor=operator, reason="higher stakes", table=classic_table, limits=[
        {"bet_type": "main", "currency": "EUR", "min": 200, "max": 400_000, "chips": [200, 1000, 5000]}])
    r = play(classic_table)
    r.bet(alice, {"main": 1000}, seat=1)
    sign_in(page, live_server, operator.get_username())
    page.goto(live_server.url + reverse("table_history", args=[classic_table.code]))
    expect(page.locator("ul.change-list").first).to_contain_text("Main bet in EUR: minimum 1.00 EUR became 2.00 EUR")
    both_sizes(page, "table-history")
    page.set_viewport_size(PHONE)
    page.locator("table.history").screenshot(path=OUTPUT / "office-table-history-rows-phone.png")
    page.goto(live_server.url + reverse("table_detail", args=[classic_table.code]))
    page.fill("#reason-closed", "Studio flooded")
    page.get_by_role("button", name="Review closing the table").click()
    expect(page.get_by_role("heading", name=f"Close table {classic_table.code}?")).to_be_visible()
    expect(page.locator("main")).to_contain_text("10.00 EUR in stakes")
    both_sizes(page, "close-review")
    page.get_by_role("button", name=f"Close the table and void {r.round.game_number}").click()
    expect(page.locator(".state").first).to_contain_text("Closed")
    page.goto(live_server.url + reverse("backoffice_dashboard"))
    both_sizes(page, "dashboard")


def sideways_in_table(page, table: str) -> list:
    """What of a history table lies beyond the window or makes its box scroll sideways (nothing, on a phone too)."""
    return page.evaluate("""(selector) => {
        const table = document.querySelector(selector), box = table.closest('.table-scroll') || table.parentElement;
        const out = box.scrollWidth > box.clientWidth + 1 ? [`box scrolls: ${box.scrollWidth} > ${box.clientWidth}`] : [];
        return out.concat([...table.querySelectorAll('tbody th, tbody td')]
            .filter(c => c.getClientRects().length && c.getBoundingClientRect().right > window.innerWidth + 1)
            .map(c => `${c.dataset.label || c.textContent.trim()} ends at ${Math.round(c.getBoundingClientRect().right)}`));
    }""", table)


def test_my_games_and_the_account_history_fit_a_phone_without_scrolling_sideways(live_server, page, play,
                                                                                classic_table, alice, bob):
    """Net (my games) and Amount (account history) were off the right edge of a 390 px phone, behind a sideways
    scroll; on a phone each row now stacks its cells as "label: value"."""
    from playwright.sync_api import expect

    settle_classic(play, classic_table, alice, bob)
    sign_in(page, live_server, "alice_plays")
    for name, url, table, label in (("my-games", reverse("player_games"), "table.games", "Net"),
                                    ("account-history", reverse("wallet_home"), "table.account-history", "Amount")):
        page.goto(live_server.url + url)
        expect(page.locator(f"{table} tbody tr").first).to_be_visible()
        page.set_viewport_size(DESKTOP)
        assert sideways_in_table(page, table) == [], (name, "desktop")
        both_sizes(page, f"{name}-fit")
        page.set_viewport_size(PHONE)
        assert sideways_in_table(page, table) == [], (name, "phone")
        cell = page.locator(f"{table} tbody td[data-label={label}]").first
        cell.scroll_into_view_if_needed()
        expect(cell).to_be_in_viewport(ratio=1)  # wholly on screen once scrolled to: not cut at the right
        page.locator(table).screenshot(path=OUTPUT / f"office-{name}-rows-phone.png")


def test_an_operator_reviews_new_limits_before_they_are_saved(live_server, page, operator, classic_table):
    from playwright.sync_api import expect

    from tables.models import BetLimit

    sign_in(page, live_server, operator.get_username())
    page.goto(live_server.url + reverse("table_limits", args=[classic_table.code]))
    page.get_by_label("Main bet (EUR) maximum").fill("2500")
    page.get_by_label("Reason for this change").fill("Quieter evening table")
    page.get_by_role("button", name="Review the change").click()
    review = page.locator("[data-review]")
    expect(review).to_contain_text("Main bet in EUR: maximum 5,000.00 EUR became 2,500.00 EUR.")
    expect(review).to_contain_text("Who will see the reason: operators and support")
    assert BetLimit.objects.get(table=classic_table, bet_type="main", currency="EUR").max == 500_000
    both_sizes(page, "limits-review")
    page.get_by_role("button", name="Save the limits").click()
    expect(page.locator(".messages")).to_contain_text(f"Limits of {classic_table.code} saved.")
    assert BetLimit.objects.get(table=classic_table, bet_type="main", currency="EUR").max == 250_000


def test_the_player_reads_their_bets_going_back_and_their_seat_move_in_english_and_swedish(
        live_server, chromium, play, classic_table, funded):
    from playwright.sync_api import expect

    from tests.backoffice.test_round_summary import _moves_and_returns

    r, player = _moves_and_returns(play, classic_table, funded)
    url = live_server.url + reverse("player_game", args=[r.round.game_number])
    for locale, moved, returned in (
            ("en-GB", "You moved from seat 2 to seat 5.", "You (seat 5) got Main 5.00 EUR back (undone)."),
            ("sv-SE", "Du flyttade från plats 2 till plats 5.", "Du (plats 1) fick tillbaka Huvudinsats 20,00")):
        context = chromium.new_context(viewport=DESKTOP, locale=locale)
        page = context.new_page()
        page.set_default_timeout(15_000)
        try:
            sign_in(page, live_server, player.get_username())
            page.goto(url)
            summary = page.locator("section.summary")
            expect(summary).to_contain_text(moved)
            expect(summary).to_contain_text(returned)
            both_sizes(page, f"my-game-moves-{locale[:2]}")
        finally:
            connections.close_all()
            context.close()

"""Support reads a table's chat around a game number in Debian's Chromium, at desktop and phone sizes, and
disables a player's chat from one of their messages. Screenshots go to var/test-output/ for a reviewer."""

from datetime import timedelta

import pytest
from django.db import connections

from chat import services
from players import services as player_services
from players.models import PlayerProfile
from tests.backoffice.scenarios import settle_classic
from tests.helpers import OUTPUT, browser_sign_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    connections.close_all()
    context.close()


def test_support_reads_the_chat_around_a_game_and_disables_a_players_chat(live_server, page, support, operator,
                                                                         play, classic_table, funded):
    from playwright.sync_api import expect

    alice, bob = funded(username="alice_plays"), funded(username="bob_plays")
    round = settle_classic(play, classic_table, alice, bob)
    for player in (alice, bob):
        player_services.table_join(player=player, table=classic_table, session_key=f"session-{player.pk}")
    opened, settled = round.opened_at, round.settled_at
    services.chat_post(player=alice, table=classic_table, body="good luck all", now=opened - timedelta(minutes=1))
    services.chat_post(player=bob, table=classic_table, body="<b>rigged</b> dealer, you are a cheat",
                       now=opened + (settled - opened) / 2)
    services.chat_host_post(actor=operator, table=classic_table, body="Please keep the chat friendly",
                            now=settled + timedelta(seconds=30))

    browser_sign_in(page, live_server.url, "sam_support")
    page.goto(f"{live_server.url}/support/rounds/{round.game_number}/")
    page.get_by_role("link", name="Read the table's chat around this game").click()
    expect(page.get_by_role("heading", name=f"Table LB01 around game {round.game_number}")).to_be_visible()
    lines = page.locator(".chat-line")
    expect(lines).to_have_count(3)
    expect(lines.first).to_contain_text("Please keep the chat friendly")  # newest first
    expect(lines.nth(1)).to_contain_text("<b>rigged</b> dealer")  # as written, escaped: no bold text
    expect(page.locator(".chat-body b")).to_have_count(0)
    expect(page.get_by_text("A refused form")).to_have_count(0)  # base.html's comment is not on the page
    page.screenshot(path=OUTPUT / "chat-1-log-around-a-game.png", full_page=True)

    lines.nth(1).get_by_text("Disable bob_plays's chat").click()
    lines.nth(1).get_by_label("Why (the player is told)").fill("Insulting the dealer")
    lines.nth(1).get_by_role("button", name="Disable chat").click()
    expect(page.get_by_text("Chat disabled for bob_plays")).to_be_visible()
    expect(page.locator(".chat-line").nth(1)).to_contain_text("chat disabled")
    assert PlayerProfile.objects.get(player=bob).chat_disabled_reason == "Insulting the dealer"

    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.locator(".chat-line")).to_have_count(3)
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391)
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
    assert wide == [], wide
    page.screenshot(path=OUTPUT / "chat-2-log-on-a-phone.png", full_page=True)


def test_a_player_chats_at_their_table_on_a_phone(live_server, page, play, classic_table, funded, operator):
    from playwright.sync_api import expect

    alice, bob = funded(username="alice_plays"), funded(username="bob_plays")
    player_services.table_join(player=bob, table=classic_table, session_key="bob-elsewhere")
    services.chat_post(player=bob, table=classic_table, body="<i>hello</i> alice")
    page.set_viewport_size(PHONE)
    browser_sign_in(page, live_server.url, alice.username)
    page.goto(f"{live_server.url}/me/tables/{classic_table.code}/")
    page.get_by_role("button", name=f"Join {classic_table.code}").click()
    chat = page.locator("#table-chat")
    expect(chat.get_by_role("heading", name="Table chat")).to_be_visible()
    expect(chat).to_contain_text("bob_plays <i>hello</i> alice")  # as written, not in italics
    chat.get_by_label("Your message").fill("hi bob, good luck")
    chat.get_by_role("button", name="Send").click()
    expect(page.locator("#chat-messages")).to_contain_text("You hi bob, good luck")
    expect(page.get_by_label("Your message")).to_have_value("")
    services.chat_host_post(actor=operator, table=classic_table, body="Betting opens now")
    expect(page.locator("#chat-messages")).to_contain_text("Host Betting opens now", timeout=15_000)  # polled
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391)
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
    assert wide == [], wide
    page.screenshot(path=OUTPUT / "chat-3-player-table-on-a-phone.png", full_page=True)

"""A Swedish player walks every page of theirs in Chromium (a browser that asks for Swedish), at desktop and phone
size: their games and one game, the tables, a table they sit at, its help and its chat, their settings, their
account, the cashier and responsible gambling. The main content holds no English left over (only the names of bets and products,
which are the same in Swedish) and nothing is cut off sideways. Screenshots under var/test-output/."""

import re

import pytest
from django.db import connections
from django.urls import reverse

from tests.backoffice.scenarios import settle_classic
from tests.helpers import OUTPUT, browser_sign_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# Words of the English pages that no Swedish sentence uses (words both languages write alike, such as "hand",
# "video", "dealer" or "hit", are left out).
ENGLISH = {
    "the", "and", "your", "you", "seat", "seats", "won", "lost", "settled", "stand", "player", "players", "main",
    "bets", "decisions", "decision", "table", "tables", "join", "leave", "settings", "save", "show", "download",
    "games", "game", "history", "balance", "account", "result", "stake", "staked", "returned", "tip", "send",
    "message", "chat", "rules", "cards", "card", "of", "play", "home", "log", "out", "cashier", "yes", "since",
    "password", "unknown", "what", "when", "where", "round", "bust", "soft", "push", "refunded", "voided",
    "double", "split", "insurance", "outcome", "amount", "deposit", "withdraw", "newest", "first", "older",
    "every", "with", "from", "to", "is", "are", "at", "on", "for", "this", "that", "here", "not", "none", "by",
    "sign", "signed", "free", "ace", "king", "queen", "jack", "hearts", "spades", "clubs", "diamonds", "face",
    "down", "limits", "paytables", "dealing", "other", "sound", "volume", "voice", "quality", "hide", "confirm",
    "automatically", "review", "minimum", "maximum", "currency", "type", "date", "payout", "entries", "cash",
}
# Names that stay as they are in Swedish: bets and products, and what the test's data is called.
NAMES = ("Bet Behind", "Golden Chips", "Golden Chip", "Multi Seat", "Deal Now", "Live Blackjack", "Free Bet", "Perfect Pairs", "Any Pair",
         "Hot 3", "21+3", "alice_plays", "bob_plays", "/api/auth/tokens/", "HeadlessChrome",
         "sydkoreansk won")  # the currency, named so in Swedish


def english_left(page) -> list[str]:
    """The English words in the page's main content, with their accessible names (a card's alt text) too."""
    # A link offered in English (lang="en", such as "Rules in English") is English on purpose.
    text = page.evaluate("""() => {
        const english = [...document.querySelectorAll('main [lang]:not([lang^=sv])')];
        const shown = english.map(e => e.style.display);
        english.forEach(e => { e.style.display = 'none'; });
        const text = document.querySelector('main').innerText;
        english.forEach((e, i) => { e.style.display = shown[i]; });
        return text; }""")
    labels = page.eval_on_selector_all("main [aria-label], main [title]", "els => els.filter(e => !e.closest("
                                       "'[lang]:not([lang^=sv])')).map(e => (e.getAttribute('aria-label') || '') "
                                       "+ ' ' + (e.getAttribute('title') || ''))")
    text = " ".join([text, *labels])
    for name in NAMES:
        text = text.replace(name, " ")
    text = re.sub(r"Mozilla/\S+.*?(?=\n|$)", " ", text)  # a browser's own name in the sign-in list
    return sorted({word for word in re.findall(r"[^\W\d_]+", text) if word.lower() in ENGLISH})


def cut_off(page) -> list:
    return page.evaluate("""() => document.documentElement.scrollWidth > window.innerWidth
        ? [`page ${document.documentElement.scrollWidth} > ${window.innerWidth}`].concat(
            [...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-scroll'))
            .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)))
        : []""")


@pytest.fixture
def alice(funded):
    return funded(username="alice_plays", cash=500_00)


@pytest.fixture
def bob(funded):
    return funded(username="bob_plays", cash=500_00)


@pytest.fixture
def swedish(chromium):
    context = chromium.new_context(viewport=DESKTOP, locale="sv-SE")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    connections.close_all()
    context.close()


def read_in_swedish(page, name: str) -> None:
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(50)
        assert page.locator("html").get_attribute("lang") == "sv", name
        assert english_left(page) == [], (name, size)
        assert cut_off(page) == [], (name, size)
        page.screenshot(path=OUTPUT / f"swedish-{name}-{size}.png", full_page=True)
    page.set_viewport_size(DESKTOP)


def test_a_swedish_player_reads_every_page_of_theirs_in_swedish(live_server, swedish, play, classic_table, alice,
                                                                bob):
    from playwright.sync_api import expect

    from tables.models import Table

    Table.objects.filter(pk=classic_table.pk).update(name="Stockholm")  # the test's data, not the page's words
    classic_table.refresh_from_db()
    round = settle_classic(play, classic_table, alice, bob)
    Table.objects.filter(pk=classic_table.pk).update(state="open")
    page = swedish
    browser_sign_in(page, live_server.url, alice.get_username())

    page.goto(live_server.url + reverse("player_games"))
    expect(page.get_by_role("heading", name="Mina spel")).to_be_visible()
    read_in_swedish(page, "games")

    page.get_by_role("link", name=round.game_number).click()
    expect(page.get_by_role("heading", name="Dina insatser, beslut och resultat")).to_be_visible()
    expect(page.locator("article.spot")).to_contain_text("Vinst")
    expect(page.locator("article.spot").get_by_role("img", name="hjärter 10")).to_be_visible()
    read_in_swedish(page, "game")

    page.goto(live_server.url + reverse("player_tables"))
    read_in_swedish(page, "tables")
    page.get_by_role("button", name=f"Gå med vid {classic_table.code}").click()
    expect(page.get_by_text(f"Du sitter vid bord {classic_table.code}")).to_be_visible()
    expect(page.get_by_role("heading", name="Ge dealern dricks")).to_be_visible()
    expect(page.get_by_role("heading", name="Bordets chatt")).to_be_visible()
    page.get_by_label("Ditt meddelande").fill("Hej allihop!")
    page.get_by_role("button", name="Skicka").click()
    expect(page.locator("#chat-messages")).to_contain_text("Hej allihop!")
    read_in_swedish(page, "table")

    for name, url in (("chat", reverse("player_table_chat", args=[classic_table.code])),
                      ("help", reverse("player_table_help", args=[classic_table.code])),
                      ("settings", reverse("player_settings")),
                      ("account", reverse("wallet_home")),
                      ("cashier", reverse("wallet_cashier")),
                      ("responsible", reverse("responsible_page"))):
        page.goto(live_server.url + url)
        read_in_swedish(page, name)

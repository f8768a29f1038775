"""The navigation at phone size (390x844) in Chromium: with Statement, Reconciliation and the GGR report added, the
inline list of links took a third of the screen for staff. It is now a <details> menu on a phone and an inline
list on a desktop. Every page type of a player (in English and in Swedish) and of an operator is read at both
sizes: the top bar stays short, nothing is wider than the phone, the menu opens over the page with every link
inside the screen; screenshots under var/test-output/."""

import pytest
from django.db import connections
from django.urls import reverse

from tests.backoffice.scenarios import settle_classic
from tests.helpers import OUTPUT, browser_sign_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# The brand, the menu button and who is signed in: two short lines at most on a phone.
TOPBAR_MAX_PX = 110


def context_page(chromium, locale: str):
    context = chromium.new_context(viewport=DESKTOP, locale=locale)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def wider_than_the_viewport(page) -> list:
    return page.evaluate("""() => {
        const width = window.innerWidth;
        const wide = [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > width + 1 && !e.closest('.table-scroll'))
            .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
        return document.documentElement.scrollWidth > width ? [`page ${document.documentElement.scrollWidth}`, ...wide]
            : wide; }""")


def read(page, name: str, links: int) -> None:
    nav = page.get_by_role("navigation", name="Main")
    menu = nav.locator("summary")
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(50)
    assert not menu.is_visible(), name  # on a desktop the links are inline
    assert nav.get_by_role("link").count() == links, name
    assert all(link.is_visible() for link in nav.get_by_role("link").all()), name
    assert wider_than_the_viewport(page) == [], name
    page.screenshot(path=OUTPUT / f"nav-{name}-desktop.png", full_page=True)

    page.set_viewport_size(PHONE)
    page.wait_for_timeout(50)
    assert menu.is_visible(), name
    assert not any(link.is_visible() for link in nav.get_by_role("link").all()), name  # closed
    topbar = page.locator("header.topbar").bounding_box()
    page.screenshot(path=OUTPUT / f"nav-{name}-phone.png", full_page=True)
    assert topbar["height"] <= TOPBAR_MAX_PX, (name, topbar)
    assert page.locator("main").bounding_box()["y"] <= TOPBAR_MAX_PX, name
    assert wider_than_the_viewport(page) == [], name
    page.screenshot(path=OUTPUT / f"nav-{name}-phone.png", full_page=True)

    main_top = page.locator("main").bounding_box()["y"]
    menu.click()
    opened = nav.get_by_role("link").all()
    assert len(opened) == links and all(link.is_visible() for link in opened), name
    for link in opened:
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (name, link.inner_text())
    assert page.locator("main").bounding_box()["y"] == main_top, name  # it opens over the page, pushing nothing
    assert wider_than_the_viewport(page) == [], name
    page.screenshot(path=OUTPUT / f"nav-{name}-phone-menu.png")
    menu.click()
    page.set_viewport_size(DESKTOP)


def test_the_navigation_fits_a_phone_on_every_page_type(live_server, chromium, play, classic_table, funded, operator):
    from playwright.sync_api import expect

    alice = funded(username="alice_nav", cash=500_00)
    bob = funded(username="bob_nav", cash=500_00)
    round = settle_classic(play, classic_table, alice, bob)
    connections.close_all()
    player_pages = [("account", reverse("wallet_home")), ("statement", reverse("player_statement")),
                    ("games", reverse("player_games")), ("game", reverse("player_game", args=[round.game_number])),
                    ("tables", reverse("player_tables")), ("responsible", reverse("responsible_page"))]
    for locale, lang, menu_word in (("en-GB", "en", "Menu"), ("sv-SE", "sv", "Meny")):
        context, page = context_page(chromium, locale)
        try:
            browser_sign_in(page, live_server.url, alice.get_username())
            for name, url in player_pages:
                page.goto(live_server.url + url)
                assert page.locator("html").get_attribute("lang") == lang, (name, lang)
                expect(page.get_by_role("navigation", name="Main").locator("summary")).to_contain_text(menu_word)
                read(page, f"player-{name}-{lang}", links=8)
        finally:
            connections.close_all()
            context.close()

    staff_pages = [("dashboard", reverse("backoffice_dashboard")), ("ggr", reverse("backoffice_ggr")),
                   ("reconciliation", reverse("backoffice_reconciliation")),
                   ("round", reverse("backoffice_round", args=[round.game_number])),
                   ("player", reverse("backoffice_player", args=[alice.pk]))]
    context, page = context_page(chromium, "en-GB")
    try:
        browser_sign_in(page, live_server.url, operator.get_username())
        for name, url in staff_pages:
            page.goto(live_server.url + url)
            links = page.get_by_role("navigation", name="Main").get_by_role("link").count()
            assert links >= 10, links  # the crowded case: every back-office report
            read(page, f"staff-{name}", links=links)
    finally:
        connections.close_all()
        context.close()

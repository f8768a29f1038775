"""In Chromium at desktop and phone size: an operator reviews and saves a jurisdiction's rules (a bad time zone
is refused beside its field first); a Swedish player with an indefinite self-exclusion asks to end it and reads
the pending end in English and Swedish; the grant page says why a Swedish player's second grant is refused.
Nothing wider than the phone; screenshots under var/test-output/."""

from datetime import timedelta

import pytest
from django.utils import timezone

from responsible import services as rg
from responsible.models import Jurisdiction
from tests.factories import new_key
from tests.helpers import DESKTOP, OUTPUT, PHONE, browser_sign_in, wider_than_the_phone
from wallet import services as wallet

pytestmark = pytest.mark.browser


def at_both_sizes(page, name: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=OUTPUT / f"{name}-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert wider_than_the_phone(page) == [], name
    page.screenshot(path=OUTPUT / f"{name}-phone.png", full_page=True)
    page.set_viewport_size(DESKTOP)


def test_an_operator_reviews_and_saves_a_jurisdictions_rules(live_server, page, operator):
    from playwright.sync_api import expect

    browser_sign_in(page, live_server.url, operator.username)
    page.goto(f"{live_server.url}/support/responsible/jurisdictions/")
    expect(page.get_by_role("heading", name="Jurisdictions", exact=True)).to_be_visible()
    at_both_sizes(page, "jurisdictions-1-list")
    page.get_by_role("link", name="SE Sweden").click()
    page.get_by_label("Time zone of days, weeks and months (IANA name)").fill("Europe/Stockhom")
    page.get_by_label("Cooling-off before a raised or removed limit applies (hours)").fill("96")
    page.get_by_label("Reason").fill("Compliance review 2026-12")
    page.get_by_role("button", name="Review the change").click()
    expect(page.get_by_text("Unknown time zone 'Europe/Stockhom'")).to_be_visible()
    at_both_sizes(page, "jurisdictions-2-bad-zone")
    page.get_by_label("Time zone of days, weeks and months (IANA name)").fill("Europe/Stockholm")
    page.get_by_role("button", name="Review the change").click()
    expect(page.get_by_text("72 hours (3 days) became 96 hours (4 days)")).to_be_visible()
    expect(page.get_by_text("Who will see the reason")).to_be_visible()
    at_both_sizes(page, "jurisdictions-3-review")
    page.get_by_role("button", name="Save the rules").click()
    expect(page.get_by_text("Rules of Sweden saved.")).to_be_visible()
    expect(page.get_by_role("cell", name="Compliance review 2026-12")).to_be_visible()
    at_both_sizes(page, "jurisdictions-4-history")
    assert Jurisdiction.objects.get(code="SE").cooling_off_hours == 96


def test_a_swedish_player_asks_to_end_an_indefinite_exclusion_in_english_and_swedish(live_server, page, player,
                                                                                       swedish):
    from playwright.sync_api import expect

    swedish(player)
    rg.exclusion_start(player=player, kind="self_exclusion", days=None, now=timezone.now() - timedelta(days=400))
    browser_sign_in(page, live_server.url, player.username)
    page.goto(f"{live_server.url}/me/responsible/?lang=en")
    expect(page.get_by_role("heading", name="Ending your self-exclusion")).to_be_visible()
    page.get_by_label("I ask for my self-exclusion to end").check()
    page.get_by_role("button", name="Ask to end my self-exclusion").click()
    expect(page.get_by_text("Your self-exclusion stays in force until")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Your self-exclusion ends at")).to_be_visible()
    expect(page.get_by_text("(ends on request)")).to_be_visible()
    at_both_sizes(page, "exclusion-end-1-english")
    page.get_by_role("link", name="På svenska").click()
    expect(page.get_by_text("Din självavstängning upphör")).to_be_visible()
    expect(page.get_by_text("(upphör på begäran)")).to_be_visible()
    expect(page.get_by_role("button", name="Behåll min självavstängning")).to_be_visible()
    at_both_sizes(page, "exclusion-end-2-swedish")


def test_the_grant_page_explains_a_refused_second_grant(live_server, page, operator, player, swedish):
    from playwright.sync_api import expect

    swedish(player)
    wallet.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="Welcome",
                              idempotency_key=new_key())
    browser_sign_in(page, live_server.url, operator.username)
    page.goto(f"{live_server.url}/support/players/{player.pk}/")
    expect(page.get_by_text("A grant to this player would be refused")).to_be_visible()
    page.locator("#grants-heading").scroll_into_view_if_needed()
    at_both_sizes(page, "grant-refused")


def test_support_reviews_a_written_request_to_end_a_self_exclusion(live_server, page, support, player, swedish):
    from playwright.sync_api import expect

    swedish(player)
    rg.exclusion_start(player=player, kind="self_exclusion", days=None, now=timezone.now() - timedelta(days=400))
    browser_sign_in(page, live_server.url, support.username)
    page.goto(f"{live_server.url}/support/responsible/players/{player.pk}/")
    page.get_by_label("Reason (the player's written request: date and reference)").fill("Letter of 2026-11-30, ref 77")
    page.get_by_role("button", name="Review: end it on the player's written request").click()
    expect(page.get_by_text("Nothing has changed yet.")).to_be_visible()
    expect(page.get_by_text("Who will see the reason")).to_be_visible()
    at_both_sizes(page, "exclusion-end-3-support-review")
    page.get_by_role("button", name="Enter the request").click()
    expect(page.get_by_text("Requested: the self-exclusion of pat_player ends at")).to_be_visible()
    expect(page.get_by_text("An end is waiting")).to_be_visible()
    page.locator("#ending-heading").scroll_into_view_if_needed()
    at_both_sizes(page, "exclusion-end-4-support-page")

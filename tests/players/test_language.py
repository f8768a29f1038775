"""The player's language sticks: chosen in the settings, or by following a `?lang=` link once, it is stored on
the player's profile (players.selectors.player_language) and every player page, the statement, its CSV and the
game-client API's table help use it; staff pages stay English."""

import re

import pytest
from django.conf import settings
from django.urls import reverse

from players import selectors, services
from players.errors import PlayerRequestError
from players.models import PlayerProfile
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db

SETTINGS = {"sound_on": "on", "sound_volume": "70", "dealer_voice": "on", "voice_volume": "70",
            "video_quality": "auto", "auto_confirm_bets": "on"}


@pytest.fixture
def table(roles):
    return TableFactory(code="LG01", state="open", currencies=["EUR"])


def player_pages(table) -> dict[str, str]:
    return {
        "settings": reverse("player_settings"), "tables": reverse("player_tables"),
        "table": reverse("player_table", args=[table.code]), "help": reverse("player_table_help", args=[table.code]),
        "chat": reverse("player_table_chat", args=[table.code]), "games": reverse("player_games"),
        "account": reverse("wallet_home"), "cashier": reverse("wallet_cashier"),
        "statement": reverse("player_statement"), "responsible": reverse("responsible_page"),
    }


def language_of_page(response) -> str:
    assert response.status_code == 200, (response.status_code, response.content[:200])
    found = re.search(rb'<html lang="(\w+)"', response.content)
    assert found, response.content[:200]
    assert found.group(1).decode() == response.headers["Content-Language"]
    return response.headers["Content-Language"]


def test_a_language_chosen_in_the_settings_writes_every_player_page_in_it(client_for, player, table):
    browser = client_for(player, HTTP_ACCEPT_LANGUAGE="en")
    pages = player_pages(table)
    assert {name: language_of_page(browser.get(url)) for name, url in pages.items()} == dict.fromkeys(pages, "en")
    saved = browser.post(reverse("player_settings"), SETTINGS | {"language": "sv"})
    assert saved.status_code == 302 and selectors.player_language(player=player) == "sv"
    settings_page = browser.get(reverse("player_settings"))
    # the saved message is in the language just chosen
    assert "Inställningarna är sparade. Alla enheter du spelar på använder dem." in settings_page.content.decode()
    assert re.search(r'name="language" value="sv"[^>]*checked', settings_page.content.decode())
    # another device of the player, whose browser asks for English and has no cookie, reads Swedish too
    other_device = client_for(player, HTTP_ACCEPT_LANGUAGE="en")
    assert {name: language_of_page(other_device.get(url)) for name, url in pages.items()} == \
        dict.fromkeys(pages, "sv")
    # "my browser's language" gives the choice back to the browser (and drops the cookie)
    back = browser.post(reverse("player_settings"), SETTINGS | {"language": ""})
    assert back.status_code == 302 and back.cookies[settings.LANGUAGE_COOKIE_NAME].value == ""
    assert selectors.player_language(player=player) == ""
    assert "Settings saved. Every device you play on uses them." in browser.get(pages["settings"]).content.decode()
    assert language_of_page(browser.get(pages["tables"])) == "en"


def test_a_lang_link_once_keeps_the_language_on_the_links_after_it(client_for, player, table):
    browser = client_for(player, HTTP_ACCEPT_LANGUAGE="en")
    first = browser.get(reverse("player_tables") + "?lang=sv")
    assert language_of_page(first) == "sv"
    assert first.cookies[settings.LANGUAGE_COOKIE_NAME].value == "sv"
    assert selectors.player_language(player=player) == "sv"
    for url in player_pages(table).values():
        assert language_of_page(browser.get(url)) == "sv", url
    # the stored choice outweighs a cookie left from before (another device's choice is the newest)
    browser.get(reverse("wallet_home") + "?lang=en")
    assert selectors.player_language(player=player) == "en"
    browser.cookies[settings.LANGUAGE_COOKIE_NAME] = "sv"
    assert language_of_page(browser.get(reverse("player_settings"))) == "en"


def test_a_bad_language_is_refused_with_the_reason_and_changes_nothing(client_for, player, table):
    services.player_language_remember(player=player, language="sv")
    browser = client_for(player)
    for url in (reverse("player_tables"), reverse("player_statement"), reverse("responsible_page")):
        refused = browser.get(url + "?lang=de")
        assert refused.status_code == 400, url
        assert refused.content.decode() == "lang must be one of en, sv, not 'de'", url
        assert settings.LANGUAGE_COOKIE_NAME not in refused.cookies
    page = browser.post(reverse("player_settings"), SETTINGS | {"language": "de"})
    assert page.status_code == 400
    assert "Välj ett giltigt alternativ" in page.content.decode()  # Django's own "select a valid choice", in sv
    api = browser.put("/api/players/me/settings/", {"sound_on": True, "sound_volume": 5, "dealer_voice": True,
                                                   "video_quality": "auto", "hide_others_chat": False,
                                                   "language": "de"}, content_type="application/json")
    assert api.status_code == 400 and "language" in api.json()["fields"]
    for bad in ("de", "SV", None, ["sv"]):
        with pytest.raises(PlayerRequestError, match="Language is one of en, sv or blank"):
            services.player_language_remember(player=player, language=bad)
    assert PlayerProfile.objects.get(player=player).language == "sv"


def test_the_api_stores_the_language_and_the_table_help_uses_it(client_for, player, table):
    client = client_for(player, HTTP_ACCEPT_LANGUAGE="en")
    body = {"sound_on": True, "sound_volume": 5, "dealer_voice": True, "video_quality": "auto",
            "hide_others_chat": False}
    assert client.get("/api/players/me/settings/").json()["language"] == ""
    assert client.put("/api/players/me/settings/", body | {"language": "sv"},
                      content_type="application/json").json()["language"] == "sv"
    # a client that does not know the setting leaves it as stored
    assert client.put("/api/players/me/settings/", body, content_type="application/json").json()["language"] == "sv"
    help = client.get(reverse("api_table_help", args=[table.code]))
    assert help.status_code == 200 and help.json()["language"] == "sv" and help["Content-Language"] == "sv"
    assert client.get(reverse("api_table_help", args=[table.code]) + "?lang=en").json()["language"] == "en"
    assert selectors.player_language(player=player) == "sv"  # the API reads ?lang=, it does not store it


def test_the_statement_and_its_csv_use_the_stored_language(client_for, player):
    services.player_language_remember(player=player, language="sv")
    client = client_for(player, HTTP_ACCEPT_LANGUAGE="en")
    page = client.get(reverse("player_statement"))
    assert page["Content-Language"] == "sv" and "lang=sv" in page.content.decode()
    csv = client.get(reverse("player_statement_csv"))
    assert csv["Content-Language"] == "sv" and csv["Content-Disposition"].endswith('-sv.csv"')
    assert b"".join(csv.streaming_content).decode().startswith("Konto;")


def test_staff_pages_stay_english_and_a_staff_lang_link_is_not_remembered(client_for, player, support):
    services.player_language_remember(player=player, language="sv")
    staff = client_for(support, HTTP_ACCEPT_LANGUAGE="en")
    statement = staff.get(reverse("support_player_statement", args=[player.pk]) + "?lang=sv")
    assert statement["Content-Language"] == "sv"  # support reads what the player reads, when asking for it
    assert settings.LANGUAGE_COOKIE_NAME not in statement.cookies
    assert staff.get(reverse("support_player_statement", args=[player.pk]))["Content-Language"] == "en"
    back_office = staff.get(reverse("home"))
    assert back_office.status_code in (200, 302) and "Content-Language" not in back_office.headers
    assert selectors.player_language(player=support) == "" and not PlayerProfile.objects.filter(
        player=support).exists()


def test_the_stored_language_is_read_once_a_request_and_written_only_when_it_changes(client_for, player, table):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    browser = client_for(player)
    profile_table = PlayerProfile._meta.db_table
    for url, reads, writes in ((reverse("player_tables") + "?lang=sv", 1, 1), (reverse("player_tables"), 1, 0),
                               (reverse("player_tables") + "?lang=sv", 1, 0)):
        with CaptureQueriesContext(connection) as queries:
            assert browser.get(url).status_code == 200
        language_reads = [q for q in queries if q["sql"].startswith("SELECT") and profile_table in q["sql"]
                          and '"language"' in q["sql"].split("FROM")[0] and "chat_disabled" not in q["sql"]]
        profile_writes = [q for q in queries if q["sql"].startswith(("INSERT", "UPDATE")) and profile_table in q["sql"]]
        assert (len(language_reads), len(profile_writes)) == (reads, writes), url

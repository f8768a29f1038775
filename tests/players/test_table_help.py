"""A table's help page for players: written from its configuration as it is now (rules, timers, paytables with
their RTPs, limits per currency), in English or Swedish with numbers and money as each language writes them, on
the player's page and through the game-client API; the Swedish catalog is compiled and complete."""

import gettext
import re
from html import unescape

import pytest
from django.conf import settings
from django.urls import reverse

from casino.locale_formats import money_in, percent_in
from tables import rtp, rtp_exact
from tables import selectors as table_selectors
from tables.models import BetLimit

pytestmark = pytest.mark.django_db


def main_rtp(table) -> float:
    rules = table_selectors.table_rules(table)
    return rtp_exact.main_game_figures(rtp_exact.rtp_rules_from_engine(rules))["rtp"]


def text_of(response) -> str:
    return re.sub(r"[ \t\r\n]+", " ", unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_the_help_page_says_what_the_table_is_configured_to_do(client_for, player, classic_table):
    main = BetLimit.objects.get(table=classic_table, bet_type="main", currency="EUR")
    page = client_for(player).get(reverse("player_table_help", args=[classic_table.code]) + "?lang=en")
    assert page.status_code == 200 and page.headers["Content-Language"] == "en"
    text = text_of(page)
    assert f"returns {percent_in(main_rtp(classic_table), language='en')} of the stakes" in text
    assert f"Betting is open for {classic_table.betting_seconds} seconds." in text
    assert "If the time runs out, your hand stands." in text  # the classic timeout rule
    assert f"a shoe of {classic_table.decks} decks" in text
    assert f"{money_in(main.min, 'EUR', language='en')} {money_in(main.max, 'EUR', language='en')}" in text
    for row in table_selectors.table_paytable_rtps(table=classic_table):
        if row.paytable.offered:
            assert f"Return to player: {percent_in(row.rtp, language='en')}." in text
    assert '<html lang="en">' in page.content.decode()


def test_a_changed_configuration_changes_the_help(client_for, player, classic_table, operator):
    from tables.services import table_update

    url = reverse("player_table_help", args=[classic_table.code]) + "?lang=en"
    assert "You have 20 seconds" not in text_of(client_for(player).get(url))
    classic_table.refresh_from_db()
    golden = classic_table.golden_chips
    table_update(table=classic_table, actor=operator, golden_chips=not golden, decision_seconds=20, reason="Test")
    text = text_of(client_for(player).get(url))
    assert ("Golden Chips: chips the casino gives you" in text) is (not golden)
    assert "You have 20 seconds for each decision." in text


def test_the_help_page_in_swedish_writes_money_and_numbers_the_swedish_way(client_for, player, classic_table):
    main = BetLimit.objects.get(table=classic_table, bet_type="main", currency="EUR")
    page = client_for(player).get(reverse("player_table_help", args=[classic_table.code]) + "?lang=sv")
    assert page.status_code == 200 and page.headers["Content-Language"] == "sv"
    text = text_of(page)
    assert "Spelet" in text and "Dina beslut" in text and "Insatsgränser" in text
    assert f"i {classic_table.betting_seconds} sekunder" in text
    swedish = money_in(main.max, "EUR", language="sv")
    assert "," in swedish and swedish.endswith("€") and swedish in text
    assert percent_in(main_rtp(classic_table), language="sv") in text
    assert "The game" not in text and '<html lang="sv">' in page.content.decode()


def test_the_browser_language_picks_swedish_and_a_bad_language_is_refused(client_for, player, classic_table):
    url = reverse("player_table_help", args=[classic_table.code])
    swedish = client_for(player, HTTP_ACCEPT_LANGUAGE="sv-SE,sv;q=0.9,en;q=0.5").get(url)
    assert swedish.headers["Content-Language"] == "sv" and "Dina beslut" in text_of(swedish)
    assert client_for(player).get(url).headers["Content-Language"] == "en"
    refused = client_for(player).get(url + "?lang=xx")
    assert refused.status_code == 400 and "lang must be one of en, sv" in refused.content.decode()
    assert client_for(player).get(reverse("player_table_help", args=["NOPE"])).status_code == 404


def test_players_reach_the_help_from_their_tables_page(client_for, player, classic_table):
    classic_table.state = "open"
    classic_table.save(update_fields=["state"])
    page = client_for(player).get(reverse("player_tables")).content.decode()
    assert reverse("player_table_help", args=[classic_table.code]) in page


def test_the_api_serves_the_same_facts_and_text(client_for, player, seated_table):
    client = client_for(player)
    url = reverse("api_table_help", args=[seated_table.code])
    english, swedish = client.get(url + "?lang=en").json(), client.get(url + "?lang=sv").json()
    rules = table_selectors.table_rules(seated_table)
    assert english["facts"] == swedish["facts"]
    assert english["facts"]["rtp"]["main"] == pytest.approx(main_rtp(seated_table))
    assert english["facts"]["rtp"]["main_infinite_deck"] == pytest.approx(rtp.main_game_infinite_rtp(rules))
    assert english["facts"]["timers"]["timeout_rule"] == seated_table.timeout_rule
    assert [s["key"] for s in english["sections"]] == [s["key"] for s in swedish["sections"]]
    assert english["sections"][0]["heading"] == "The game" and swedish["sections"][0]["heading"] == "Spelet"
    offered = {row.paytable.side_bet: row.rtp for row in table_selectors.table_paytable_rtps(table=seated_table)
               if row.paytable.offered}
    assert {p["bet"]: p["rtp"] for p in english["paytables"]} == {bet: float(v) for bet, v in offered.items()}
    limits = {(limit.bet_type, limit.currency): (limit.min, limit.max)
              for limit in table_selectors.table_bet_limits(table=seated_table)}
    assert all(limits[(row["bet"], row["currency"])] == (row["min"], row["max"]) for row in english["limits"])
    assert client.get(url + "?lang=de").status_code == 400
    assert client.get(reverse("api_table_help", args=["NOPE"])).status_code == 404


def test_the_schema_documents_the_help_operation(client_for, player):
    schema = client_for(player).get(reverse("api-schema"), HTTP_ACCEPT="application/json").content.decode()
    assert "/api/players/tables/{code}/help/" in schema and "rtp_text" in schema


def test_the_swedish_catalog_is_complete_and_compiled():
    """The .mo file is committed (no gettext needed to run the site); it must say what the .po says."""
    from babel.messages.pofile import read_po

    folder = settings.BASE_DIR / "locale" / "sv" / "LC_MESSAGES"
    catalog = read_po(open(folder / "django.po", "rb"))  # noqa: SIM115 - read at once
    compiled = gettext.GNUTranslations(open(folder / "django.mo", "rb"))  # noqa: SIM115
    messages = [message for message in catalog if message.id]
    assert messages
    for message in messages:
        assert "fuzzy" not in message.flags, message.id
        if isinstance(message.id, tuple):
            assert all(message.string), message.id
            assert compiled.ngettext(message.id[0], message.id[1], 1) == message.string[0]
            assert compiled.ngettext(message.id[0], message.id[1], 5) == message.string[1]
        else:
            assert message.string, message.id
            found = compiled.pgettext(message.context, message.id) if message.context else compiled.gettext(message.id)
            assert found == message.string, message.id


def test_a_free_bet_table_explains_its_free_bets_timeout_and_charlie(client_for, player, free_bet_table):
    free_bet_table.refresh_from_db()
    text = text_of(client_for(player).get(reverse("player_table_help", args=[free_bet_table.code]) + "?lang=en"))
    assert "Any number of players share one hand's first two cards" in text
    assert "Free Double:" in text and "Free Split:" in text and "A dealer total of 22 pushes" in text
    assert "hits on a total of 11 or less and stands above 11" in text  # the free bet timeout rule
    assert f"a hand of {free_bet_table.charlie_cards} cards" in text and "even against a dealer 22" in text
    assert "You may not double after a split." in text
    # Paytables best line first, as players read them.
    hot3 = text[text.index("Hot 3 scores"):]
    assert hot3.index("Three sevens") < hot3.index("21 in one suit") < hot3.index("Total of 19")


def test_the_help_says_what_a_lost_connection_does_at_this_table(client_for, player, classic_table, operator):
    from tables.services import table_update

    url = reverse("player_table_help", args=[classic_table.code])
    classic_table.refresh_from_db()
    table_update(table=classic_table, actor=operator, disconnect_policy="non_live", non_live_deadline=2 * 3600,
                 reason="Help test")
    assert "your hands leave the live round" in text_of(client_for(player).get(url + "?lang=en"))
    assert "inom 2 timmar" in text_of(client_for(player).get(url + "?lang=sv"))
    table_update(table=classic_table, actor=operator, disconnect_policy="bets_stand", reason="Help test")
    assert "your bets stand, betting time included" in text_of(client_for(player).get(url + "?lang=en"))


def test_the_help_says_when_a_table_is_played_on_its_own(client_for, player, classic_table, operator):
    from tables.services import table_update

    url = reverse("player_table_help", args=[classic_table.code])
    assert "played on its own" not in text_of(client_for(player).get(url + "?lang=en"))
    classic_table.refresh_from_db()
    table_update(table=classic_table, actor=operator, multi_game=False, reason="Help test")
    assert "This table is played on its own" in text_of(client_for(player).get(url + "?lang=en"))
    assert "Det här bordet spelas ensamt" in text_of(client_for(player).get(url + "?lang=sv"))

"""A player's game history: newest first, keyset pages, a detail page with cards and decisions, a CSV export."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from rounds import game_history
from tests.backoffice.scenarios import settle_classic

pytestmark = pytest.mark.django_db


def test_the_game_history_lists_rounds_newest_first_with_bets_and_results(client_for, settled, in_play, alice):
    page = client_for(alice).get(reverse("player_games")).content.decode()
    newest, older = in_play.round.game_number, settled.game_number
    assert page.index(f">{newest}<") < page.index(f">{older}<")
    assert "In play" in page and "Won" in page and "+10.00 EUR" in page and "Main 10.00 EUR" in page
    assert reverse("player_game", args=[older]) in page


def test_the_history_pages_by_keyset_and_the_first_page_costs_the_same_queries(play, classic_table, alice, bob):
    rounds = [settle_classic(play, classic_table, alice) for _ in range(5)]
    with CaptureQueriesContext(connection) as first:
        page = game_history.player_game_history(player=alice, limit=2)
    assert [row.game_number for row in page.rows] == [r.game_number for r in reversed(rounds)][:2]
    second = game_history.player_game_history(player=alice, before=page.next_before, limit=2)
    third = game_history.player_game_history(player=alice, before=second.next_before, limit=2)
    assert [len(p.rows) for p in (page, second, third)] == [2, 2, 1] and third.next_before is None
    assert len(first.captured_queries) == 4  # round ids, rounds, bets, voided spots: whatever the history's size
    assert game_history.player_game_history(player=bob).rows == []


def test_older_pages_come_as_htmx_rows_and_a_bad_cursor_is_a_400(client_for, play, classic_table, alice):
    for _ in range(3):
        settle_classic(play, classic_table, alice)
    client = client_for(alice)
    first = game_history.player_game_history(player=alice, limit=1)
    rows = client.get(reverse("player_games"), {"before": first.next_before}, headers={"HX-Request": "true"})
    assert rows.status_code == 200 and "<html" not in rows.content.decode() and "<tr>" in rows.content.decode()
    assert client.get(reverse("player_games"), {"before": "1; drop"}).status_code == 400
    assert client.get(reverse("player_games"), {"date": "2026-02-31"}).status_code == 400


def test_going_to_a_date_starts_the_history_there(client_for, play, classic_table, alice):
    old = settle_classic(play, classic_table, alice)
    from rounds.models import Round

    Round.objects.filter(pk=old.pk).update(opened_at=timezone.now() - timedelta(days=80))
    new = settle_classic(play, classic_table, alice)
    day = (timezone.now() - timedelta(days=60)).date().isoformat()
    page = client_for(alice).get(reverse("player_games"), {"date": day}).content.decode()
    assert old.game_number in page and new.game_number not in page


def test_the_detail_page_shows_the_cards_and_decisions_of_the_round(client_for, settled, alice):
    page = client_for(alice).get(reverse("player_game", args=[settled.game_number])).content.decode()
    assert 'aria-label="10 of hearts"' in page and 'aria-label="King of diamonds"' in page
    assert 'aria-label="9 of clubs"' in page and 'aria-label="10 of spades"' in page  # the dealer's 19
    assert "Stand" in page and "Won" in page and "+10.00 EUR" in page


def test_a_hole_card_stays_face_down_for_the_player_while_the_round_is_played(client_for, play, funded):
    from tests.factories import RoundTableFactory

    table = RoundTableFactory(profile="classic", code="LB05", dealing="us_peek_before")
    player = funded()
    r = play(table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("8h", "9c", "8d", "5s")  # seat 1, dealer up, seat 1, hole
    page = client_for(player).get(reverse("player_game", args=[r.round.game_number])).content.decode()
    assert 'aria-label="9 of clubs"' in page and 'aria-label="5 of spades"' not in page
    assert 'aria-label="face-down card"' in page


def test_the_csv_export_streams_every_round(client_for, play, classic_table, alice):
    rounds = [settle_classic(play, classic_table, alice) for _ in range(3)]
    response = client_for(alice).get(reverse("player_games_csv"))
    assert response["Content-Type"].startswith("text/csv") and response.streaming
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:3] == ["game number", "started (UTC)", "table"]
    assert [row[0] for row in rows[1:]] == [r.game_number for r in reversed(rounds)]
    assert rows[1][4] == "Main 10.00 EUR" and rows[1][7] == "won" and rows[1][8] == "10.00 EUR"


def test_the_api_the_page_and_the_staff_page_tell_the_same_result(client_for, support, play, classic_table,
                                                                   alice, bob):
    settled = settle_classic(play, classic_table, alice, bob)  # alice wins 10.00 EUR on seat 1, bob loses 30.00
    for player, net, text in ((alice, 1000, "+10.00 EUR"), (bob, -3000, "-30.00 EUR")):
        api = client_for(player).get("/api/rounds/mine/").json()["results"]
        assert [row["net"] for row in api if row["game_number"] == settled.game_number] == [
            {label: net for label, data in settled.settlement["spots"].items() if data["player"] == player.pk}]
        assert text in client_for(player).get(reverse("player_games")).content.decode()
        assert text in client_for(support).get(reverse("backoffice_player", args=[player.pk])).content.decode()

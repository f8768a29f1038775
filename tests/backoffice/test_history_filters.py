"""Histories people can work with: a period (UTC days, both included) and a type, the period's totals, each line
linked to its round or transaction, and the CSV of exactly what is shown, for the player and for support."""

import csv
import io
from datetime import UTC, datetime

import time_machine
from django.urls import reverse

from tests.backoffice.scenarios import settle_classic
from tests.factories import new_key
from wallet import services as wallet


def body(response) -> str:
    assert response.status_code == 200, response.status_code
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def at(day: int, hour: int = 12):
    return time_machine.travel(datetime(2026, 11, day, hour, tzinfo=UTC), tick=False)


def test_the_account_history_narrows_to_a_period_and_a_type_with_its_totals_and_csv(client_for, funded, support):
    player = funded(username="periods", cash=0)
    for day, amount in ((20, 10_00), (25, 20_00), (28, 40_00)):
        with at(day):
            wallet.deposit(player=player, currency="EUR", amount=amount, idempotency_key=new_key())
    with at(25, 15):
        wallet.withdraw(player=player, currency="EUR", amount=5_00, idempotency_key=new_key())
    client = client_for(player)
    page = body(client.get(reverse("wallet_home"), {"from": "2026-11-24", "to": "2026-11-25"}))
    rows = page[page.index('id="history-rows"'):page.index("</tbody>", page.index('id="history-rows"'))]
    assert "2026-11-25" in rows and "2026-11-20" not in rows and "2026-11-28" not in rows
    assert "In this selection: 2 entries; in +20.00 EUR, out -5.00 EUR, net +15.00 EUR" in page
    assert "Deposit: 1, +20.00 EUR; Withdrawal: 1, -5.00 EUR" in page
    assert "Download these entries (CSV)" in page
    withdrawals = body(client.get(reverse("wallet_home"), {"type": "withdrawal"}))
    assert "In this selection: 1 entry; in 0.00 EUR, out -5.00 EUR, net -5.00 EUR" in withdrawals
    exported = list(csv.reader(io.StringIO(body(client.get(reverse("wallet_history_csv"),
                                                            {"from": "2026-11-24", "to": "2026-11-25"})))))
    assert [row[1] for row in exported[1:]] == ["Withdrawal", "Deposit"]
    assert client.get(reverse("wallet_home"), {"type": "jackpot"}).status_code == 400
    assert client.get(reverse("wallet_home"), {"from": "2026-11-26", "to": "2026-11-25"}).status_code == 400
    # support reads the same selection on the player's wallet page
    staff = body(client_for(support).get(reverse("wallet_player", args=[player.pk]), {"type": "deposit"}))
    assert "In this selection: 3 entries; in +70.00 EUR, out 0.00 EUR, net +70.00 EUR" in staff


def test_the_game_history_narrows_to_a_period_with_its_totals_and_csv(client_for, play, classic_table, alice, bob):
    with at(20):
        old = settle_classic(play, classic_table, alice, bob)  # alice +10.00
    with at(25):
        middle = settle_classic(play, classic_table, alice, bob)
    with at(28):
        new = settle_classic(play, classic_table, alice, bob)
    client = client_for(alice)
    page = body(client.get(reverse("player_games"), {"from": "2026-11-24", "to": "2026-11-26"}))
    assert middle.game_number in page and old.game_number not in page and new.game_number not in page
    assert "In this period: 1 game; staked 10.00 EUR, got back 20.00 EUR, net +10.00 EUR." in page
    assert f'href="{reverse("player_game", args=[middle.game_number])}"' in page  # each line links its round
    exported = body(client.get(reverse("player_games_csv"), {"from": "2026-11-24", "to": "2026-11-26"}))
    assert middle.game_number in exported and old.game_number not in exported and new.game_number not in exported
    everything = body(client.get(reverse("player_games"), {"from": "2026-11-20"}))
    assert "In this period: 3 games; staked 30.00 EUR, got back 60.00 EUR, net +30.00 EUR." in everything
    assert client.get(reverse("player_games"), {"from": "2026-11-27", "to": "2026-11-26"}).status_code == 400


def test_support_reads_a_players_games_of_a_period_with_totals_and_the_same_csv(client_for, support, play,
                                                                               classic_table, alice, bob):
    with at(20):
        old = settle_classic(play, classic_table, alice, bob)
    with at(25):
        middle = settle_classic(play, classic_table, alice, bob)
    client = client_for(support)
    page = body(client.get(reverse("backoffice_player", args=[alice.pk]), {"from": "2026-11-24", "to": "2026-11-26"}))
    games = page[page.index('id="games-heading"'):page.index('id="history-heading"')]
    assert middle.game_number in games and old.game_number not in games
    assert "In this period: 1 game; staked 10.00 EUR, got back 20.00 EUR, net +10.00 EUR." in games
    assert f'href="{reverse("backoffice_round", args=[middle.game_number])}"' in games
    exported = body(client.get(reverse("backoffice_player_games_csv", args=[alice.pk]),
                               {"from": "2026-11-24", "to": "2026-11-26"}))
    mine = body(client_for(alice).get(reverse("player_games_csv"), {"from": "2026-11-24", "to": "2026-11-26"}))
    assert exported == mine and middle.game_number in exported and old.game_number not in exported

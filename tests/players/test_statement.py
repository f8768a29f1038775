"""The player's statement: every transaction of a period with its running balance, the opening and closing
balance, as a page and a CSV, in English or Swedish; the player's own, and support's for a player."""

import csv
import io
from datetime import UTC, date, datetime

import time_machine
from django.urls import reverse

from players.statement import amount_in, statement_build
from tests.factories import new_key
from wallet import selectors as wallet_selectors
from wallet import services as wallet
from wallet.models import Account, AccountKind, Entry


def at(day: int, hour: int = 12):
    return time_machine.travel(datetime(2026, 11, day, hour, tzinfo=UTC), tick=False)


def body(response) -> str:
    assert response.status_code == 200, (response.status_code, response.content[:300])
    return (b"".join(response.streaming_content) if response.streaming else response.content).decode()


def rows_of(response, delimiter=","):
    return list(csv.reader(io.StringIO(body(response)), delimiter=delimiter))


def _history(funded, operator):
    """A player's November: deposits, bets won and lost, a tip, a withdrawal, Golden Chips; the 30th is the
    day after the period the tests ask for."""
    with at(2):
        player = funded(username="stella", cash=0)
        wallet.deposit(player=player, currency="EUR", amount=1234_50, idempotency_key=new_key())
    with at(9, 23):
        bet = wallet.bet_hold(player=player, holds=[wallet.BetHoldSpec(amount=10_00, currency="EUR")],
                              idempotency_key=new_key())[0]
    with at(10, 0):  # the bet placed on the 9th is paid on the 10th
        wallet.bet_resolve(resolutions=[wallet.BetResolutionSpec(bet_id=bet.pk, cash_return=25_00)],
                           idempotency_key=new_key())
    with at(12):
        wallet.tip(player=player, currency="EUR", amount=1_50, table_ref="LB01", idempotency_key=new_key())
        wallet.golden_chips_grant(player=player, currency="EUR", amount=5_00, staff=operator, reason="welcome",
                                  idempotency_key=new_key())
    with at(20):
        wallet.withdraw(player=player, currency="EUR", amount=200_00, idempotency_key=new_key())
    with at(30):
        wallet.deposit(player=player, currency="EUR", amount=1_00, idempotency_key=new_key())
    return player


def test_the_running_balance_is_the_accounts_balance_after_each_entry(funded, operator):
    player = _history(funded, operator)
    statement = statement_build(player=player, since=date(2026, 11, 1), until=date(2026, 11, 30))
    for part in statement.accounts:
        entries = list(Entry.objects.filter(account=part.account).order_by("id"))
        lines = list(part.lines(since=statement.since, until=statement.until))
        assert [line.row.entry_id for line in lines] == [e.pk for e in entries]
        assert [line.balance for line in lines] == [e.balance_after for e in entries]
        assert part.opening == 0 and part.closing == Account.objects.get(pk=part.account.pk).balance
    cash = statement.accounts[0]
    assert (cash.account.kind, cash.opening, cash.closing) == (AccountKind.PLAYER_CASH, 0, 1049_00)


def test_the_period_boundaries_are_whole_utc_days_and_the_opening_carries_what_came_before(funded, operator):
    player = _history(funded, operator)
    statement = statement_build(player=player, since=date(2026, 11, 10), until=date(2026, 11, 12))
    cash = statement.accounts[0]
    lines = list(cash.lines(since=statement.since, until=statement.until))
    # the 9th's bet is before the period (its 23:00 is the 9th's last hour), the payout at 00:00 on the 10th in it
    assert [line.row.kind for line in lines] == ["payout", "tip"]
    assert cash.opening == 1234_50 - 10_00 == wallet_selectors.account_balance_before(account=cash.account,
                                                                                      day=date(2026, 11, 10))
    assert [line.balance for line in lines] == [1249_50, 1248_00]
    assert cash.closing == 1248_00 and (cash.money_in, cash.money_out, cash.count) == (25_00, -1_50, 2)


def test_the_player_downloads_their_statement_in_english(client_for, funded, operator):
    player = _history(funded, operator)
    client = client_for(player)
    rows = rows_of(client.get(reverse("player_statement_csv"), {"from": "2026-11-01", "to": "2026-11-29",
                                                                "lang": "en"}))
    assert rows[0] == ["Account", "Currency", "Date (UTC)", "Type", "Game number", "Description", "Amount",
                       "Balance"]
    cash = [row for row in rows[1:] if row[0] == "Cash EUR"]
    assert [row[3] for row in cash] == ["Opening balance", "Deposit", "Bet", "Payout", "Tip", "Withdrawal",
                                        "Closing balance"]
    assert cash[1][2] == "2 Nov 2026, 12:00:00 UTC"
    assert cash[4][4] == "Table LB01"  # a tip's reference is its table, not a game number
    assert [row[6] for row in cash[1:-1]] == ["1234.50", "-10.00", "25.00", "-1.50", "-200.00"]
    assert [row[7] for row in cash] == ["0.00", "1234.50", "1224.50", "1249.50", "1248.00", "1048.00", "1048.00"]
    chips = [row for row in rows[1:] if row[0] == "Golden Chips EUR"]
    assert [row[3] for row in chips] == ["Opening balance", "Golden Chips grant", "Closing balance"]
    assert chips[1][5] == "Golden Chips granted. Reason: welcome"
    page = body(client.get(reverse("player_statement"), {"from": "2026-11-01", "to": "2026-11-29", "lang": "en"}))
    assert "Closing balance (2026-11-29)" in page and "€1,048.00" in page and "1 Dec" not in page


def test_the_swedish_statement_has_swedish_headers_names_and_numbers(client_for, funded, operator):
    player = _history(funded, operator)
    client = client_for(player)
    response = client.get(reverse("player_statement_csv"), {"from": "2026-11-01", "to": "2026-11-29", "lang": "sv"})
    assert response.headers["Content-Language"] == "sv"
    rows = rows_of(response, delimiter=";")
    assert rows[0] == ["Konto", "Valuta", "Datum (UTC)", "Typ", "Spelnummer", "Beskrivning", "Belopp", "Saldo"]
    cash = [row for row in rows[1:] if row[0] == "Kontanter EUR"]
    assert [row[3] for row in cash] == ["Ingående saldo", "Insättning", "Insats", "Utbetalning", "Dricks", "Uttag",
                                        "Utgående saldo"]
    assert [row[6] for row in cash[1:-1]] == ["1234,50", "-10,00", "25,00", "-1,50", "-200,00"]
    assert cash[-1][7] == "1048,00"
    assert cash[1][2].startswith("2 nov. 2026") and cash[1][2].endswith("12:00:00 UTC")
    chips = [row for row in rows[1:] if row[0] == "Golden Chips EUR"]
    assert chips[1][3:6] == ["Tilldelning av Golden Chips", "", "Golden Chips tilldelade. Anledning: welcome"]
    page = body(client.get(reverse("player_statement"), {"from": "2026-11-01", "to": "2026-11-29"},
                           HTTP_ACCEPT_LANGUAGE="sv-SE,sv;q=0.9"))
    assert '<html lang="sv">' in page and "Kontoutdrag" in page and "Utgående saldo (2026-11-29)" in page
    assert "1\xa0048,00\xa0€" in page and "Insättning" in page


def test_amounts_are_written_as_the_language_writes_numbers():
    assert amount_in(-123456, "EUR", language="sv") == "-1234,56"
    assert amount_in(5, "EUR", language="en") == "0.05"
    assert amount_in(-7, "JPY", language="sv") == "-7"


def test_bad_periods_and_languages_are_refused(client_for, funded):
    client = client_for(funded(username="quiet"))
    assert client.get(reverse("player_statement"), {"from": "2026-11-10", "to": "2026-11-01"}).status_code == 400
    assert client.get(reverse("player_statement_csv"), {"from": "2025-01-01", "to": "2026-11-01"}).status_code == 400
    assert client.get(reverse("player_statement"), {"lang": "de"}).status_code == 400
    refused = client.get(reverse("player_statement"), {"from": "nope", "lang": "sv"})
    assert refused.status_code == 400 and b"from" in refused.content


def test_support_reads_a_players_statement_and_needs_the_permission(client_for, funded, operator, support):
    player = _history(funded, operator)
    other = funded(username="nosy", cash=3_00)
    url = reverse("support_player_statement_csv", args=[player.pk])
    query = {"from": "2026-11-01", "to": "2026-11-29", "lang": "en"}
    staff_rows = rows_of(client_for(support).get(url, query))
    own_rows = rows_of(client_for(player).get(reverse("player_statement_csv"), query))
    assert staff_rows == own_rows
    page = body(client_for(support).get(reverse("support_player_statement", args=[player.pk]), query))
    assert "Statement of stella" in page
    # a player reaches no one else's statement: the support URLs refuse them, their own pages only show theirs
    assert client_for(other).get(url, query).status_code == 403
    assert client_for(other).get(reverse("support_player_statement", args=[player.pk])).status_code == 403
    theirs = rows_of(client_for(other).get(reverse("player_statement_csv"), {**query, "player": player.pk}))
    assert {row[0] for row in theirs[1:]} == {"Cash EUR"} and "1234.50" not in str(theirs)
    assert client_for(support).get(reverse("support_player_statement", args=[999_999])).status_code == 404


def test_the_statement_lists_exactly_the_lines_the_account_history_page_shows(client_for, funded, operator):
    player = _history(funded, operator)
    since, until = date(2026, 11, 3), date(2026, 11, 20)
    statement = statement_build(player=player, since=since, until=until)
    for part in statement.accounts:
        shown = wallet_selectors.account_history(account=part.account, limit=200,
                                                 filter=wallet_selectors.HistoryFilter(since=since, until=until))
        lines = list(part.lines(since=since, until=until))
        assert [(line.row.entry_id, line.row.amount, line.row.kind_label) for line in reversed(lines)] == [
            (row.entry_id, row.amount, row.kind_label) for row in shown.rows]
    page = body(client_for(player).get(reverse("wallet_home"), {"from": "2026-11-03", "to": "2026-11-20"}))
    assert "In this selection: 4 entries; in +25.00 EUR, out -211.50 EUR, net -186.50 EUR" in page
    cash = statement.accounts[0]
    assert (cash.count, cash.money_in, cash.money_out, cash.closing - cash.opening) == (4, 25_00, -211_50, -186_50)

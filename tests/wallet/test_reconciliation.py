"""The daily reconciliation against a simulated month whose every figure is known, to the minor unit, and a
ledger broken on purpose (rows written past the services) whose days are shown as not tying."""

import csv
import io
from contextlib import contextmanager
from datetime import UTC, date, datetime

import pytest
import time_machine
from django.db import connection, transaction
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rounds.services import round_reverse
from tests.backoffice.scenarios import settle_classic
from tests.factories import new_key
from wallet import services as wallet
from wallet.models import Account, AccountKind
from wallet.reconciliation import (
    MOVEMENT_KINDS,
    KindDay,
    ReconciliationDay,
    reconciliation_days,
    reconciliation_problems,
)

CASH, CHIPS = AccountKind.PLAYER_CASH, AccountKind.PLAYER_GOLDEN_CHIPS
CASHIER, BANKROLL, IN_PLAY = AccountKind.HOUSE_CASHIER, AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_BETS_IN_PLAY
CHIPS_IN_PLAY, TIPS, PROMOTIONS = (AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY, AccountKind.HOUSE_TIPS,
                                   AccountKind.HOUSE_PROMOTIONS)
# settle_classic: each player's hold, then one settlement transaction
TRANSACTIONS_OF_A_CLASSIC_ROUND = 3
TODAY = datetime(2026, 12, 1, 12, tzinfo=UTC)


def at(day: int, hour: int = 12, month: int = 11):
    return time_machine.travel(datetime(2026, month, day, hour, tzinfo=UTC), tick=False)


def hold(player, amount, funding="cash"):
    return wallet.bet_hold(player=player, holds=[wallet.BetHoldSpec(amount=amount, currency="EUR", funding=funding)],
                           idempotency_key=new_key())[0]


def resolve(bet, cash, chips=0):
    wallet.bet_resolve(resolutions=[wallet.BetResolutionSpec(bet_id=bet.pk, cash_return=cash, chips_return=chips)],
                       idempotency_key=new_key())


@pytest.fixture
def month(funded, operator, support, play, classic_table):
    """November 2026 in EUR (and one SEK deposit): every kind of movement, a reversal, a bet held over two
    nights. Players: ann and ben (EUR), sif (SEK)."""
    with at(1, 10):
        ann, ben = funded(username="ann_month", cash=1000_00), funded(username="ben_month", cash=500_00)
        funded(username="sif_month", cash=2000_00, currency="SEK")
    with at(3):
        resolve(hold(ann, 10_00), 20_00)  # won: +10.00
    with at(5):
        resolve(hold(ben, 30_00), 0)  # lost
    with at(10):
        wallet.golden_chips_grant(player=ann, currency="EUR", amount=5_00, staff=operator, reason="welcome",
                                  idempotency_key=new_key())
        resolve(hold(ann, 5_00, funding="golden_chips"), 0)  # the chips spent, nothing won
    with at(12):
        wallet.tip(player=ann, currency="EUR", amount=2_00, table_ref="LB01", idempotency_key=new_key())
    with at(15):
        wallet.withdraw(player=ann, currency="EUR", amount=100_00, idempotency_key=new_key())
    with at(20):
        settled = settle_classic(play, classic_table, ann, ben)  # ann stakes 10.00 and wins 20.00; ben loses 30.00
    with at(22):
        round_reverse(round_id=settled.pk, actor=support, reason="the shoe was not shuffled")
    with at(25):
        overnight = hold(ben, 40_00)
    with at(26):
        refunded = hold(ann, 15_00)
        wallet.bet_void(bet_ids=[refunded.pk], idempotency_key=new_key(), reason="table closed")
    with at(27):
        resolve(overnight, 40_00)  # a push: the stake back
    return {"ann": ann, "ben": ben}


def days_by_date(days, currency="EUR"):
    return {d.day: d for d in days if d.currency == currency}


def test_a_simulated_month_reconciles_to_the_minor_unit(month):
    days = reconciliation_days(start=date(2026, 11, 1), end=date(2026, 11, 30), now=TODAY)
    assert [d.day for d in days if d.currency == "EUR"] == [date(2026, 11, n) for n in range(1, 31)]
    assert {d.currency for d in days} == {"EUR", "SEK"}
    assert [f"{d.day} {d.currency}: {p}" for d in days for p in d.problems] == []
    eur = days_by_date(days)

    def moved(day, kind):
        return eur[date(2026, 11, day)].kind(kind).movements

    assert moved(1, CASH) == {"deposit": 1500_00} and moved(1, CASHIER) == {"deposit": -1500_00}
    assert moved(3, CASH) == {"bet": -10_00, "payout": 20_00}
    assert moved(3, IN_PLAY) == {"bet": 10_00, "payout": -10_00} and moved(3, BANKROLL) == {"payout": -10_00}
    assert moved(5, BANKROLL) == {"payout": 30_00}
    assert moved(10, CHIPS) == {"golden_chip_grant": 5_00, "bet": -5_00}
    assert moved(10, CHIPS_IN_PLAY) == {"bet": 5_00, "payout": -5_00}
    assert moved(12, CASH) == {"tip": -2_00} and moved(12, TIPS) == {"tip": 2_00}
    assert moved(15, CASH) == {"withdrawal": -100_00} and moved(15, CASHIER) == {"withdrawal": 100_00}
    assert moved(20, CASH) == {"bet": -40_00, "payout": 20_00} and moved(20, BANKROLL) == {"payout": 20_00}
    # the reversal puts both players where a void would have: ann gives back her 10.00 win, ben gets 30.00
    assert moved(22, CASH) == {"reversal": 20_00} and moved(22, BANKROLL) == {"reversal": -20_00}
    assert moved(26, CASH) == {"bet": -15_00, "refund": 15_00}
    assert moved(27, IN_PLAY) == {"payout": -40_00}
    # the bet held over two nights is in play at the end of the 25th and the 26th, and out on the 27th
    assert [eur[date(2026, 11, n)].kind(IN_PLAY).closing for n in (24, 25, 26, 27)] == [0, 40_00, 40_00, 0]
    # each day opens where the one before closed; the month's closing balances
    for n in range(2, 31):
        assert [k.opening for k in eur[date(2026, 11, n)].kinds] == [k.closing for k in eur[date(2026, 11, n - 1)].kinds]
    last = eur[date(2026, 11, 30)]
    assert last.kind(CASH).closing == 1378_00 == Account.objects.filter(kind=CASH, currency="EUR").aggregate(
        total=Sum("balance"))["total"]
    assert last.kind(CASHIER).closing == -1400_00
    assert last.kind(TIPS).closing == 2_00
    assert last.kind(CHIPS).closing == 0 and last.kind(IN_PLAY).closing == 0
    # the spent Golden Chips go back to where they came from or to the bankroll: the house's side sums to the
    # players' 1,378.00 with the sign turned
    house = sum(k.closing for k in last.kinds if k.kind not in (CASH, CHIPS))
    assert house == -1378_00
    assert last.kind(BANKROLL).closing + last.kind(PROMOTIONS).closing == 20_00
    sek = days_by_date(days, "SEK")[date(2026, 11, 30)]
    assert sek.kind(CASH).closing == 2000_00 and sek.kind(CASHIER).closing == -2000_00
    assert eur[date(2026, 11, 20)].transactions == TRANSACTIONS_OF_A_CLASSIC_ROUND
    assert eur[date(2026, 11, 1)].entries == 4 and eur[date(2026, 11, 2)].entries == 0


def test_today_ties_to_the_balances_the_accounts_hold(month):
    days = reconciliation_days(start=date(2026, 11, 30), end=date(2026, 12, 1), currency="EUR", now=TODAY)
    assert [(d.day, d.ties) for d in days] == [(date(2026, 11, 30), True), (date(2026, 12, 1), True)]
    with pytest.raises(ValueError, match="after today"):
        reconciliation_days(start=date(2026, 11, 30), end=date(2026, 12, 2), now=TODAY)
    with pytest.raises(ValueError, match="starts after it ends"):
        reconciliation_days(start=date(2026, 11, 30), end=date(2026, 11, 29), now=TODAY)


@contextmanager
def broken_ledger():
    """Rows written inside are rolled back at the end (to a savepoint), with the zero-sum check PostgreSQL
    queued for them: the test's teardown checks deferred constraints and would refuse them."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def _write_past_the_services(*, day: int, legs: list[tuple[int, int, int | None]]) -> int:
    """A transaction written with raw SQL: (account id, amount, balance_after) legs. Inside the test's own
    transaction the zero-sum trigger, deferred to a commit that never comes, does not stop it."""
    when = datetime(2026, 11, day, 18, tzinfo=UTC)
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO wallet_ledgertransaction (kind, reference, idempotency_key, fingerprint, reason, "
                       "meta, created_at) VALUES ('adjustment', '', %s, '', 'broken on purpose', '{}', %s) RETURNING id",
                       [new_key(), when])
        txn = cursor.fetchone()[0]
        for account, amount, after in legs:
            cursor.execute("INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at) "
                           "VALUES (%s, %s, %s, %s, %s)", [txn, account, amount, after, when])
    return txn


def test_a_day_with_an_unbalanced_transaction_does_not_tie_and_says_what(month):
    bankroll = Account.objects.get(player__isnull=True, kind=BANKROLL, currency="EUR")
    with broken_ledger():
        txn = _write_past_the_services(day=14, legs=[(bankroll.pk, 1_00, None)])
        days = days_by_date(reconciliation_days(start=date(2026, 11, 13), end=date(2026, 11, 16), currency="EUR",
                                                now=TODAY))
    assert days[date(2026, 11, 13)].ties
    broken = days[date(2026, 11, 14)]
    assert [p.check for p in broken.problems] == ["zero_sum", "zero_sum", "ledger_total"]
    assert broken.problems[0].message == "Adjustment movements sum to 1.00 EUR over the account kinds, not 0"
    assert broken.problems[1].message == f"transaction {txn}'s entries sum to 1.00 EUR, not 0"
    # the unit that appeared from nowhere stays in every later day's total
    assert [p.check for p in days[date(2026, 11, 15)].problems] == ["ledger_total"]


def test_a_player_entry_its_running_balance_does_not_follow_does_not_tie(month):
    ann_cash = Account.objects.get(player=month["ann"], kind=CASH)
    bankroll = Account.objects.get(player__isnull=True, kind=BANKROLL, currency="EUR")
    # balanced, but ann's running balance (and her account) never took the 5.00
    with broken_ledger():
        _write_past_the_services(day=16, legs=[(ann_cash.pk, 5_00, 908_00), (bankroll.pk, -5_00, None)])
        days = days_by_date(reconciliation_days(start=date(2026, 11, 16), end=date(2026, 12, 1), currency="EUR",
                                                now=TODAY))
    broken = days[date(2026, 11, 16)]
    assert [p.check for p in broken.problems] == ["running_balance"]
    assert "Cash closes at 1,383.00 EUR by its entries but at 1,378.00 EUR by its accounts' running balances" \
        in broken.problems[0].message
    assert [p.check for p in days[date(2026, 12, 1)].problems] == ["running_balance", "held_balance"]


def test_the_detector_names_stakes_the_in_play_account_does_not_hold():
    kinds = [KindDay(kind=kind, opening=0, movements={}, closing=0) for kind in AccountKind.values]
    kinds[[k.kind for k in kinds].index(IN_PLAY)] = KindDay(kind=IN_PLAY, opening=0, movements={"bet": 7_00},
                                                            closing=7_00)
    kinds[[k.kind for k in kinds].index(CASH)] = KindDay(kind=CASH, opening=10_00, movements={"bet": -7_00},
                                                         closing=3_00)
    kinds[[k.kind for k in kinds].index(CASHIER)] = KindDay(kind=CASHIER, opening=-10_00, movements={},
                                                            closing=-10_00)
    day = ReconciliationDay(day=date(2026, 11, 1), currency="EUR", kinds=kinds, entries=2, transactions=1)
    problems = reconciliation_problems(day, unbalanced=[], running={CASH: 3_00, CHIPS: 0},
                                       in_play={IN_PLAY: 5_00, CHIPS_IN_PLAY: 0}, held=None)
    assert [(p.check, p.message) for p in problems] == [
        ("in_play", "Bets in play holds 7.00 EUR but the bets not resolved by the day's end stake 5.00 EUR")]


def test_the_finance_page_and_csv_show_the_month_and_mark_a_broken_day(month, client_for, operator):
    client = client_for(operator)
    with time_machine.travel(TODAY, tick=False):
        page = client.get(reverse("backoffice_reconciliation"), {"from": "2026-11-01", "to": "2026-11-30"})
        assert page.status_code == 200
        text = page.content.decode()
        assert "Every day of this period ties, to the minor unit." in text
        assert 'id="day-2026-11-22-EUR"' in text and "Reversal of a settled round" in text
        exported = client.get(reverse("backoffice_reconciliation_csv"),
                              {"from": "2026-11-01", "to": "2026-11-30", "currency": "EUR"})
        rows = list(csv.DictReader(io.StringIO(b"".join(exported.streaming_content).decode())))
        assert len(rows) == 30 * len(AccountKind.values)
        # each line adds up as a spreadsheet would add it: opening + movements = closing, to the cent
        for row in rows:
            cents = [round(float(row[name]) * 100) for name in ("opening", *MOVEMENT_KINDS, "closing")]
            assert sum(cents[:-1]) == cents[-1], row
        last_cash = next(r for r in rows if r["day"] == "2026-11-30" and r["account_kind"] == CASH)
        assert (last_cash["opening"], last_cash["closing"], last_cash["day_ties"]) == ("1378.00", "1378.00", "yes")
        reversal = next(r for r in rows if r["day"] == "2026-11-22" and r["account_kind"] == CASH)
        assert reversal["reversal"] == "20.00" and reversal["adjustment"] == "0.00"
        assert client.get(reverse("backoffice_reconciliation"), {"from": "2026-11-30", "to": "2026-11-01"}
                          ).status_code == 400
        assert client.get(reverse("backoffice_reconciliation_csv"), {"currency": "XXX"}).status_code == 400


def test_the_finance_page_names_the_day_that_does_not_tie(month, client_for, operator):
    bankroll = Account.objects.get(player__isnull=True, kind=BANKROLL, currency="EUR")
    client = client_for(operator)
    with broken_ledger(), time_machine.travel(TODAY, tick=False):
        _write_past_the_services(day=14, legs=[(bankroll.pk, 1_00, None)])
        text = client.get(reverse("backoffice_reconciliation"),
                                        {"from": "2026-11-13", "to": "2026-11-14", "currency": "EUR"}).content.decode()
    assert "1 day of this period does not tie: 2026-11-14 EUR." in text
    assert "Adjustment movements sum to 1.00 EUR over the account kinds, not 0" in text


def test_the_reconciliation_reads_a_fixed_number_of_statements_whatever_the_period(month):
    counts = []
    for start in (date(2026, 11, 29), date(2026, 11, 1)):
        with CaptureQueriesContext(connection) as queries:
            reconciliation_days(start=start, end=date(2026, 11, 30), now=TODAY)
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 12, counts


def test_the_nightly_command_says_whether_the_days_tie(month):
    from django.core.management import CommandError, call_command

    out = io.StringIO()
    with time_machine.travel(TODAY, tick=False):
        call_command("reconcile", "--from", "2026-11-01", stdout=out)  # to yesterday, the 30th
        assert out.getvalue().strip() == "30 days from 2026-11-01 to 2026-11-30 tie (EUR, SEK)."
        bankroll = Account.objects.get(player__isnull=True, kind=BANKROLL, currency="EUR")
        err = io.StringIO()
        with broken_ledger(), pytest.raises(CommandError, match="1 of 2 days do not tie"):
            _write_past_the_services(day=14, legs=[(bankroll.pk, 1_00, None)])
            call_command("reconcile", "--from", "2026-11-13", "--to", "2026-11-14", "--currency", "EUR", stderr=err)
        assert "2026-11-14 EUR [zero_sum] Adjustment movements sum to 1.00 EUR" in err.getvalue()
        with pytest.raises(CommandError, match="after today"):
            call_command("reconcile", "--to", "2026-12-05")

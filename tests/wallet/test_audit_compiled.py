"""The audit's queries are compiled once per process and run again (wallet.compiled_query): a cached query must
find what is broken after its first run, bind the times of each run afresh, and give the rows the queryset gives."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from rounds import stranded_money
from rounds.models import Round, RoundState
from tests.factories import BetFactory, DepositFactory
from wallet import audit, compiled_query
from wallet.audit import ledger_audit_run
from wallet.compiled_query import CompiledQuery, queries_run
from wallet.models import Account, Bet, Entry

pytestmark = [pytest.mark.django_db, pytest.mark.no_audit, pytest.mark.usefixtures("roles")]

AUDIT_QUERIES = {
    **{name: value for name, value in vars(audit).items() if isinstance(value, CompiledQuery)},
    **{name: value for name, value in vars(stranded_money).items() if isinstance(value, CompiledQuery)},
}


def bound(query: CompiledQuery, now):
    return query(**{name: now - stranded_money.STUCK_AFTER for name in query.params})


def test_every_audit_query_is_compiled_once_and_reused_on_postgresql():
    assert compiled_query._pipeline(connection) is not None  # and they are sent together, in one round trip
    assert len(AUDIT_QUERIES) == 10
    for name, query in AUDIT_QUERIES.items():
        compiled = query.compiled(connection)
        assert compiled is not None, name
        assert query.compiled(connection) is compiled
    # The times are parameters of the cached SQL, never values in it.
    assert [name for _position, name in AUDIT_QUERIES["_STUCK"].compiled(connection).slots] == ["stuck_before"] * 2
    assert [name for _, name in AUDIT_QUERIES["_PENDING_STAKES"].compiled(connection).slots] == ["open_after"]


def test_a_discrepancy_made_after_the_first_run_is_found(player):
    bet = BetFactory(player=player, amount=10_00)
    assert ledger_audit_run() == []  # the queries are compiled (or already were) and ran on a sound ledger
    Account.objects.filter(player=player).update(balance=11_00)
    Bet.objects.create(account=bet.account, hold_transaction=bet.hold_transaction, amount=3_00, kind="ghost")
    assert [(d.check, d.ids) for d in ledger_audit_run()] == [
        ("player_balance", {"account": bet.account_id, "player": player.pk}),
        ("in_play", {"kind": "house_bets_in_play", "currency": "EUR"}),
    ]
    assert ledger_audit_run() == ledger_audit_run()


def test_each_run_binds_its_own_time(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    now = timezone.now()
    assert ledger_audit_run(now=now) == []
    [held] = ledger_audit_run(now=now + stranded_money.HELD_TOO_LONG + timedelta(minutes=10))
    assert held.check == "round_stakes_held" and "(70 minutes)" in held.message
    assert ledger_audit_run(now=now) == []
    Round.objects.filter(pk=r.id).update(state=RoundState.SETTLING, settling_at=now)
    assert ledger_audit_run(now=now) == []
    [stuck] = ledger_audit_run(now=now + stranded_money.STUCK_AFTER + timedelta(minutes=1))
    assert stuck.check == "round_stuck" and "(6 minutes)" in stuck.message
    assert ledger_audit_run(now=now) == []


def test_the_compiled_rows_are_the_querysets_rows(play, free_bet_table, funded, monkeypatch):
    player = funded()
    deposit = DepositFactory(player=player, amount=20_00)
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    # Something for each ledger query to name: a wrong balance, a house entry with a running balance that
    # unbalances its transaction.
    Account.objects.filter(player=player).update(balance=1)
    house = Account.objects.filter(player__isnull=True).exclude(entries__transaction=deposit).first()
    with transaction.atomic():  # rolled back: PostgreSQL refuses an unbalanced transaction when the test ends
        Entry.objects.create(transaction=deposit, account=house, amount=5, balance_after=5)
        now = timezone.now()
        queries = [bound(query, now + stranded_money.HELD_TOO_LONG) for query in AUDIT_QUERIES.values()]
        expected = [query.evaluate("default") for query in queries]
        named = dict(zip(AUDIT_QUERIES, expected, strict=True))
        assert named["_PLAYER_BALANCES"] and named["_HOUSE_RUNNING_BALANCES"] and named["_PENDING_STAKES"]
        assert named["_UNBALANCED"] == [{"transaction_id": deposit.pk, "account__currency": "EUR", "total": 5}]
        assert queries_run(queries) == expected
        monkeypatch.setattr(compiled_query, "_pipeline", lambda connection: None)  # one statement at a time
        assert queries_run(queries) == expected
        transaction.set_rollback(True)


def test_a_query_whose_parameter_is_not_used_as_given_is_built_on_every_run():
    later = CompiledQuery(lambda after: Entry.objects.filter(created_at__gt=after + timedelta(days=1))
                          .values_list("id"), "after")
    assert later.compiled(connection) is None
    DepositFactory()
    now = timezone.now()
    assert queries_run([later(after=now - timedelta(days=2))]) == [list(Entry.objects.values_list("id"))]
    assert queries_run([later(after=now)]) == [[]]


def test_a_plain_check_runs_beside_the_compiled_ones(monkeypatch):
    found = audit.Discrepancy("plain", "a plain check's finding")
    monkeypatch.setitem(audit._checks, "plain", (audit.LEDGER, lambda *, now: [found]))
    DepositFactory()
    assert ledger_audit_run() == [found]

"""A common-draw cash bet in one statement (rounds.placement_sql): it writes what the services' path writes, and
leaves to that path everything it does not take (so every refusal is still the services' own)."""

import pytest
from django.db import connection, transaction
from django.utils import timezone

from rounds import errors
from rounds.models import RoundBet, RoundEvent, RoundRequest, Spot
from rounds.placement_sql import FUNCTION_SQL
from rounds.services import placement
from tests.factories import new_key
from tests.helpers import cash
from wallet import errors as wallet_errors
from wallet.audit import ledger_audit_run
from wallet.keys import CLIENT_PREFIX
from wallet.models import Bet, LedgerTransaction
from wallet.services import BetHoldSpec, bet_hold
from wallet.services.ledger import _fingerprint
from wallet.sql import HOLD_FUNCTION_SQL

pytestmark = pytest.mark.django_db


def written(result) -> dict:
    """What one placement wrote, each id checked against the row it names and left out, so two placements
    compare equal when they wrote the same."""
    bets = list(RoundBet.objects.filter(pk__in=result["bets"]).select_related("wallet_bet").order_by("id"))
    assert [b.pk for b in bets] == result["bets"]
    spot = Spot.objects.get(pk=result["spot"])
    txn = LedgerTransaction.objects.get(pk=bets[0].wallet_bet.hold_transaction_id)
    assert {b.wallet_bet.hold_transaction_id for b in bets} == {txn.pk}
    for b in bets:
        assert (b.round_id, b.spot_id, b.wallet_bet.meta) == (spot.round_id, spot.pk,
                                                              {"round": spot.round_id, "spot": spot.pk})
    [event] = RoundEvent.objects.filter(round_id=spot.round_id, kind="bets_placed", payload__bets__0__id=bets[0].pk)
    payload = event.payload
    assert (event.actor_id, payload["spot"].pop("id"), payload["spot"].pop("player")) == (
        spot.player_id, spot.pk, spot.player_id)
    assert [(x.pop("id"), x.pop("wallet_bet")) for x in payload["bets"]] == [(b.pk, b.wallet_bet_id) for b in bets]
    request = RoundRequest.objects.get(user=spot.player, result=result)
    holds = [[spot.player_id, b.wallet_bet.amount, "EUR", "cash", b.wallet_bet.kind, b.wallet_bet.reference,
              b.wallet_bet.meta] for b in bets]
    fingerprint = _fingerprint("bet_hold", {"holds": holds, "reference": txn.reference, "meta": txn.meta,
                                            "actor": None})
    assert txn.meta == {"game": txn.meta["game"], "round": spot.round_id}
    entries = sorted((e.account.kind, e.amount, e.balance_after) for e in txn.entries.select_related("account"))
    return {
        "spot": (spot.seat, spot.behind, spot.currency, spot.status, spot.void_reason, spot.confirmed_through),
        "bets": [(b.kind, b.hand_index, b.amount, b.currency, b.funding, b.wallet_bet.kind, b.wallet_bet.amount,
                  b.wallet_bet.reference) for b in bets],
        "transaction": (txn.kind, txn.reference, txn.actor_id, txn.meta["game"], txn.reason,
                        txn.fingerprint == fingerprint, txn.idempotency_key.startswith(f"{CLIENT_PREFIX}{spot.player_id}:bets_place:")),
        "entries": entries,
        "event": (event.actor_kind, payload),
        "request": (request.operation, request.fingerprint != "", request.round_id == spot.round_id),
    }


def test_a_common_draw_bet_is_one_statement_and_writes_what_the_services_path_writes(
        play, free_bet_table, funded, django_assert_num_queries, monkeypatch):
    first, second = funded(), funded()
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})  # the round's config is in this process's memo from here on
    bets = {"main": 1000, "hot3": 200, "any_pair": 100}
    with django_assert_num_queries(1):
        fast = r.bet(first, bets)
    with monkeypatch.context() as patched:
        patched.setattr("rounds.services.betting.bet_place_one_statement", lambda **kwargs: None)
        slow = r.bet(second, bets)
    assert written(fast) == written(slow)
    assert written(fast)["transaction"][5:] == (True, True)  # the wallet's own fingerprint and client key
    assert cash(first) == cash(second) == 1_000_00 - 1300
    # The same spot again: the stakes already on it count against the limits, under its lock.
    with django_assert_num_queries(1):
        again = r.bet(first, {"main": 2000})
    assert again["spot"] == fast["spot"]
    with pytest.raises(errors.BetLimitError, match="between 1.00 EUR and 5,000.00 EUR; 5,000.02 EUR is not"):
        r.bet(first, {"main": 497_002})
    assert ledger_audit_run() == []


def test_a_repeated_key_replays_and_a_reused_key_is_a_conflict(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})
    key = new_key()
    first = r.bet(player, {"main": 1000}, key=key)
    assert r.bet(player, {"main": 1000}, key=key) == {**first, "replayed": True}
    with pytest.raises(Exception, match="already used for a different request"):
        r.bet(player, {"main": 2000}, key=key)
    assert Bet.objects.filter(account__player=player).count() == 1
    assert cash(player) == 1_000_00 - 1000


@pytest.mark.parametrize(("case", "bets"), [
    ("short", {"main": 1000}), ("limit", {"main": 600_000}), ("loss_limit", {"main": 1000}),
    ("closed", {"main": 1000}),
])
def test_what_the_function_does_not_take_writes_nothing_and_the_services_refuse_it(
        play, free_bet_table, funded, case, bets):
    from responsible import services as responsible
    from responsible.errors import LimitReached

    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})
    player = funded(cash=500 if case == "short" else 1_000_00)
    if case == "loss_limit":
        responsible.limit_set(player=player, kind="loss", period="day", currency="EUR", value=500)
    if case == "closed":
        r.close()

    def counts():
        return (Spot.objects.count(), Bet.objects.count(), RoundRequest.objects.count(),
                LedgerTransaction.objects.count(), RoundEvent.objects.count())

    before = counts()
    assert placement.bet_place_one_statement(round_id=r.id, player=player, currency="EUR", bets=bets,
                                             idempotency_key=new_key(), now=timezone.now()) is None
    assert counts() == before
    expected = {"short": wallet_errors.InsufficientFunds, "limit": errors.BetLimitError, "loss_limit": LimitReached,
                "closed": errors.IllegalTransition}[case]
    with pytest.raises(expected):
        r.bet(player, bets)
    assert counts() == before


def test_the_database_runs_the_function_text_of_rounds_placement_sql():
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = 'rounds_bet_place'")
        [(source,)] = cursor.fetchall()
    # The migrations freeze the text they ran; the module is what the code calls. They differ when the module
    # changed without a migration running the new text.
    assert source.strip() in FUNCTION_SQL, (
        "the database's rounds_bet_place is not rounds.placement_sql.FUNCTION_SQL: write a new migration that "
        "replaces the function (CREATE OR REPLACE with a frozen copy of the module's text)")


def test_both_holds_go_through_the_wallets_one_function(play, free_bet_table, funded):
    # One owner of the hold's rows: the placement's function writes no wallet row of its own...
    assert "INSERT INTO wallet_" not in FUNCTION_SQL and "UPDATE wallet_" not in FUNCTION_SQL
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})  # the round's config memoised, the house's EUR in-play account open
    player = funded()
    # ...and, with the wallet's function made to refuse every call (rolled back with the test), neither the
    # wallet's bet_hold nor the placement's function holds anything without it.
    head, _, rest = HOLD_FUNCTION_SQL.partition("$fn$")
    refusing = head + "$fn$ BEGIN RAISE EXCEPTION 'the shared hold ran' USING ERRCODE = 'RB999'; END $fn$"
    with connection.cursor() as cursor:
        cursor.execute(refusing)
    with pytest.raises(Exception, match="the shared hold ran"), transaction.atomic():
        bet_hold(player=player, holds=[BetHoldSpec(1000, "EUR")], idempotency_key=new_key(), durable=False)
    with pytest.raises(Exception, match="the shared hold ran"), transaction.atomic():
        placement.bet_place_one_statement(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                          idempotency_key=new_key(), now=timezone.now())
    assert cash(player) == 1_000_00

"""The lock order, proved the way the wallet proves its own: a competing transaction holds one row and the test
looks, from a third connection, at which rows the waiting service already holds. Round -> spot -> account:
a bet, a disconnection or an undo waiting for the player's account already holds the round and the spot; one waiting
for the spot holds no account yet. And the compare-and-set transition: of two from one state, one wins."""

import threading

import pytest
from django.db import OperationalError, connection, connections, transaction

from rounds import errors, services
from rounds.models import ActorKind, Round, RoundState, Spot
from rounds.services._common import _transition
from tests.factories import new_key
from tests.helpers import RowLock, wait_for
from wallet.models import Account

pytestmark = pytest.mark.django_db(transaction=True)


def locked_by_another(sql: str, params) -> bool:
    """Whether another transaction holds a lock that this FOR UPDATE NOWAIT collides with."""
    with connections["default"].cursor() as cursor:
        try:
            with transaction.atomic():
                cursor.execute(sql + " FOR UPDATE NOWAIT", params)
                return False
        except OperationalError:
            return True


def waiting_backend(pid_box) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid_box[0]])
        row = cursor.fetchone()
    return bool(row and row[0] == "Lock")


def in_background(call):
    """Run call() on its own connection; returns (thread, its backend pid box, its result box)."""
    pid, result = [], []

    def run():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pid.append(cursor.fetchone()[0])
            result.append(call())
        except Exception as error:  # noqa: BLE001 - the test inspects it
            result.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    wait_for(lambda: pid, what="the service's connection")
    return thread, pid, result


@pytest.fixture
def betting(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    spot = Spot.objects.get(pk=r.bet(player, {"main": 1000})["spot"])
    account = Account.objects.get(player=player, kind="player_cash", currency="EUR")
    return r, player, spot, account


@pytest.mark.parametrize("service", ["bet", "disconnect", "undo"])
def test_waiting_for_the_account_the_service_already_holds_the_round_and_the_spot(betting, service):
    r, player, spot, account = betting
    call = {
        "bet": lambda: services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                           idempotency_key=new_key()),
        "disconnect": lambda: services.player_disconnect(round_id=r.id, player=player),
        "undo": lambda: services.bets_undo(round_id=r.id, player=player, idempotency_key=new_key()),
    }[service]
    with RowLock("SELECT id FROM wallet_account WHERE id = %s FOR UPDATE", [account.pk]):
        thread, pid, result = in_background(call)
        wait_for(lambda: waiting_backend(pid), what=f"the {service} to wait for the account")
        assert locked_by_another("SELECT id FROM rounds_spot WHERE id = %s", [spot.pk]), "spot not held"
        assert locked_by_another("SELECT id FROM rounds_round WHERE id = %s", [r.id]), "round not held"
        assert not result
    thread.join(10)
    assert isinstance(result[0], dict), result


@pytest.mark.parametrize("service", ["bet", "disconnect", "undo"])
def test_waiting_for_the_spot_the_service_holds_no_account_yet(betting, service):
    r, player, spot, account = betting
    call = {
        "bet": lambda: services.bets_place(round_id=r.id, player=player, currency="EUR", bets={"main": 1000},
                                           idempotency_key=new_key()),
        "disconnect": lambda: services.player_disconnect(round_id=r.id, player=player),
        "undo": lambda: services.bets_undo(round_id=r.id, player=player, idempotency_key=new_key()),
    }[service]
    with RowLock("SELECT id FROM rounds_spot WHERE id = %s FOR UPDATE", [spot.pk]):
        thread, pid, result = in_background(call)
        wait_for(lambda: waiting_backend(pid), what=f"the {service} to wait for the spot")
        assert not locked_by_another("SELECT id FROM wallet_account WHERE id = %s", [account.pk])
        assert locked_by_another("SELECT id FROM rounds_round WHERE id = %s", [r.id]), "round not held"
    thread.join(10)
    assert isinstance(result[0], dict), result


def test_of_two_transitions_from_one_state_exactly_one_wins_and_the_other_is_told(play, free_bet_table):
    r = play(free_bet_table)
    barrier = threading.Barrier(2)
    outcomes = {}

    def move(to):
        try:
            with transaction.atomic():
                round = Round.objects.get(pk=r.id)  # read, not locked: the update itself compares the state
                barrier.wait()
                fields = {"voided_at": round.opened_at} if to == RoundState.VOIDED else {}
                _transition(round, to, now=round.opened_at, actor_kind=ActorKind.SYSTEM, **fields)
            outcomes[to] = "won"
        except errors.IllegalTransition as error:
            outcomes[to] = str(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=move, args=(to,)) for to in (RoundState.BETTING_CLOSED, RoundState.VOIDED)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(outcomes.values(), key=lambda v: v != "won")[0] == "won"
    [lost] = [v for v in outcomes.values() if v != "won"]
    assert "changed meanwhile; reload it and try again" in lost
    winner = next(to for to, v in outcomes.items() if v == "won")
    assert Round.objects.get(pk=r.id).state == winner

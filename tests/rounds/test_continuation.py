"""The non-live continuation (rules.md, Disconnection: `non_live`), end to end through the API with a worker."""

from datetime import timedelta

import pytest
from django.utils import timezone

from rounds import selectors, services
from rounds.models import Continuation, RoundEvent, RoundState
from tests.helpers import cash
from tests.rounds.test_e2e import START, ApiTable
from wallet.audit import ledger_audit_run
from wallet.models import Bet, LedgerTransaction

pytestmark = [pytest.mark.worker]


def _get(table, player):
    response = table.client(player).get(table.url("continuation/"))
    assert response.status_code == 200
    return response.json()["continuations"]


def _seated_round(table, a, b):
    table.bet(a, {"main": 1000, "perfect_pairs": 100}, seat=1)
    table.bet(b, {"main": 1000}, seat=2)
    table.bet(b, {"main": 600}, seat=1, behind=True)
    table.close()


def _live_round_finish(table, b):
    for hours in (1, 2, 3):  # seat 1 has nobody deciding: the live timer plays it
        services.rounds_timers_sweep(now=timezone.now() + timedelta(hours=hours))
        if table.round.turn_seat == 2:
            break
    table.decide(b, "stand", seat=2)
    table.cards("Qs")  # dealer 7 Q = 17
    table.complete()
    return table.wait(RoundState.SETTLED)


def _all_resolved_and_replayed(table):
    round = table.round
    assert [str(d) for d in ledger_audit_run()] == []
    assert not Bet.objects.filter(reference=round.game_number, resolution__isnull=True).exists()
    replay = selectors.round_replay(round=round)
    assert (replay.differences, replay.error) == ([], "")
    return replay


def test_a_disconnection_between_deal_and_decisions_continues_non_live(
    celery_worker, client_for, operator, classic_table, funded
):
    a, b = funded(), funded()
    table = ApiTable(client_for, operator, "LB01")
    _seated_round(table, a, b)
    table.cards("Th", "9c", "7s", "6d", "9h")
    left = table.ok(table.client(a), table.url("leave/"))
    assert left["policy"] == "non_live" and len(left["continuations"]) == 1
    continuation = Continuation.objects.get(pk=left["continuations"][0])
    assert continuation.carried == {"player": ["Th", "6d"], "stream": [], "dealer": ["7s"]}
    # 8 decks less the five cards dealt before the disconnection
    assert len(continuation.shoe) == 416 - 5 and continuation.shoe.count("Th") == 7
    round = _live_round_finish(table, b)
    live = round.settlement["spots"]["seat1"]
    assert live["continuation"] is True and live["net"] == -100  # only the side bet is the live round's
    assert round.settlement["spots"][f"seat1-behind-p{b.pk}"]["result"] == {"hands": [-600]}  # follows live
    main_bet = Bet.objects.get(reference=round.game_number, round_bet__spot__seat=1, round_bet__kind="main")
    assert not hasattr(main_bet, "resolution")  # still held for the continuation

    # A decision before reconnecting is refused and changes nothing.
    refused = table.client(a).post(table.url("continuation/decisions/"), {"action": "stand", "seat": 1},
                                   content_type="application/json", HTTP_IDEMPOTENCY_KEY="c1")
    assert refused.status_code == 409 and refused.json()["code"] == "decision_refused"
    assert table.ok(table.client(a), table.url("continuation/reconnect/"))["continuations"] == [continuation.pk]
    again = table.client(a).post(table.url("continuation/reconnect/"), {}, content_type="application/json")
    assert again.status_code == 409
    shown = _get(table, a)[0]
    assert shown["carried"]["player"] == ["Th", "6d"] and "stand" in shown["may"]
    decided = table.client(a).post(table.url("continuation/decisions/"), {"action": "stand", "seat": 1},
                                   content_type="application/json", HTTP_IDEMPOTENCY_KEY="c2")
    assert decided.status_code == 200 and decided.json()["status"] == "finished"
    continuation.refresh_from_db()
    assert continuation.finished_by == "player" and continuation.dealer[0] == "7s"
    transactions = LedgerTransaction.objects.count()
    late = table.client(a).post(table.url("continuation/decisions/"), {"action": "hit", "seat": 1},
                                content_type="application/json", HTTP_IDEMPOTENCY_KEY="c3")
    assert late.status_code == 409 and LedgerTransaction.objects.count() == transactions
    assert cash(a) == START - 100 + continuation.settlement["net"]
    replay = _all_resolved_and_replayed(table)
    assert any(s["id"].endswith("continuation-seat1") for s in replay.scripts)
    assert RoundEvent.objects.filter(round=round, kind="continuation_cards").exists()


def _low_cards_on_top_of_the_continuation_shoe(monkeypatch):
    """A continuation's own cards come from a CSPRNG shoe; a natural among the first two (about one deal in twenty)
    leaves nothing to decide and finishes the continuation at once, so there would be nothing for a deadline to
    complete. Four low cards on top of the real shoe keep every later draw the shoe's own."""
    from rounds.services import continuation as continuation_services

    real = continuation_services.continuation_shoe

    def shoe(dealt):
        cards = real(dealt)
        for card in ("5h", "6s", "7c", "8d"):
            cards.remove(card)
            cards.insert(0, card)
        return cards

    monkeypatch.setattr(continuation_services, "continuation_shoe", shoe)


def test_a_disconnection_before_the_deal_is_completed_by_the_deadline_sweep(
    celery_worker, client_for, operator, classic_table, funded, monkeypatch
):
    _low_cards_on_top_of_the_continuation_shoe(monkeypatch)
    a, b = funded(), funded()
    table = ApiTable(client_for, operator, "LB01")
    _seated_round(table, a, b)
    left = table.ok(table.client(a), table.url("leave/"))
    continuation = Continuation.objects.get(pk=left["continuations"][0])
    assert continuation.carried == {"player": [], "stream": [], "dealer": []}
    assert len(continuation.first) == 2  # the server drew the position's own two cards
    table.cards("Th", "9c", "7s", "6d", "9h")  # the live seat is still dealt: its Bet Behind follows it
    _live_round_finish(table, b)
    assert services.continuations_sweep(now=timezone.now() + timedelta(hours=1)) == []  # not due yet
    assert services.continuations_sweep(now=timezone.now() + timedelta(hours=25)) == [continuation.pk]
    continuation.refresh_from_db()
    assert continuation.finished_by == "timeout" and continuation.settlement is not None
    assert services.continuations_sweep(now=timezone.now() + timedelta(hours=26)) == []  # once
    _all_resolved_and_replayed(table)


def test_a_disconnection_after_the_last_decision_settles_on_drawn_dealer_cards(
    celery_worker, client_for, operator, classic_table, funded
):
    a, b = funded(), funded()
    table = ApiTable(client_for, operator, "LB01")
    _seated_round(table, a, b)
    table.cards("Th", "9c", "7s", "6d", "9h")
    table.decide(a, "stand", seat=1)
    left = table.ok(table.client(a), table.url("leave/"))
    continuation = Continuation.objects.get(pk=left["continuations"][0])
    assert continuation.actions == ["stand"] and continuation.finished_at is not None  # nothing left to decide
    table.decide(b, "stand", seat=2)
    table.cards("Qs")
    table.complete()
    table.wait(RoundState.SETTLED)
    _all_resolved_and_replayed(table)


def test_a_disconnection_while_betting_is_open_refunds_and_starts_no_continuation(
    celery_worker, client_for, operator, classic_table, funded
):
    a = funded()
    table = ApiTable(client_for, operator, "LB01")
    table.bet(a, {"main": 1000}, seat=1)
    left = table.ok(table.client(a), table.url("leave/"))
    assert left["refunded"] is True and left["continuations"] == []
    assert not Continuation.objects.exists()

"""Voids and reversals give the money back in batches of players, each its own short transaction: a failure
mid-way leaves the batches already done committed and the round's cursor after them, and the next run resumes
exactly there: every player is made whole exactly once."""

import pytest
from django.db import OperationalError, connection

from rounds import services
from rounds.models import Round, RoundEvent
from tests.helpers import RowLock, cash
from wallet.models import Account

pytestmark = pytest.mark.django_db(transaction=True)


def common_draw_round(play, table, players, *, settle: bool):
    r = play(table)
    for player in players:
        r.bet(player, {"main": 1000})
    if settle:
        r.close()
        r.cards("8h", "9s", "8d", "7c")
        for player in players:
            r.decide(player, "stand")
        r.cards("Tc")
        r.complete()
        r.settle()
    return r


@pytest.mark.parametrize("how", ["void", "reverse"])
def test_a_refund_cut_off_mid_way_resumes_after_its_last_batch_and_pays_each_player_once(
        play, free_bet_table, funded, support, how):
    players = sorted([funded() for _ in range(5)], key=lambda p: p.pk)
    r = common_draw_round(play, free_bet_table, players, settle=how == "reverse")
    before = [cash(p) for p in players]  # after the hold (void) or the settlement (reverse)
    assert before[0] != 1_000_00
    stuck = Account.objects.get(player=players[2], kind="player_cash", currency="EUR")
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '200ms'")
    try:
        with RowLock("SELECT id FROM wallet_account WHERE id = %s FOR UPDATE", [stuck.pk]):
            with pytest.raises(OperationalError):
                if how == "reverse":
                    services.round_reverse(round_id=r.id, actor=support, reason="misdeal", batch_players=2)
                else:
                    services.round_void(round_id=r.id, reason="camera failure")
                    services.round_void_refunds(round_id=r.id, batch_players=2)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    round = Round.objects.get(pk=r.id)
    assert round.state == "voided"
    if how == "reverse":  # the void's own refunds may have been resumed by the worker meanwhile
        assert round.refunds_done_at is None and round.refunds_cursor == players[1].pk
        assert [cash(p) for p in players] == [1_000_00] * 2 + before[2:]

    # The resume (here, or by the worker the void queued, whichever locks the round first) finishes it once.
    services.round_void_refunds(round_id=r.id, batch_players=2)
    assert services.round_void_refunds(round_id=r.id, batch_players=2) is False
    assert [cash(p) for p in players] == [1_000_00] * 5
    round.refresh_from_db()
    assert round.refunds_done_at is not None
    batches = list(RoundEvent.objects.filter(round=round, kind="refunded").values_list("payload", flat=True))
    assert sum(batch["players"] for batch in batches) == 5

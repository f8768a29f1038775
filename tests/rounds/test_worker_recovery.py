"""The real worker heals a settlement cut off by the database within seconds, without the recovery sweep; a
round that cannot settle is put before staff once, left alone by the sweeps, and retried when staff say so."""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from rounds import services
from rounds.models import Round, RoundBet, RoundEvent, RoundState
from tests.factories import new_key
from tests.helpers import RowLock, cash, wait_for
from wallet import services as wallet
from wallet.models import Account

pytestmark = [pytest.mark.worker]


def at_the_dealer(play, table, player):
    """A classic round with one seat standing on 20, the dealer's hand dealt (6 T 9) but not yet completed."""
    r = play(table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "6c", "Kd")  # seat 1, the dealer's up card, seat 1 (seated deal order)
    r.decide(player, "stand", seat=1)
    r.cards("Ts", "9s")
    return r


def backend_waiting_on_a_lock() -> int | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                       "pg_backend_pid() AND wait_event_type = 'Lock' AND query ILIKE '%%wallet_account%%'")
        row = cursor.fetchone()
    return row[0] if row else None


def test_a_settlement_whose_connection_is_killed_settles_within_seconds_without_the_sweep(
        celery_worker, play, classic_table, funded):
    player = funded()
    r = at_the_dealer(play, classic_table, player)
    accounts = list(Account.objects.filter(player=player).values_list("pk", flat=True))
    with RowLock("SELECT id FROM wallet_account WHERE id = ANY(%s) FOR UPDATE", [accounts]):
        r.complete()  # queues the settle; the worker blocks on the player's account
        pid = wait_for(backend_waiting_on_a_lock, what="the worker's settle to wait on the account")
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        cut_at = time.monotonic()
    wait_for(lambda: r.refresh().state == RoundState.SETTLED, timeout=10, interval=0.05,
             what="the round to settle after its worker lost the database")
    assert time.monotonic() - cut_at < 5
    assert r.round.attention_at is None
    assert cash(player) == 1_000_00 + 1000  # 20 against the dealer's 25: the seat wins even money


def test_a_round_that_cannot_settle_is_marked_for_staff_skipped_by_the_sweep_and_retried_by_staff(
        celery_worker, play, classic_table, funded, operator):
    player = funded()
    r = at_the_dealer(play, classic_table, player)
    [bet] = RoundBet.objects.filter(round=r.round)
    # A bet resolved outside its round: the round's settlement can never succeed as it stands.
    wallet.bet_resolve(resolutions=[wallet.BetResolutionSpec(bet.wallet_bet_id, 0)], idempotency_key=new_key())
    r.complete()
    round = wait_for(lambda: Round.objects.filter(pk=r.id, attention_at__isnull=False).first(), timeout=10,
                     what="the round to be marked for staff")
    assert round.state == RoundState.SETTLING
    assert "BetAlreadyResolved" in round.attention_reason or "already" in round.attention_reason.lower()
    later = timezone.now() + timedelta(hours=1)
    assert r.id not in services.rounds_recovery_sweep(now=later)["settling"]

    services.round_attention_retry(round_id=r.id, actor=operator, reason="checked the wallet bet")
    wait_for(lambda: RoundEvent.objects.filter(round_id=r.id, kind="attention_needed").count() == 2, timeout=10,
             what="the retried settlement to fail again and be marked again")
    retried = RoundEvent.objects.get(round_id=r.id, kind="attention_retried")
    assert retried.actor_id == operator.pk and retried.payload["reason"] == "checked the wallet bet"


@pytest.mark.django_db
def test_the_dashboard_and_the_round_page_say_in_plain_words_a_round_needs_staff_who_retry_it(
        client_for, play, classic_table, funded, operator, support):
    from django.urls import reverse

    r = at_the_dealer(play, classic_table, funded())
    r.complete()
    assert services.round_attention_flag(round_id=r.id, reason="The settlement failed (BetAlreadyResolved: x).")
    assert not services.round_attention_flag(round_id=r.id, reason="again")  # marked once
    game = r.round.game_number
    dashboard = client_for(operator).get(reverse("backoffice_dashboard")).content.decode()
    assert "1 round needs staff attention" in dashboard and game in dashboard
    page_url = reverse("backoffice_round", args=[game])
    page = client_for(support).get(page_url).content.decode()
    assert "This round needs staff attention" in page and "nobody has been paid" in page
    assert "BetAlreadyResolved: x" in page

    staff = client_for(support)
    retry_url = reverse("backoffice_round_retry", args=[game])
    staff.post(retry_url, {"reason": ""})
    assert Round.objects.get(pk=r.id).attention_at is not None  # no reason, nothing changed
    assert staff.post(retry_url, {"reason": "wallet bet checked"}).status_code == 302
    round = Round.objects.get(pk=r.id)
    assert round.attention_at is None and round.attention_reason == ""
    assert RoundEvent.objects.get(round=round, kind="attention_retried").payload["reason"] == "wallet bet checked"
    assert "needs staff attention" not in client_for(operator).get(reverse("backoffice_dashboard")).content.decode()

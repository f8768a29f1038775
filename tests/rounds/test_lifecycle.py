"""The life of a round: game numbers, the state machine, timers, pauses, closes and shoes."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction

from rounds import errors, services
from rounds.models import CardRecord, Round, RoundEvent, RoundState, Shoe
from tables import services as table_services
from tests.factories import RoundTableFactory
from tests.helpers import cash

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 30, 14, 22, 5, 123456, tzinfo=UTC)


def test_the_game_number_is_the_table_code_and_the_utc_start_to_the_second(free_bet_table, operator):
    round = services.round_open(table=free_bet_table, actor=operator, now=AT)
    assert round.game_number == "FB01-20261130-142205"
    assert RoundEvent.objects.get(round=round, kind="opened").payload["game_number"] == round.game_number


def test_rounds_in_the_same_second_differ_by_table_and_a_same_table_clash_is_numbered(
    free_bet_table, seated_table, operator
):
    first = services.round_open(table=free_bet_table, actor=operator, now=AT)
    other_table = services.round_open(table=seated_table, actor=operator, now=AT)
    assert other_table.game_number == "FS01-20261130-142205" != first.game_number
    services.round_void(round_id=first.pk, actor=operator, reason="camera failure")
    second = services.round_open(table=free_bet_table, actor=operator, now=AT)
    services.round_void(round_id=second.pk, actor=operator, reason="camera failure")
    third = services.round_open(table=free_bet_table, actor=operator, now=AT)
    assert (second.game_number, third.game_number) == ("FB01-20261130-142205-2", "FB01-20261130-142205-3")


def test_a_table_plays_one_round_at_a_time_and_the_database_says_so_too(play, free_bet_table, operator):
    r = play(free_bet_table)
    with pytest.raises(errors.IllegalTransition, match="still being played"):
        services.round_open(table=free_bet_table, actor=operator)
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(table=free_bet_table, shoe=r.round.shoe, game_number="FB01-X", config={},
                             config_version=1)


def test_a_round_opens_only_at_an_open_table_and_only_for_studio_staff(free_bet_table, operator, player):
    table_services.table_state_set(actor=None, table=free_bet_table, state="paused")
    with pytest.raises(errors.TableNotPlaying, match="paused"):
        services.round_open(table=free_bet_table, actor=operator)
    table_services.table_state_set(actor=None, table=free_bet_table, state="open")
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.round_open(table=free_bet_table, actor=player)
    assert not Round.objects.exists()


def test_a_round_keeps_the_configuration_it_opened_with(play, free_bet_table, funded):
    r = play(free_bet_table)
    table_services.table_update(actor=None, table=free_bet_table, charlie_cards=None)
    assert r.refresh().config["rules"]["charlie"] == 6
    assert r.round.config_version < type(free_bet_table).objects.get(pk=free_bet_table.pk).config_version


def test_illegal_transitions_are_refused_with_a_clear_error_and_change_nothing(play, free_bet_table, funded):
    r = play(free_bet_table)
    with pytest.raises(errors.CardRefused, match="No card is expected while round .* is betting open"):
        r.cards("Ah")
    with pytest.raises(errors.IllegalTransition, match="no dealer's hand"):
        r.complete()
    assert services.round_settle(round_id=r.id) is False
    r.bet(funded(), {"main": 1000})
    r.close()
    with pytest.raises(errors.IllegalTransition, match="betting closed: it cannot become betting closed"):
        r.close()
    assert r.refresh().state == RoundState.BETTING_CLOSED
    assert list(RoundEvent.objects.filter(round=r.round, kind="state").values_list("payload__to", flat=True)) == [
        "betting_closed"]


def test_the_betting_timer_closes_betting_through_the_sweep_and_a_round_without_bets_settles_empty(
    play, free_bet_table
):
    r = play(free_bet_table)
    assert services.rounds_timers_sweep(now=r.round.deadline - timedelta(seconds=1)) == []
    assert services.rounds_timers_sweep(now=r.round.deadline) == [r.id]
    assert r.refresh().state == RoundState.SETTLING
    assert services.round_settle(round_id=r.id) is True
    assert r.refresh().state == RoundState.SETTLED and r.round.settlement["spots"] == {}


def test_a_paused_table_freezes_its_round_and_resuming_restarts_the_timer(play, free_bet_table, funded, operator):
    player = funded()
    r = play(free_bet_table)
    services.table_pause(table=free_bet_table, actor=operator, reason="shuffler jammed")
    with pytest.raises(errors.TableNotPlaying, match="paused"):
        r.bet(player, {"main": 1000})
    with pytest.raises(errors.TableNotPlaying):
        r.close()
    assert services.rounds_timers_sweep(now=r.round.deadline + timedelta(hours=1)) == []
    assert r.refresh().state == RoundState.BETTING_OPEN
    services.table_resume(table=free_bet_table, actor=operator)
    assert r.refresh().deadline > r.round.opened_at + timedelta(seconds=100)
    r.bet(player, {"main": 1000})
    kinds = list(RoundEvent.objects.filter(round=r.round).values_list("kind", flat=True))
    assert kinds[-3:] == ["paused", "resumed", "bets_placed"]


def test_closing_a_table_voids_its_round_and_refunds_every_stake(play, free_bet_table, funded, operator):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000, "21+3": 200})
    assert cash(player) == 1_000_00 - 1200
    services.table_close(table=free_bet_table, actor=operator, reason="end of shift")
    assert r.refresh().state == RoundState.VOIDED and r.round.void_kind == "table_closed"
    assert services.round_void_refunds(round_id=r.id) is True
    assert services.round_void_refunds(round_id=r.id) is False
    assert cash(player) == 1_000_00


def test_the_recovery_sweep_finds_stuck_rounds_and_voids_rounds_at_tables_closed_elsewhere(
    play, free_bet_table, seated_table, funded
):
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})
    table_services.table_state_set(actor=None, table=free_bet_table, state="closed")
    settling = play(seated_table)
    settling.close()  # no bets: settling at once; its task never ran (nothing commits in this test)
    found = services.rounds_recovery_sweep(now=settling.refresh().settling_at + timedelta(seconds=31))
    assert found == {"settling": [settling.id], "refunds": [], "closed": [r.id]}
    assert r.refresh().state == RoundState.VOIDED
    services.round_void_refunds(round_id=r.id)


def test_after_a_broker_loss_the_sweep_queues_every_waiting_round_however_recent(play, seated_table):
    settling = play(seated_table)
    settling.close()  # no bets: settling at once; its task never ran (nothing commits in this test)
    at = settling.refresh().settling_at
    assert services.rounds_recovery_sweep(now=at)["settling"] == []  # too recent for the periodic sweep
    assert services.rounds_recovery_sweep(now=at, lost_messages=True)["settling"] == [settling.id]


def test_a_new_shoe_burns_as_many_cards_as_the_shown_card_and_counts_it(classic_table, operator):
    with pytest.raises(errors.InvalidCard):
        services.shoe_start(table=classic_table, actor=operator, burn_card="1x")
    shoe = services.shoe_start(table=classic_table, actor=operator, burn_card="7h")
    again = services.shoe_start(table=classic_table, actor=operator, burn_card="Kd")
    assert (shoe.number, shoe.burned, again.number, again.burned) == (1, 7, 2, 10)
    assert list(Shoe.objects.filter(table=classic_table, ended_at__isnull=True)) == [again]


def test_a_copy_more_than_the_shoe_holds_is_a_malfunction_that_voids_the_round(play, funded):
    table = RoundTableFactory(profile="free_bet", code="ONE1", decks=1)
    player = funded()
    first = play(table)
    first.bet(player, {"main": 1000})
    first.close()
    first.cards("Ah", "9c", "7d", "8s")
    first.decide(player, "stand")
    first.complete()
    assert first.settle().state == RoundState.SETTLED
    second = play(table)
    second.bet(player, {"main": 1000})
    second.close()
    outcome = second.cards("Ah")[0]
    assert outcome["malfunction"] == "card Ah appears 2 times in shoe 1, but 1 decks hold 1"
    assert second.refresh().state == RoundState.VOIDED and second.round.void_kind == "malfunction"
    assert CardRecord.objects.filter(round=second.round, card="Ah").exists()  # the fact is kept
    services.round_void_refunds(round_id=second.id)
    assert cash(player) == 1_000_00 + 1000

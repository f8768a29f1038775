"""Confirmation (the Live Blackjack text): bets confirmed by hand, or automatically at the end of betting time where
the table does so and the player kept it on; unconfirmed bets go back at the close, exactly once and audited;
Multiple Bets; Deal Now's limits."""

import pytest

from players.models import PlayerProfile
from rounds import errors, services
from rounds.models import BetReturn, RoundEvent, RoundState, Spot
from tables.services import table_update
from tests.factories import RoundTableFactory, new_key
from tests.helpers import cash
from tests.rounds.test_concurrency import race
from wallet.models import BetResolution

pytestmark = pytest.mark.django_db

START = 1_000_00


@pytest.fixture
def by_hand_table(db):
    """A Live Blackjack table without auto-confirmation: every bet must be confirmed by hand."""
    return RoundTableFactory(profile="classic", code="LBH1", auto_confirm=False)


def confirm(r, player):
    return services.bets_confirm(round_id=r.id, player=player)


def undo(r, player, **kwargs):
    return services.bets_undo(round_id=r.id, player=player, idempotency_key=new_key(), **kwargs)


def by_hand(player):
    PlayerProfile.objects.update_or_create(player=player, defaults={"auto_confirm_bets": False})


def test_unconfirmed_bets_go_back_at_the_close_and_confirmed_ones_are_dealt(play, by_hand_table, funded):
    sure, unsure = funded(), funded()
    r = play(by_hand_table)
    r.bet(sure, {"main": 1000}, seat=1)
    r.bet(unsure, {"main": 2000, "21+3": 500}, seat=2)
    assert confirm(r, sure)["confirmed"]
    r.close()
    assert cash(sure) == START - 1000 and cash(unsure) == START
    live = Spot.objects.filter(round=r.round, voided_at__isnull=True)
    assert list(live.values_list("seat", flat=True)) == [1]
    event = RoundEvent.objects.get(round=r.round, kind="unconfirmed_returned")
    assert event.payload["players"] == [unsure.pk] and len(event.payload["returned"]) == 2
    # The deal goes to seat 1 only; the close ran once, so the stakes went back once.
    assert r.cards("Th")[0]["seat"] == 1
    assert BetResolution.objects.filter(outcome="voided").count() == 2


def test_confirmed_bets_cannot_be_undone_and_without_multiple_bets_no_more_bets_come(play, by_hand_table, funded):
    player = funded()
    r = play(by_hand_table)
    r.bet(player, {"main": 1000}, seat=1)
    confirm(r, player)
    with pytest.raises(errors.BetRefused, match="confirmed bets cannot be undone"):
        undo(r, player)
    with pytest.raises(errors.BetRefused, match="no Multiple Bets"):
        r.bet(player, {"main": 1000}, seat=2)
    assert confirm(r, player)["confirmed"] == []  # again: nothing new to confirm


def test_with_multiple_bets_later_bets_need_their_own_confirmation(play, by_hand_table, funded, operator):
    table_update(table=by_hand_table, actor=operator, reason="Multiple Bets on", multiple_bets=True)
    player = funded()
    r = play(by_hand_table)
    assert r.round.config["features"]["multiple_bets"] is True
    r.bet(player, {"main": 1000}, seat=1)
    confirm(r, player)
    r.bet(player, {"main": 1000}, seat=1)  # taken after the confirmation
    r.bet(player, {"perfect_pairs": 500}, seat=1)
    undo(r, player)  # the side bet: not confirmed yet
    r.close()
    # The later main bet was not confirmed: it goes back on its own, the confirmed one stands.
    returned = BetReturn.objects.get(round=r.round, reason="unconfirmed")
    assert (returned.reason, returned.bet.amount) == ("unconfirmed", 1000)
    assert cash(player) == START - 1000
    assert Spot.objects.get(round=r.round, seat=1).voided_at is None


def test_auto_confirmation_has_no_confirm_and_keeps_every_bet(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    with pytest.raises(errors.BetRefused, match="confirms your bets when betting time ends"):
        confirm(r, player)
    undo_then = r.bet(player, {"main": 500 * 2}, seat=1)
    assert undo(r, player)["returned"] == undo_then["bets"]  # until betting ends, bets can still be undone
    r.advance(now=r.round.deadline)  # the betting time ends
    assert r.refresh().state == RoundState.BETTING_CLOSED
    assert cash(player) == START - 1000
    spot = Spot.objects.get(round=r.round, voided_at__isnull=True)
    assert spot.confirmed_through is not None


def test_a_player_who_switched_auto_confirmation_off_confirms_by_hand(play, classic_table, funded):
    keeps, forgot, careful = funded(), funded(), funded()
    by_hand(forgot)
    by_hand(careful)
    r = play(classic_table)
    r.bet(keeps, {"main": 1000}, seat=1)
    r.bet(forgot, {"main": 1000}, seat=2)
    r.bet(careful, {"main": 1000}, seat=3)
    confirm(r, careful)
    r.close()
    assert (cash(keeps), cash(forgot), cash(careful)) == (START - 1000, START, START - 1000)


def test_free_bet_tables_need_no_confirmation(play, free_bet_table, funded):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    with pytest.raises(errors.BetRefused, match="need no confirmation"):
        confirm(r, player)
    r.close()
    assert cash(player) == START - 1000


def test_the_player_setting_is_stored_through_the_api(client_for, personas):
    client = client_for(personas["player"])
    body = {"sound_on": True, "sound_volume": 50, "dealer_voice": True, "video_quality": "auto",
            "hide_others_chat": False, "auto_confirm_bets": False}
    response = client.put("/api/players/me/settings/", body, content_type="application/json")
    assert response.status_code == 200 and response.json()["auto_confirm_bets"] is False
    assert PlayerProfile.objects.get(player=personas["player"]).auto_confirm_bets is False
    del body["auto_confirm_bets"]  # left out: the stored choice stays
    assert client.put("/api/players/me/settings/", body, content_type="application/json").json()[
        "auto_confirm_bets"] is False


# --- Deal Now -------------------------------------------------------------------------------------------------

def test_deal_now_is_offered_only_up_to_the_tables_number_of_seated_players(play, classic_table, funded, operator):
    table_update(table=classic_table, actor=operator, reason="Deal Now for two", deal_now_players=2)
    a, b, c = funded(), funded(), funded()
    r = play(classic_table)
    for seat, player in enumerate((a, b, c), start=1):
        r.bet(player, {"main": 1000}, seat=seat)
    with pytest.raises(errors.BetRefused, match="at most 2 seated players; 3 are seated"):
        services.betting_confirm(round_id=r.id, player=a)
    undo(r, c, everything=True)
    assert services.betting_confirm(round_id=r.id, player=a)["betting_closed"] is False


def test_deal_now_comes_after_a_confirmation_by_hand_and_stops_bet_behind(play, by_hand_table, funded):
    seat_player, slower, behind = funded(), funded(), funded()
    r = play(by_hand_table)
    r.bet(seat_player, {"main": 1000}, seat=1)
    r.bet(slower, {"main": 1000}, seat=2)
    r.bet(behind, {"main": 1000}, seat=1, behind=True)
    with pytest.raises(errors.BetRefused, match="Confirm your bets first"):
        services.betting_confirm(round_id=r.id, player=seat_player)
    confirm(r, seat_player)
    assert services.betting_confirm(round_id=r.id, player=seat_player)["betting_closed"] is False
    with pytest.raises(errors.BetRefused, match="pressed Deal Now: the seat takes no more Bet Behind"):
        r.bet(funded(), {"main": 1000}, seat=1, behind=True)
    r.bet(behind, {"main": 1000}, seat=2, behind=True)  # seat 2's player has not pressed it
    confirm(r, slower)
    assert services.betting_confirm(round_id=r.id, player=slower)["betting_closed"] is True
    # The Bet Behind player never confirmed: both their bets went back when betting closed.
    assert r.refresh().state == RoundState.BETTING_CLOSED
    assert cash(behind) == START and cash(seat_player) == START - 1000


@pytest.mark.django_db(transaction=True)
def test_an_undo_racing_the_close_releases_each_stake_once(play, by_hand_table, funded):
    player = funded()
    for _ in range(3):
        r = play(by_hand_table)
        r.bet(player, {"main": 1000}, seat=1)
        r.bet(player, {"main": 1000}, seat=1)
        results = race(lambda r=r: undo(r, player), lambda r=r: services.round_betting_close(round_id=r.id))
        assert not [res for res in results if isinstance(res, Exception)
                    and not isinstance(res, errors.IllegalTransition)], results
        assert r.refresh().state == RoundState.SETTLING  # nothing confirmed: nothing to deal
        assert cash(player) == START
        services.round_settle(round_id=r.id)


def test_the_round_view_tells_the_game_client_how_its_bets_are_confirmed_and_who_pressed_deal_now(
    play, classic_table, by_hand_table, free_bet_table, funded
):
    from rounds.selectors import round_view

    automatic, manual, seated = funded(), funded(), funded()
    by_hand(manual)
    auto_round = play(classic_table)
    auto_round.bet(automatic, {"main": 1000}, seat=1)
    assert round_view(round=auto_round.refresh(), viewer=automatic)["confirmation"] == "automatic"
    assert round_view(round=auto_round.refresh(), viewer=manual)["confirmation"] == "by_hand"
    assert round_view(round=auto_round.refresh(), staff=True)["confirmation"] is None
    assert round_view(round=play(free_bet_table).refresh(), viewer=automatic)["confirmation"] == "not_needed"

    r = play(by_hand_table)
    r.bet(seated, {"main": 1000}, seat=1)
    r.bet(manual, {"main": 1000}, seat=2)
    view = round_view(round=r.refresh(), viewer=seated)
    assert view["confirmation"] == "by_hand"
    assert [(s["confirmed"], s["deal_now"]) for s in view["spots"]] == [(False, False)]
    confirm(r, seated)
    services.betting_confirm(round_id=r.id, player=seated)
    view = round_view(round=r.refresh(), viewer=seated)
    assert [(s["confirmed"], s["deal_now"]) for s in view["spots"]] == [(True, True)]

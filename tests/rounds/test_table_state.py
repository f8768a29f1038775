"""One owner of a table's state (rounds.services.table_state): the table page, the admin and the API all
open, pause, resume and close through it, so the round in play changes with the table, in one transaction."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from rounds import errors, services
from rounds.models import RoundEvent, RoundState
from tables.models import Table, TableChange
from tests.helpers import cash
from tests.rounds.test_api import API, post

pytestmark = pytest.mark.django_db

BOOLEANS = ("dealer_22_push", "double_after_split", "new_shoe_burn", "bet_behind", "multi_seat", "deal_now",
            "auto_confirm", "golden_chips", "multiple_bets", "multi_game")


def page_post(client, table: Table, state: str, reason: str = "studio lighting failure", **extra):
    """The table page's state buttons as staff use them; closing goes through its review first and confirms
    with the review's token."""
    from tests.helpers import review_field

    table.refresh_from_db()
    url = reverse("table_state", args=[table.code])
    values = {"state": state, "version": str(table.config_version), "reason": reason}
    if state == "closed" and reason.strip():
        review = client.post(url, values, **extra)
        if 'name="review"' in review.content.decode():
            values["review"] = review_field(review)
    return client.post(url, values | {"step": "confirm"}, **extra)


def admin_post(client, table: Table, state: str, reason: str = "studio lighting failure", **extra):
    """The admin's change form as a browser submits it: every setting as it is, the new state and the reason."""
    table.refresh_from_db()
    data = {"name": table.name, "state": state, "reason": reason, "dealing": table.dealing, "decks": str(table.decks),
            "charlie_cards": "" if table.charlie_cards is None else str(table.charlie_cards),
            "timeout_rule": table.timeout_rule, "seats": "" if table.seats is None else str(table.seats),
            "betting_seconds": str(table.betting_seconds), "decision_seconds": str(table.decision_seconds),
            "currencies": json.dumps(list(table.currencies)), "disconnect_policy": table.disconnect_policy,
            "non_live_deadline": str(table.non_live_deadline), "deal_now_players": str(table.deal_now_players)}
    data.update({name: "on" for name in BOOLEANS if getattr(table, name)})
    return client.post(reverse("admin:tables_table_change", args=[table.pk]), data, **extra)


def events(round) -> list[str]:
    return list(RoundEvent.objects.filter(round=round).order_by("id").values_list("kind", flat=True))


@pytest.mark.parametrize("door", ["page", "admin"])
def test_closing_a_table_from_its_page_or_the_admin_voids_the_round_in_play_at_once(
    door, client_for, operator, play, free_bet_table, funded
):
    player = funded()
    r = play(free_bet_table)
    r.bet(player, {"main": 1000})
    post_state = page_post if door == "page" else admin_post
    response = post_state(client_for(operator), free_bet_table, "closed")
    assert response.status_code == 302, response.content.decode()[:2000]
    # No sweep has run: the void committed with the table's state change.
    round = r.refresh()
    assert Table.objects.get(pk=free_bet_table.pk).state == "closed"
    assert (round.state, round.void_kind, round.voided_by) == (RoundState.VOIDED, "table_closed", operator)
    assert events(round)[-2:] == ["state", "voided"]
    assert TableChange.objects.filter(table=free_bet_table, after__state="closed").count() == 1
    assert services.round_void_refunds(round_id=r.id) is True
    assert cash(player) == 1_000_00


def test_pausing_from_the_page_writes_the_paused_event_and_freezes_the_round(
    client_for, operator, play, free_bet_table, funded
):
    player = funded()
    r = play(free_bet_table)
    assert page_post(client_for(operator), free_bet_table, "paused").status_code == 302
    paused = RoundEvent.objects.filter(round=r.round, kind="paused").get()
    assert (paused.actor, paused.actor_kind) == (operator, "staff")
    with pytest.raises(errors.TableNotPlaying, match="paused"):
        r.bet(player, {"main": 1000})
    assert r.refresh().state == RoundState.BETTING_OPEN


def test_resuming_from_the_page_restarts_the_deadline(client_for, operator, play, free_bet_table, funded):
    # Opened long ago: its betting time ran out while the table was paused.
    r = play(free_bet_table, now=timezone.now() - timedelta(hours=1))
    client = client_for(operator)
    assert page_post(client, free_bet_table, "paused").status_code == 302
    assert r.refresh().deadline < timezone.now()
    before = timezone.now()
    assert page_post(client, free_bet_table, "open").status_code == 302
    deadline = r.refresh().deadline
    assert deadline >= before + timedelta(seconds=r.round.config["timers"]["betting_seconds"])
    assert events(r.round)[-2:] == ["paused", "resumed"]
    r.bet(funded(), {"main": 1000})


def test_opening_a_closed_table_or_resuming_an_open_one_touches_no_round(client_for, operator, play,
                                                                          free_bet_table):
    r = play(free_bet_table)
    deadline = r.round.deadline
    assert page_post(client_for(operator), free_bet_table, "open").status_code == 302
    assert r.refresh().deadline == deadline
    assert events(r.round) == ["opened"]


def test_the_api_closes_through_the_same_owner_and_needs_a_reason(client_for, operator, play, free_bet_table,
                                                                   funded):
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})
    client = client_for(operator)
    url = f"{API}tables/{free_bet_table.code}/close/"
    assert post(client, url, {"reason": "  "}).status_code == 400
    assert (Table.objects.get(pk=free_bet_table.pk).state, r.refresh().state) == ("open", RoundState.BETTING_OPEN)
    response = post(client, url, {"reason": "end of shift"})
    assert response.status_code == 200 and response.json() == {"code": "FB01", "state": "closed"}
    assert (r.refresh().state, r.round.void_reason) == (RoundState.VOIDED, "Table closed: end of shift")
    services.round_void_refunds(round_id=r.id)


@pytest.mark.parametrize("persona", ["support", "player"])
@pytest.mark.parametrize("door", ["page", "admin", "api"])
def test_each_door_refuses_those_who_do_not_run_tables_and_changes_nothing(
    door, persona, client_for, personas, play, free_bet_table
):
    r = play(free_bet_table)
    client = client_for(personas[persona])
    if door == "page":
        response = page_post(client, free_bet_table, "closed")
    elif door == "admin":
        response = admin_post(client, free_bet_table, "closed")
    else:
        response = post(client, f"{API}tables/{free_bet_table.code}/close/", {"reason": "not mine to close"})
    if door == "admin" and persona == "player":
        # The admin shows a player only its login page.
        assert response.status_code == 302 and response.url.startswith(reverse("admin:login"))
    else:
        assert response.status_code == 403
    assert (Table.objects.get(pk=free_bet_table.pk).state, r.refresh().state) == ("open", RoundState.BETTING_OPEN)
    assert events(r.round) == ["opened"]


def test_a_stale_page_changes_neither_the_table_nor_its_round(client_for, operator, play, free_bet_table):
    r = play(free_bet_table)
    stale = Table.objects.get(pk=free_bet_table.pk).config_version - 1
    response = client_for(operator).post(reverse("table_state", args=[free_bet_table.code]),
                                         {"state": "closed", "version": str(stale)})
    assert response.status_code == 302
    assert (Table.objects.get(pk=free_bet_table.pk).state, r.refresh().state) == ("open", RoundState.BETTING_OPEN)


def test_closing_from_the_page_reviews_the_round_it_voids_and_who_reads_the_reason(client_for, operator, play,
                                                                                   free_bet_table, funded):
    """Closing voids the round in play: the page shows exactly that, and only the confirmation closes."""
    player = funded(username="closing", cash=100_00)
    r = play(free_bet_table)
    r.bet(player, {"main": 10_00})
    client = client_for(operator)
    free_bet_table.refresh_from_db()
    review = client.post(reverse("table_state", args=[free_bet_table.code]), {
        "state": "closed", "version": str(free_bet_table.config_version), "reason": "studio flooded"})
    page = review.content.decode()
    assert review.status_code == 200 and r.round.game_number in page and "10.00 EUR in stakes" in page
    assert "back to 1 player" in page and "the players of round" in page and "studio flooded" in page
    assert (Table.objects.get(pk=free_bet_table.pk).state, r.refresh().state) == ("open", RoundState.BETTING_OPEN)
    done = page_post(client, free_bet_table, "closed", reason="studio flooded")
    assert done.status_code == 302
    assert (Table.objects.get(pk=free_bet_table.pk).state, r.refresh().state) == ("closed", RoundState.VOIDED)

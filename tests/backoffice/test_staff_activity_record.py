"""Every staff action, done through its real page, admin form or API, writes exactly one staff-activity row with
who, what, why and where from; a refused one writes none; no row can be changed or deleted."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from accounts.models import StaffAction, StaffActionKind
from accounts.staffaudit import Origin, password_reset_record
from rounds.models import Round, RoundState
from tables.models import Table, TableChange
from tests.backoffice.scenarios import settle_classic
from tests.helpers import golden_chips_grant_post
from tests.tables.test_pages import _form_values

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
FROM = {"REMOTE_ADDR": "10.0.0.4", "HTTP_USER_AGENT": FIREFOX}
HTMX = {"HTTP_HX_REQUEST": "true"}


def only_row(**expected) -> StaffAction:
    rows = list(StaffAction.objects.all())
    assert len(rows) == 1, [(r.action, r.object_ref) for r in rows]
    row = rows[0]
    for name, value in expected.items():
        assert getattr(row, name) == value, (name, getattr(row, name), value)
    return row


def json_post(client, url, data=None, **extra):
    return client.post(url, json.dumps(data or {}), content_type="application/json", **extra)


# --- tables -----------------------------------------------------------------------------------------------

def test_editing_settings_on_the_page_records_the_change_with_its_reason(client_for, operator, free_bet_table):
    client = client_for(operator)
    url = reverse("table_edit", args=["FB01"])
    values = _form_values(client, url, reason="Six decks for the new shoe machine") | {"decks": "6"}
    assert client.post(url, values, **FROM).status_code == 302
    row = only_row(actor=operator, actor_role="operator", action=StaffActionKind.TABLE_CONFIGURED,
                   object_kind="table", object_ref="FB01", reason="Six decks for the new shoe machine",
                   address="10.0.0.4", user_agent=FIREFOX)
    assert "decks: 8 → 6" in row.details["summary"]
    change = TableChange.objects.get(table=free_bet_table, version=row.details["version"])
    assert change.reason == "Six decks for the new shoe machine" and change.actor == operator


def test_a_change_without_a_reason_is_refused_on_the_page_and_writes_nothing(client_for, operator,
                                                                            free_bet_table):
    client = client_for(operator)
    url = reverse("table_edit", args=["FB01"])
    response = client.post(url, _form_values(client, url, reason="  ") | {"decks": "6"}, **FROM)
    assert response.status_code == 200 and "Give a reason" in response.content.decode()
    assert Table.objects.get(pk=free_bet_table.pk).decks == 8
    assert not StaffAction.objects.exists()
    limits = reverse("table_limits", args=["FB01"])
    response = client.post(limits, _form_values(client, limits, reason=""), **FROM)
    assert response.status_code == 200 and "Give a reason" in response.content.decode()
    assert not StaffAction.objects.exists() and TableChange.objects.filter(table=free_bet_table).count() == 1


def test_creating_a_table_limits_and_a_paytable_are_recorded_once_each(client_for, operator):
    client = client_for(operator)
    values = _form_values(client, reverse("table_new") + "?profile=classic", reason="New VIP table")
    values.update({"code": "VIP1", "name": "VIP", "currencies": "EUR"})
    assert client.post(reverse("table_new"), values, **FROM).status_code == 302
    from tests.helpers import confirm_fields

    limits = reverse("table_limits", args=["VIP1"])
    review = client.post(limits, _form_values(client, limits, reason="VIP limits") | {"main__EUR__max": "2000"},
                         **FROM)
    assert client.post(limits, confirm_fields(review), **FROM).status_code == 302
    paytable = reverse("table_paytable", args=["VIP1", "perfect_pairs"])
    review = client.post(paytable, _form_values(client, paytable, reason="Promotion") | {"perfect": "20"}, **FROM)
    assert client.post(paytable, confirm_fields(review), **FROM).status_code == 302
    rows = list(StaffAction.objects.order_by("id").values_list("action", "object_ref", "reason"))
    assert rows == [(StaffActionKind.TABLE_CREATED, "VIP1", "New VIP table"),
                    (StaffActionKind.TABLE_CONFIGURED, "VIP1", "VIP limits"),
                    (StaffActionKind.TABLE_CONFIGURED, "VIP1", "Promotion")]
    assert list(TableChange.objects.filter(table__code="VIP1").order_by("version").values_list("reason", flat=True)) \
        == ["New VIP table", "VIP limits", "Promotion"]


def test_a_pause_with_no_round_in_play_keeps_its_reason_on_the_table_and_its_page(client_for, operator,
                                                                                 free_bet_table):
    client = client_for(operator)
    url = reverse("table_state", args=["FB01"])
    refused = client.post(url, {"state": "paused", "version": str(free_bet_table.config_version), "reason": ""})
    assert refused.status_code == 302 and Table.objects.get(pk=free_bet_table.pk).state == "open"
    assert not StaffAction.objects.exists()
    client.post(url, {"state": "paused", "version": str(free_bet_table.config_version),
                      "reason": "studio lighting failure"}, **FROM)
    table = Table.objects.get(pk=free_bet_table.pk)
    assert (table.state, table.state_reason) == ("paused", "studio lighting failure")
    assert not Round.objects.filter(table=table).exists()
    only_row(action=StaffActionKind.TABLE_PAUSED, object_ref="FB01", reason="studio lighting failure",
             address="10.0.0.4")
    page = client.get(reverse("table_detail", args=["FB01"])).content.decode()
    assert "Paused: studio lighting failure" in page


def test_the_studio_api_records_pause_resume_and_close(client_for, operator, free_bet_table):
    client = client_for(operator)
    base = "/api/rounds/tables/FB01/"
    assert json_post(client, base + "pause/", {"reason": "camera reset"}, **FROM).status_code == 200
    assert json_post(client, base + "resume/", **FROM).status_code == 200
    assert json_post(client, base + "close/", {"reason": "end of shift"}, **FROM).status_code == 200
    assert json_post(client, base + "close/", {"reason": "again"}, **FROM).status_code == 200  # already closed
    rows = list(StaffAction.objects.order_by("id").values_list("action", "reason", "address"))
    assert rows == [(StaffActionKind.TABLE_PAUSED, "camera reset", "10.0.0.4"),
                    (StaffActionKind.TABLE_RESUMED, "", "10.0.0.4"),
                    (StaffActionKind.TABLE_CLOSED, "end of shift", "10.0.0.4")]


def test_an_admin_change_is_recorded_with_the_admin_form_reason(client_for, operator, free_bet_table):
    from tests.rounds.test_table_state import admin_post

    response = admin_post(client_for(operator), free_bet_table, "closed", reason="Studio flooded", **FROM)
    assert response.status_code == 302, response.content.decode()[:2000]
    only_row(action=StaffActionKind.TABLE_CLOSED, reason="Studio flooded", address="10.0.0.4", user_agent=FIREFOX)
    assert Table.objects.get(pk=free_bet_table.pk).state_reason == "Studio flooded"


def test_support_cannot_change_a_table_and_nothing_is_recorded(client_for, support, free_bet_table):
    client = client_for(support)
    response = client.post(reverse("table_state", args=["FB01"]),
                           {"state": "closed", "version": "1", "reason": "support tries"})
    assert response.status_code == 403
    assert json_post(client, "/api/rounds/tables/FB01/pause/", {"reason": "x"}).status_code == 403
    assert not StaffAction.objects.exists()


def test_starting_an_rtp_simulation_is_recorded(client_for, operator, free_bet_table):
    response = client_for(operator).post(reverse("table_rtp_start", args=["FB01"]), {"hands": "100000"},
                                         **HTMX, **FROM)
    assert response.status_code == 200
    row = only_row(action=StaffActionKind.RTP_SIMULATION_STARTED, object_ref="FB01")
    assert row.details["hands"] == 100_000


# --- rounds -----------------------------------------------------------------------------------------------

def test_a_void_from_the_round_page_is_recorded_with_the_game_number(client_for, support, in_play):
    url = reverse("backoffice_round_void", args=[in_play.round.game_number])
    client = client_for(support)
    from tests.helpers import confirm_fields

    review = client.post(url, {"step": "review", "reason": "Card misread"}, **HTMX, **FROM)
    assert not StaffAction.objects.exists()  # a review is not an action
    done = client.post(url, confirm_fields(review), **HTMX, **FROM)
    assert done.status_code == 200
    only_row(actor=support, actor_role="support", action=StaffActionKind.ROUND_VOIDED, object_kind="round",
             object_ref=in_play.round.game_number, reason="Card misread", address="10.0.0.4")


def test_a_void_and_a_reversal_through_the_api_are_recorded_and_a_refused_one_is_not(
    client_for, operator, player, play, classic_table, alice, bob, in_play
):
    game = in_play.round.game_number
    assert json_post(client_for(player), f"/api/rounds/{game}/void/", {"reason": "mine"}).status_code == 403
    assert json_post(client_for(operator), f"/api/rounds/{game}/void/", {"reason": ""}).status_code == 400
    assert not StaffAction.objects.exists()
    assert json_post(client_for(operator), f"/api/rounds/{game}/void/", {"reason": "Shuffler fault"},
                     **FROM).status_code == 200
    only_row(action=StaffActionKind.ROUND_VOIDED, object_ref=game, reason="Shuffler fault")
    settled = settle_classic(play, classic_table, alice, bob)
    assert json_post(client_for(operator), f"/api/rounds/{settled.game_number}/void/",
                     {"reason": "too late"}).status_code == 409
    response = json_post(client_for(operator), f"/api/rounds/{settled.game_number}/reverse/",
                         {"reason": "Dealer misread the total"}, **FROM)
    assert response.status_code == 200 and Round.objects.get(pk=settled.pk).state == RoundState.VOIDED
    assert list(StaffAction.objects.order_by("id").values_list("action", "object_ref")) == [
        (StaffActionKind.ROUND_VOIDED, game), (StaffActionKind.ROUND_REVERSED, settled.game_number)]


# --- players ----------------------------------------------------------------------------------------------

def test_golden_chips_from_the_player_page_are_recorded_once_even_when_the_form_is_sent_twice(
    client_for, operator, alice
):
    url = reverse("backoffice_player_golden_chips", args=[alice.pk])
    data = {"currency": "EUR", "amount": "25.00", "reason": "Birthday chips", "idempotency_key": "k-1"}
    client = client_for(operator)
    assert client.post(url, data, **FROM).status_code == 200  # the review: nothing recorded yet
    assert not StaffAction.objects.exists()
    for _ in range(2):  # the same confirmation again: one grant
        _, confirmed = golden_chips_grant_post(client, alice, amount="25.00", reason="Birthday chips", key="k-1",
                                               **FROM)
        assert confirmed.status_code == 200
    row = only_row(action=StaffActionKind.GOLDEN_CHIPS_GRANTED, object_kind="player", object_ref=str(alice.pk),
                   object_label="alice_plays", reason="Birthday chips", address="10.0.0.4")
    assert (row.details["amount"], row.details["currency"]) == (2500, "EUR")
    assert client.post(url, data | {"amount": "-5", "idempotency_key": "k-2"}).status_code == 302
    assert StaffAction.objects.count() == 1


def test_chat_moderation_and_notes_are_recorded(client_for, support, alice):
    client = client_for(support)
    chat = reverse("backoffice_player_chat", args=[alice.pk])
    client.post(chat, {"action": "disable", "reason": ""}, **FROM)  # refused: a reason is needed
    assert not StaffAction.objects.exists()
    client.post(chat, {"action": "disable", "reason": "Abusive language"}, **FROM)
    client.post(chat, {"action": "enable", "reason": "Apologised"}, **FROM)
    client.post(chat, {"action": "enable", "reason": "twice"}, **FROM)  # already enabled: no action
    client.post(reverse("backoffice_player_note", args=[alice.pk]), {"body": "Called about a bonus"}, **FROM)
    rows = list(StaffAction.objects.order_by("id").values_list("action", "object_label", "reason"))
    assert rows == [(StaffActionKind.CHAT_DISABLED, "alice_plays", "Abusive language"),
                    (StaffActionKind.CHAT_ENABLED, "alice_plays", "Apologised"),
                    (StaffActionKind.PLAYER_NOTE_ADDED, "alice_plays", "Called about a bonus")]


def test_a_player_cannot_moderate_and_nothing_is_recorded(client_for, player, alice):
    client = client_for(player)
    assert client.post(reverse("backoffice_player_chat", args=[alice.pk]),
                       {"action": "disable", "reason": "x"}).status_code == 403
    assert client.post(reverse("backoffice_player_note", args=[alice.pk]), {"body": "x"}).status_code == 403
    assert not StaffAction.objects.exists()


def test_the_password_reset_recorder_writes_inside_the_reset_transaction(operator, alice):
    with transaction.atomic():
        password_reset_record(actor=operator, user=alice, origin=Origin("10.0.0.4", FIREFOX), reason="locked out")
        assert password_reset_record(actor=None, user=alice, origin=None) is None  # their own reset
    only_row(action=StaffActionKind.PASSWORD_RESET, object_kind="player", object_ref=str(alice.pk),
             reason="locked out", address="10.0.0.4")


def test_a_worker_probe_is_recorded(client_for, operator):
    assert client_for(operator).post(reverse("worker_health_probe"), **FROM).status_code == 302
    only_row(action=StaffActionKind.WORKER_PROBED, object_kind="", address="10.0.0.4")


# --- where from -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("proxies", "forwarded", "expected"), [
    (0, "203.0.113.9", "10.0.0.4"),  # no proxy of ours: the header is the client's say-so
    (1, "198.51.100.1, 203.0.113.9", "203.0.113.9"),  # the proxy's entry, not what the client wrote
    (2, "198.51.100.1, 203.0.113.9, 10.1.1.1", "203.0.113.9"),
    (2, "203.0.113.9", "10.0.0.4"),  # fewer hops than proxies: the request bypassed one
    (1, "not-an-address", "10.0.0.4"),
])
def test_the_address_is_remote_addr_unless_trusted_proxies_say_otherwise(
    settings, client_for, operator, proxies, forwarded, expected
):
    settings.TRUSTED_PROXY_COUNT = proxies
    client_for(operator).post(reverse("worker_health_probe"), HTTP_X_FORWARDED_FOR=forwarded, **FROM)
    only_row(address=expected)


# --- append-only ------------------------------------------------------------------------------------------

def test_a_row_cannot_be_updated_or_deleted_not_even_with_raw_sql(client_for, operator):
    client_for(operator).post(reverse("worker_health_probe"), **FROM)
    row = StaffAction.objects.get()
    with pytest.raises(TypeError):
        StaffAction.objects.filter(pk=row.pk).update(reason="rewritten")
    with pytest.raises(TypeError):
        StaffAction.objects.filter(pk=row.pk).delete()
    with pytest.raises(TypeError):
        row.save()
    for statement in ("UPDATE accounts_staffaction SET reason = 'rewritten' WHERE id = %s",
                      "DELETE FROM accounts_staffaction WHERE id = %s"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(statement, [row.pk])
    assert StaffAction.objects.get().reason == ""

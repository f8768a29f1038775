"""A player's settings, presence at tables (several at once, one session per table) and tips to the dealer."""

import re
import uuid

import pytest
from django.urls import reverse

from players import selectors, services
from players.errors import NotAtTable, PlayerRequestError, TableNotOpen
from players.models import PlayerProfile, PresenceEnd, TablePresence
from tables.models import Table
from tests.factories import TableFactory
from wallet import selectors as wallet_selectors
from wallet.models import LedgerTransaction
from wallet.services import deposit

pytestmark = pytest.mark.django_db


@pytest.fixture
def tables(roles):
    return [TableFactory(code=code, state="open", currencies=["EUR", "GBP"]) for code in ("PL01", "PL02")]


@pytest.fixture
def rich(player):
    deposit(player=player, currency="EUR", amount=100_00, idempotency_key=str(uuid.uuid4()))
    return player


# --- settings ----------------------------------------------------------------------------------------------

def test_settings_are_stored_on_the_profile_and_read_back_on_another_device(client_for, player):
    phone, laptop = client_for(player), client_for(player)
    assert selectors.player_profile(player=player).sound_volume == 70
    assert not PlayerProfile.objects.exists()  # reading writes nothing
    response = phone.post(reverse("player_settings"), {
        "sound_on": "on", "sound_volume": "35", "video_quality": "low", "hide_others_chat": "on"})  # no auto-confirm
    assert response.status_code == 302
    profile = PlayerProfile.objects.get(player=player)
    assert (profile.sound_on, profile.sound_volume, profile.dealer_voice, profile.video_quality,
            profile.hide_others_chat, profile.auto_confirm_bets) == (True, 35, False, "low", True, False)
    page = laptop.get(reverse("player_settings")).content.decode()
    assert 'value="35"' in page
    assert re.findall(r'name="video_quality" value="(\w+)"[^>]*checked', page) == ["low"]
    api = laptop.get("/api/players/me/settings/").json()
    # a box left unticked on the page is "no": the dealer's voice and automatic confirmation are off
    assert api == {"sound_on": True, "sound_volume": 35, "dealer_voice": False, "voice_volume": 70,
                   "video_quality": "low", "hide_others_chat": True, "auto_confirm_bets": False,
                   "language": "", "chat_disabled": False, "chat_disabled_reason": ""}


def test_the_dealers_voice_has_its_own_volume_beside_the_game_sound(client_for, player):
    phone, laptop = client_for(player), client_for(player)
    response = phone.post(reverse("player_settings"), {
        "sound_on": "on", "sound_volume": "20", "dealer_voice": "on", "voice_volume": "90", "video_quality": "auto"})
    assert response.status_code == 302
    profile = PlayerProfile.objects.get(player=player)
    assert (profile.sound_volume, profile.voice_volume) == (20, 90)
    page = laptop.get(reverse("player_settings")).content.decode()
    assert re.search(r'name="voice_volume"[^>]*value="90"|value="90"[^>]*name="voice_volume"', page)
    assert "Dealer&#x27;s voice volume (0-100)" in page and "Game sound volume (0-100)" in page
    body = {"sound_on": True, "sound_volume": 80, "dealer_voice": True, "voice_volume": 15, "video_quality": "auto",
            "hide_others_chat": False}
    api = laptop.put("/api/players/me/settings/", body, content_type="application/json").json()
    assert (api["sound_volume"], api["voice_volume"]) == (80, 15)
    # a client that does not know the setting yet leaves it as stored
    del body["voice_volume"]
    assert laptop.put("/api/players/me/settings/", body, content_type="application/json").json()["voice_volume"] == 15
    for bad in (101, -1, "loud", True, 1.5):
        refused = laptop.put("/api/players/me/settings/", body | {"voice_volume": bad},
                             content_type="application/json")
        assert refused.status_code == 400 and "voice_volume" in refused.json()["fields"], bad
    assert PlayerProfile.objects.get(player=player).voice_volume == 15
    with pytest.raises(PlayerRequestError, match="The dealer's voice volume is a whole number from 0 to 100"):
        services.player_settings_update(player=player, sound_on=True, sound_volume=5, dealer_voice=True,
                                        video_quality="auto", hide_others_chat=False, voice_volume=400)


def test_settings_refuse_bad_input_and_write_nothing(client_for, player):
    client = client_for(player)
    response = client.post(reverse("player_settings"), {"sound_volume": "140", "video_quality": "8k"})
    assert response.status_code == 400 and not PlayerProfile.objects.exists()
    api = client.put("/api/players/me/settings/", {"sound_volume": -1}, content_type="application/json")
    assert api.status_code == 400 and not PlayerProfile.objects.exists()
    with pytest.raises(PlayerRequestError):
        services.player_settings_update(player=player, sound_on="yes", sound_volume=5, dealer_voice=True,
                                        video_quality="auto", hide_others_chat=False)
    assert not PlayerProfile.objects.exists()


def test_the_api_stores_settings_for_every_device(client_for, player):
    client = client_for(player)
    body = {"sound_on": False, "sound_volume": 0, "dealer_voice": False, "video_quality": "off",
            "hide_others_chat": False}
    assert client.put("/api/players/me/settings/", body, content_type="application/json").status_code == 200
    assert client_for(player).get("/api/players/me/settings/").json()["video_quality"] == "off"


# --- presence ----------------------------------------------------------------------------------------------

def test_a_player_sits_at_several_tables_and_another_session_takes_a_table_over(client_for, player, tables):
    first, second = client_for(player), client_for(player)
    for table in tables:
        assert first.post(reverse("player_table_join", args=[table.code])).status_code == 302
    assert TablePresence.objects.filter(player=player, ended_at__isnull=True).count() == 2
    # the same session joining again changes nothing
    first.post(reverse("player_table_join", args=["PL01"]))
    assert TablePresence.objects.filter(player=player).count() == 2

    second.post(reverse("player_table_join", args=["PL01"]))
    live = TablePresence.objects.filter(player=player, ended_at__isnull=True)
    assert live.count() == 2 and live.get(table__code="PL01").session_key == second.session.session_key
    ended = TablePresence.objects.get(player=player, table__code="PL01", ended_at__isnull=False)
    assert ended.end_reason == PresenceEnd.REPLACED
    # The first window's table page (polled by htmx) says so and stops polling; PL02 is untouched there.
    poll = first.get(reverse("player_table", args=["PL01"]), headers={"HX-Request": "true"})
    assert poll.status_code == 286 and "from another window or device" in poll.content.decode()
    assert "You are at table PL02" in first.get(reverse("player_table", args=["PL02"])).content.decode()
    lobby = first.get(reverse("player_tables")).content.decode()
    assert "You sit at this table in another window or device." in lobby


def test_joining_a_closed_table_is_refused(client_for, player, tables):
    closed = TableFactory(code="PL09", state="closed")
    with pytest.raises(TableNotOpen):
        services.table_join(player=player, table=closed, session_key="abc")
    response = client_for(player).post(reverse("player_table_join", args=["PL09"]))
    assert response.status_code == 302 and not TablePresence.objects.exists()
    assert client_for(player).post(reverse("player_table_join", args=["NOPE"])).status_code == 404


def test_leaving_ends_only_this_sessions_presence(client_for, player, tables):
    client = client_for(player)
    client.post(reverse("player_table_join", args=["PL01"]))
    client.post(reverse("player_table_leave", args=["PL01"]))
    presence = TablePresence.objects.get(player=player)
    assert presence.end_reason == PresenceEnd.LEFT
    assert services.table_leave(player=player, table=tables[0], session_key="other").left is False


def test_logging_out_leaves_the_tables_of_that_session_only(client_for, player, tables):
    here, elsewhere = client_for(player), client_for(player)
    here.post(reverse("player_table_join", args=["PL01"]))
    here.post(reverse("player_table_join", args=["PL02"]))
    elsewhere.post(reverse("player_table_join", args=["PL02"]))  # takes PL02 over from the first session
    other = client_for(player)
    assert other.post(reverse("logout")).status_code == 302  # a session at no table: nothing ends
    assert TablePresence.objects.filter(ended_at__isnull=True).count() == 2
    here.post(reverse("logout"))
    live = TablePresence.objects.get(ended_at__isnull=True)
    assert live.table.code == "PL02" and live.session_key == elsewhere.session.session_key
    assert TablePresence.objects.get(table__code="PL01").end_reason == PresenceEnd.LOGGED_OUT


def test_a_table_that_closes_has_nobody_left_at_it(client_for, player, player2, tables, operator):
    from tables import services as table_services

    client = client_for(player)
    client.post(reverse("player_table_join", args=["PL01"]))
    client.post(reverse("player_table_join", args=["PL02"]))
    client_for(player2).post(reverse("player_table_join", args=["PL01"]))
    table_services.table_state_set(actor=operator, table=tables[0], state="paused", reason="dealer break")
    assert TablePresence.objects.filter(ended_at__isnull=True).count() == 3  # a pause keeps everyone seated
    table_services.table_state_set(actor=operator, table=tables[0], state="closed", reason="end of shift")
    ended = TablePresence.objects.filter(table__code="PL01")
    assert {(p.player_id, p.end_reason) for p in ended} == {(player.pk, PresenceEnd.TABLE_CLOSED),
                                                            (player2.pk, PresenceEnd.TABLE_CLOSED)}
    assert TablePresence.objects.get(ended_at__isnull=True).table.code == "PL02"
    poll = client.get(reverse("player_table", args=["PL01"]), headers={"HX-Request": "true"})
    assert poll.status_code == 286 and "Table PL01 is closed, so you have left it" in poll.content.decode()


# --- tips --------------------------------------------------------------------------------------------------

def test_a_player_at_a_table_tips_its_dealer_once_per_request(client_for, rich, tables):
    client = client_for(rich)
    client.post(reverse("player_table_join", args=["PL01"]))
    key = str(uuid.uuid4())
    url = reverse("player_table_tip", args=["PL01"])
    for _ in range(2):  # a double submit
        assert client.post(url, {"currency": "EUR", "amount": "2.50", "idempotency_key": key}).status_code == 302
    assert wallet_selectors.player_balance(player=rich, currency="EUR") == 100_00 - 250
    tip = LedgerTransaction.objects.get(kind="tip")
    assert (tip.reference, tip.actor) == ("PL01", rich)


@pytest.mark.parametrize(("amount", "currency", "message"), [
    ("0.50", "EUR", "from 1.00 EUR to 100.00 EUR"),
    ("500", "EUR", "from 1.00 EUR to 100.00 EUR"),
    ("abc", "EUR", "is not an amount"),
    ("1.001", "EUR", "not exact"),
    ("5", "USD", "Select a valid choice"),
    ("50", "GBP", "not GBP"),  # the player holds no GBP
])
def test_bad_tips_are_refused_with_a_reason_and_move_nothing(client_for, rich, tables, amount, currency, message):
    client = client_for(rich)
    client.post(reverse("player_table_join", args=["PL01"]))
    response = client.post(reverse("player_table_tip", args=["PL01"]),
                           {"currency": currency, "amount": amount, "idempotency_key": str(uuid.uuid4())})
    assert response.status_code in (400, 404, 409) and message in response.content.decode()
    assert not LedgerTransaction.objects.filter(kind="tip").exists()


def test_a_tip_needs_the_player_at_the_table_in_this_session(rich, tables):
    with pytest.raises(NotAtTable):
        services.dealer_tip(player=rich, table=tables[0], session_key="nowhere", currency="EUR", amount=100,
                            idempotency_key=str(uuid.uuid4()))
    Table.objects.filter(pk=tables[0].pk).update(state="paused")
    with pytest.raises(TableNotOpen):
        services.dealer_tip(player=rich, table=tables[0], session_key="x", currency="EUR", amount=100,
                            idempotency_key=str(uuid.uuid4()))
    assert not LedgerTransaction.objects.filter(kind="tip").exists()

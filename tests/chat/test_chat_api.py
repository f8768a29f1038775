"""A table's chat through the game-client and studio API: players at the table read each other and the host,
"hide other players' chat" is honoured, a player whose chat support disabled is told why, bad messages and
floods are refused and store nothing, and what was written can never be rewritten."""

import pytest
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.test import override_settings
from django.urls import reverse

from casino.ratelimit import window_key
from chat.models import ChatMessage
from players import services as player_services
from tests.factories import RoundTableFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(db):
    return RoundTableFactory(profile="classic", code="CH01")


@pytest.fixture
def seated(client_for, personas, table):
    """pat and quinn at CH01, each in their own browser session; the studio's client."""
    clients = {"pat": client_for(personas["player"]), "quinn": client_for(personas["player2"])}
    for client in clients.values():
        assert client.post(reverse("player_table_join", args=[table.code])).status_code == 302
    clients["studio"] = client_for(personas["operator"])
    return clients


def url(code="CH01"):
    return reverse("api_chat_table", args=[code])


def host_url(code="CH01"):
    return reverse("api_chat_host", args=[code])


def post(client, body, where=None):
    return client.post(where or url(), {"body": body}, content_type="application/json")


def read(client, where=None, **query):
    response = client.get(where or url(), query)
    assert response.status_code == 200, response.content
    return response.json()["messages"]


def test_players_at_a_table_read_each_other_and_the_host(seated, personas):
    written = post(seated["pat"], "  good luck <b>everyone</b>  ")
    assert written.status_code == 201, written.content
    mine = written.json()
    assert (mine["body"], mine["kind"], mine["author"], mine["mine"]) == (
        "good luck <b>everyone</b>", "player", "pat_player", True)
    host = post(seated["studio"], "Welcome to CH01, the next round opens in a minute", host_url())
    assert host.status_code == 201 and host.json()["kind"] == "host"
    assert post(seated["quinn"], "thanks!").status_code == 201
    seen = read(seated["quinn"])
    assert [(m["author"], m["body"], m["mine"]) for m in seen] == [
        ("pat_player", "good luck <b>everyone</b>", False),
        ("Host", "Welcome to CH01, the next round opens in a minute", False),
        ("quinn_player", "thanks!", True),
    ]
    # polling: only what came after the last message the client holds
    assert read(seated["pat"], after=seen[1]["id"]) == [{**seen[2], "mine": False}]
    assert [m["body"] for m in read(seated["studio"], host_url())] == [m["body"] for m in seen]


def test_a_player_who_hides_other_players_chat_reads_only_their_own_and_the_hosts(seated, personas):
    post(seated["pat"], "anyone here?")
    post(seated["studio"], "Shuffling now", host_url())
    post(seated["quinn"], "hello pat")
    player_services.player_settings_update(player=personas["player2"], sound_on=True, sound_volume=50,
                                           dealer_voice=True, video_quality="auto", hide_others_chat=True)
    assert [m["body"] for m in read(seated["quinn"])] == ["Shuffling now", "hello pat"]
    assert [m["body"] for m in read(seated["pat"])] == ["anyone here?", "Shuffling now", "hello pat"]


def test_a_player_whose_chat_support_disabled_is_refused_with_the_reason(seated, personas):
    player_services.player_chat_disable(player=personas["player"], staff=personas["support"],
                                        reason="Abusive language towards the dealer")
    refused = post(seated["pat"], "let me talk")
    assert refused.status_code == 403
    assert refused.json() == {"code": "chat_disabled", "message": "Your chat is disabled: Abusive language towards "
                              "the dealer. Contact support if you think this is a mistake."}
    assert not ChatMessage.objects.exists()
    assert read(seated["pat"]) == []  # reading stays open to them
    player_services.player_chat_enable(player=personas["player"], staff=personas["support"], reason="apologised")
    assert post(seated["pat"], "sorry").status_code == 201


@pytest.mark.parametrize("body, words", [
    ("", "may not be blank"), ("   ", "may not be blank"), ("x" * 201, "no more than 200 characters"),
    ("two\nlines", "one line"), ("tab\there", "one line"), ("\u202egnp.exe", "direction of text"),
    (None, "may not be null"), (5, "Not a valid string"), (["a"], "Not a valid string"), ({}, "Not a valid string"),
])
def test_bad_messages_are_refused_with_a_clear_message_and_store_nothing(seated, body, words):
    refused = post(seated["pat"], body)
    assert refused.status_code == 400, refused.content
    assert words in str(refused.json()), refused.json()
    assert not ChatMessage.objects.exists()


def test_a_message_of_exactly_the_limit_with_any_script_is_stored_as_written(seated):
    body = "ø" * 193 + " 👍🏽 日本語"
    assert len(body) == 200
    assert post(seated["pat"], body).json()["body"] == body


def test_only_a_player_at_the_table_reads_or_writes_its_chat(seated, client_for, funded, table):
    outsider = client_for(funded(username="olaf_outside"))
    for response in (post(outsider, "hi"), outsider.get(url())):
        assert response.status_code == 409
        assert response.json()["code"] == "not_at_table" and "Join table CH01" in response.json()["message"]
    assert seated["pat"].post(reverse("player_table_leave", args=["CH01"])).status_code == 302
    assert post(seated["pat"], "still here?").status_code == 409
    assert post(seated["pat"], "hi", url("NOPE")).status_code == 404
    assert not ChatMessage.objects.exists()


def test_a_paused_table_takes_the_hosts_messages_but_not_the_players(seated, table, personas):
    from rounds import services

    services.table_pause(table=table, actor=personas["operator"], reason="Camera fault")
    refused = post(seated["pat"], "what happened?")
    assert (refused.status_code, refused.json()["code"]) == (409, "table_not_open")
    assert post(seated["studio"], "A camera fault: back in a few minutes", host_url()).status_code == 201
    assert [m["body"] for m in read(seated["pat"])] == ["A camera fault: back in a few minutes"]


def test_players_and_the_studio_keep_to_their_own_door(seated):
    assert post(seated["pat"], "I am the host now", host_url()).status_code == 403
    assert seated["pat"].get(host_url()).status_code == 403
    assert post(seated["studio"], "hi", url()).status_code == 403
    assert not ChatMessage.objects.exists()


WINDOW = 60


@override_settings(RATE_LIMIT_CHAT_PER_USER=(2, WINDOW), RATE_LIMIT_CHAT_PER_ADDRESS=(1000, WINDOW))
def test_a_player_writing_too_fast_gets_429_with_retry_after_and_reads_on(seated, personas):
    keys = [window_key(f"chat:user:{personas['player'].pk}", WINDOW), window_key("chat:address:127.0.0.1", WINDOW)]
    cache.delete_many(keys)
    try:
        assert post(seated["pat"], "one").status_code == 201
        assert post(seated["pat"], "two").status_code == 201
        refused = post(seated["pat"], "three")
        assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= WINDOW
        assert refused.json()["code"] == "throttled"
        assert [m["body"] for m in read(seated["pat"])] == ["one", "two"]  # reads are not counted
    finally:
        cache.delete_many(keys)


def test_a_message_is_never_edited_or_deleted(seated):
    post(seated["pat"], "as written")
    message = ChatMessage.objects.get()
    with pytest.raises(TypeError, match="append-only"):
        ChatMessage.objects.filter(pk=message.pk).update(body="rewritten")
    with pytest.raises(TypeError, match="append-only"):
        message.delete()
    message.body = "rewritten"
    with pytest.raises(TypeError, match="append-only"):
        message.save()
    for statement in ("UPDATE chat_chatmessage SET body = 'rewritten'", "DELETE FROM chat_chatmessage"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert ChatMessage.objects.get().body == "as written"


def test_the_after_cursor_must_be_a_whole_number(seated):
    response = seated["pat"].get(url(), {"after": "²"})
    assert response.status_code == 400 and "after" in response.json()["fields"]


def test_a_session_replaced_by_another_device_is_refused_until_it_joins_again(seated, client_for, personas):
    phone = client_for(personas["player"])
    assert phone.post(reverse("player_table_join", args=["CH01"])).status_code == 302  # pat moves to the phone
    for response in (post(seated["pat"], "from the laptop"), seated["pat"].get(url())):
        assert (response.status_code, response.json()["code"]) == (409, "session_replaced")
    assert post(phone, "from the phone").status_code == 201
    assert [m["body"] for m in read(phone)] == ["from the phone"]

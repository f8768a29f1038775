"""The chat on the player's table page: a player at the table reads it (polled) and writes, messages shown
escaped, other players' hidden when they ask, a disabled chat says why, and a player elsewhere is told to join."""

import pytest
from django.urls import reverse

from chat.models import ChatMessage
from players import services as player_services
from tests.factories import RoundTableFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(db):
    return RoundTableFactory(profile="classic", code="CH02")


def joined(client, code="CH02"):
    assert client.post(reverse("player_table_join", args=[code])).status_code == 302
    return client


def test_a_player_at_the_table_writes_and_reads_the_chat_on_the_page(client_for, personas, table):
    pat, quinn = joined(client_for(personas["player"])), joined(client_for(personas["player2"]))
    chat = reverse("player_table_chat", args=["CH02"])
    assert 'hx-get="' + chat + '"' in pat.get(reverse("player_table", args=["CH02"])).content.decode()
    sent = pat.post(chat, {"body": "<img src=x onerror=alert(1)> hi"})
    assert sent.status_code == 302 and sent["Location"] == chat
    assert quinn.post(chat, {"body": "hello"}, HTTP_HX_REQUEST="true").status_code == 200
    html = quinn.get(chat, {"part": "messages"}, HTTP_HX_REQUEST="true").content.decode()
    assert "&lt;img src=x onerror=alert(1)&gt; hi" in html and "<img src=x" not in html
    assert "pat_player" in html and "You</span> <span class=\"chat-body\">hello" in html
    player_services.player_settings_update(player=personas["player2"], sound_on=True, sound_volume=50,
                                           dealer_voice=True, video_quality="auto", hide_others_chat=True)
    html = quinn.get(chat).content.decode()
    assert "pat_player" not in html and "hello" in html and "You hide other players' messages" in html


def test_refusals_come_back_with_the_form_and_store_nothing(client_for, personas, support, table):
    pat = joined(client_for(personas["player"]))
    chat = reverse("player_table_chat", args=["CH02"])
    empty = pat.post(chat, {"body": "  "}, HTTP_HX_REQUEST="true")
    assert empty.status_code == 400 and "A chat message is required." in empty.content.decode()
    player_services.player_chat_disable(player=personas["player"], staff=support, reason="Spamming links")
    refused = pat.post(chat, {"body": "buy now"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 409 and "Your chat is disabled: Spamming links." in refused.content.decode()
    outsider = client_for(personas["player2"])
    page = outsider.get(chat)
    assert page.status_code == 200 and "Join table CH02" in page.content.decode()
    assert outsider.post(chat, {"body": "hi"}).status_code == 409
    assert client_for(personas["player"]).get(reverse("player_table_chat", args=["NOPE"])).status_code == 404
    assert not ChatMessage.objects.exists()


def test_the_page_refuses_a_session_another_device_took_over_and_stores_nothing(client_for, personas, table):
    """The page is a door like the API: the play gate reads this session's presence, not any presence of the
    player (which the laptop's would pass, since the phone's is live)."""
    laptop = joined(client_for(personas["player"]))
    phone = joined(client_for(personas["player"]))  # the player moves to the phone: the laptop's is replaced
    chat = reverse("player_table_chat", args=["CH02"])
    refused = laptop.post(chat, {"body": "from the laptop"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 409 and "from another device or browser" in refused.content.decode()
    assert "from another device or browser" in laptop.get(chat).content.decode()
    assert phone.post(chat, {"body": "from the phone"}).status_code == 302
    assert list(ChatMessage.objects.values_list("body", flat=True)) == ["from the phone"]


def test_the_service_leaves_presence_to_the_doors(personas, table):
    """Why the gate is at the doors: a session is the door's to know (a browser's cookie, an API key). The
    service is also called in-process with no session (the simulator's services transport, the studio's
    tools), so it checks what needs no session: the permission, the text, a disabled chat, an open table."""
    from chat import services

    # Never joined: a gate inside the service would refuse this, and with it every in-process caller.
    message = services.chat_post(player=personas["player"], table=table, body="posted in-process")
    assert ChatMessage.objects.get().pk == message.pk

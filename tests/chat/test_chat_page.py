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

"""Support's chat log: a table's or a player's messages with their times, around a game number (from its
opening to its settlement, minutes either side), shown escaped; and disabling a player's chat from one of their
messages, with a reason the player is then told (a staff action naming the message)."""

from datetime import timedelta

import pytest
from django.urls import reverse

from accounts.models import StaffAction, StaffActionKind
from chat import services
from chat.models import ChatMessage
from players import services as player_services
from players.models import PlayerProfile
from tests.backoffice.scenarios import settle_classic

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(play, classic_table, funded):
    alice, bob = funded(username="alice_plays"), funded(username="bob_plays")
    round = settle_classic(play, classic_table, alice, bob)
    for player in (alice, bob):
        player_services.table_join(player=player, table=classic_table, session_key=f"session-{player.pk}")
    return round, alice, bob


def say(player, table, body, at):
    return services.chat_post(player=player, table=table, body=body, now=at)


def test_support_reads_a_tables_chat_around_a_game_number(client_for, support, operator, game):
    round, alice, bob = game
    table, opened, settled = round.table, round.opened_at, round.settled_at
    say(alice, table, "long before", opened - timedelta(minutes=30))
    say(alice, table, "just before the game", opened - timedelta(minutes=4))
    say(bob, table, "<script>alert('during')</script>", opened + (settled - opened) / 2)
    services.chat_host_post(actor=operator, table=table, body="Good game", now=settled + timedelta(minutes=1))
    say(bob, table, "much later", settled + timedelta(minutes=45))
    client = client_for(support)
    page = client.get(reverse("chat_log"), {"game": round.game_number})
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Table {table.code} around game" in html and "The game opened at" in html
    assert "just before the game" in html and "Good game" in html and "alice_plays" in html
    assert "&lt;script&gt;alert(&#x27;during&#x27;)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "long before" not in html and "much later" not in html
    # a wider window takes the earlier message in; a player's filter leaves the others out
    wider = client.get(reverse("chat_log"), {"game": round.game_number, "window": "40", "player": "bob_plays"})
    html = wider.content.decode()
    assert "much later" not in html and "long before" not in html and "during" in html
    assert "just before the game" not in html and "Good game" not in html
    wide = client.get(reverse("chat_log"), {"game": round.game_number, "window": "40"}).content.decode()
    assert "long before" in wide and "much later" not in wide
    everything = client.get(reverse("chat_log"), {"player": "alice_plays"}).content.decode()
    assert everything.index("just before the game") < everything.index("long before")  # newest first
    assert "much later" not in everything


def test_the_log_says_what_is_wrong_with_its_filters(client_for, support, game):
    client = client_for(support)
    for query, words in (({"game": "LB01-NOPE"}, "No game LB01-NOPE."), ({"table": "ZZ99"}, "No table ZZ99."),
                         ({"player": "nobody"}, "Nobody has the user name nobody."),
                         ({"game": game[0].game_number, "window": "-1"}, "greater than or equal to 0")):
        response = client.get(reverse("chat_log"), query)
        assert response.status_code == 400 and words in response.content.decode(), query
    assert client.get(reverse("chat_log"), {"before": "²"}).status_code == 400


def test_the_log_pages_by_keyset(client_for, support, game, monkeypatch):
    from chat import selectors

    round, alice, _bob = game
    for n in range(5):
        say(alice, round.table, f"message {n}", round.settled_at + timedelta(seconds=n))
    monkeypatch.setattr(selectors, "LOG_PAGE", 2)
    client = client_for(support)
    html = client.get(reverse("chat_log"), {"table": round.table.code}).content.decode()
    assert "message 4" in html and "message 3" in html and "message 2" not in html
    older = ChatMessage.objects.get(body="message 3").pk
    html = client.get(reverse("chat_log"), {"table": round.table.code, "before": older}).content.decode()
    assert "message 2" in html and "message 1" in html and "message 3" not in html


def test_support_disables_a_players_chat_from_a_message_with_a_reason_the_player_is_told(
    client_for, support, operator, game
):
    round, alice, _bob = game
    message = say(alice, round.table, "you are all idiots", round.settled_at)
    host = services.chat_host_post(actor=operator, table=round.table, body="Please be kind")
    client = client_for(support)
    back = f"table={round.table.code}"
    refused = client.post(reverse("chat_message_disable", args=[message.pk]), {"reason": "  ", "back": back})
    assert refused.status_code == 302 and not PlayerProfile.objects.filter(chat_disabled=True).exists()
    done = client.post(reverse("chat_message_disable", args=[message.pk]),
                       {"reason": "Insulting other players", "back": back + "&next=https://evil.example"})
    assert done.status_code == 302
    assert done["Location"] == reverse("chat_log") + f"?table={round.table.code}&next=https%3A%2F%2Fevil.example"
    profile = PlayerProfile.objects.get(player=alice)
    assert (profile.chat_disabled, profile.chat_disabled_reason, profile.chat_disabled_by) == (
        True, "Insulting other players", support)
    action = StaffAction.objects.get(action=StaffActionKind.CHAT_DISABLED)
    assert (action.actor, action.object_ref, action.reason) == (support, str(alice.pk), "Insulting other players")
    assert action.details == {"chat_message": message.pk, "table": round.table.code}
    assert "Chat disabled: Insulting other players" in alice.staff_notes.get().body
    page = client.get(reverse("chat_log"), {"table": round.table.code}).content.decode()
    assert "chat disabled" in page and "Disable alice_plays&#x27;s chat" not in page
    # the host's message cannot be "disabled"; a message that does not exist is said so
    client.post(reverse("chat_message_disable", args=[host.pk]), {"reason": "no"})
    client.post(reverse("chat_message_disable", args=[999_999]), {"reason": "no"})
    assert StaffAction.objects.filter(action=StaffActionKind.CHAT_DISABLED).count() == 1
    with pytest.raises(Exception, match="Your chat is disabled: Insulting other players."):
        say(alice, round.table, "hello?", round.settled_at)


def test_an_operator_reads_the_log_but_only_support_disables_chat(client_for, operator, game):
    round, alice, _bob = game
    message = say(alice, round.table, "hi", round.settled_at)
    client = client_for(operator)
    html = client.get(reverse("chat_log")).content.decode()
    assert "hi" in html and "Disable alice_plays" not in html
    assert client.post(reverse("chat_message_disable", args=[message.pk]), {"reason": "x"}).status_code == 403
    assert not PlayerProfile.objects.filter(chat_disabled=True).exists()

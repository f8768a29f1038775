"""Every back-office page checks who may see it: each page with each persona, and guessed ids, assert 403 or 404
and that nothing of another player leaked into the answer."""

import pytest
from django.urls import reverse

from wallet.models import LedgerTransaction, TransactionKind

pytestmark = pytest.mark.django_db

SUPPORT_ONLY = {"support"}
STAFF = {"support", "operator"}
OPERATOR = {"operator"}
PLAYERS = {"player", "player2", "alice"}


def body_of(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.fixture
def who(personas, alice):
    return {**personas, "alice": alice}


def pages(settled, alice):
    gn = settled.game_number
    txn = settled.settlement["wallet_transaction"]
    return [
        # (url, roles that may open it)
        (reverse("backoffice_search") + "?q=" + gn, STAFF),  # a read, like the round page it opens
        (reverse("backoffice_round", args=[gn]), STAFF),
        (reverse("backoffice_round_void_progress", args=[gn]), STAFF),
        (reverse("backoffice_player", args=[alice.pk]), STAFF),
        (reverse("backoffice_transaction", args=[txn]), STAFF),
        (reverse("backoffice_dashboard"), OPERATOR),
        (reverse("backoffice_rtp"), OPERATOR),
        (reverse("player_games"), PLAYERS),
        (reverse("player_games_csv"), PLAYERS),
        (reverse("player_settings"), PLAYERS),
        (reverse("player_tables"), PLAYERS),
        (reverse("player_table", args=["LB01"]), PLAYERS),
        ("/api/players/me/settings/", PLAYERS),
    ]


@pytest.mark.slow  # a walk over every page for each persona (seconds): make test runs it, as the persona walks
@pytest.mark.parametrize("persona", ["operator", "support", "player", "player2", "alice"])
def test_each_page_admits_only_its_roles_and_refusals_leak_nothing(client_for, who, settled, alice, persona):
    for url, allowed in pages(settled, alice):
        response = client_for(who[persona]).get(url)
        if persona in allowed:
            assert response.status_code in (200, 302), (url, persona, response.status_code)
        else:
            assert response.status_code == 403, (url, persona, response.status_code)
            content = body_of(response).split("</header>")[-1]
            assert "alice_plays" not in content and "bob_plays" not in content, (url, persona)
            assert "10.00" not in content and settled.game_number not in content, (url, persona)


def test_anonymous_visitors_are_sent_to_sign_in(client, settled, alice):
    for url, _allowed in pages(settled, alice):
        response = client.get(url)
        assert response.status_code in (302, 403), url
        if response.status_code == 302:
            assert response.url.startswith(reverse("login")), url


@pytest.mark.parametrize(("name", "persona"), [
    ("backoffice_round_void", "player"), ("backoffice_player_note", "player"), ("backoffice_player_chat", "player"),
    ("backoffice_player_note", "operator"), ("backoffice_player_chat", "operator"),
    ("backoffice_player_golden_chips", "support"), ("backoffice_player_golden_chips", "player"),
])
def test_staff_actions_refuse_the_wrong_persona_and_change_nothing(client_for, who, settled, alice, name, persona):
    from players.models import PlayerNote, PlayerProfile

    arg = settled.game_number if name == "backoffice_round_void" else alice.pk
    response = client_for(who[persona]).post(reverse(name, args=[arg]), {
        "reason": "because", "step": "confirm", "expected_state": "settled", "body": "note", "action": "disable",
        "currency": "EUR", "amount": "25.00", "idempotency_key": "k1"})
    assert response.status_code == 403
    settled.refresh_from_db()
    assert settled.state == "settled"
    assert not PlayerNote.objects.exists() and not PlayerProfile.objects.exists()
    assert not LedgerTransaction.objects.filter(kind=TransactionKind.GOLDEN_CHIP_GRANT).exists()


def test_a_player_cannot_open_another_players_game_by_its_game_number(client_for, who, settled):
    """bob played this round; pat did not: pat gets the same 404 as for a game number that does not exist."""
    gn = settled.game_number
    theirs = client_for(who["player"]).get(reverse("player_game", args=[gn]))
    nowhere = client_for(who["player"]).get(reverse("player_game", args=["LB01-20000101-000000"]))
    assert theirs.status_code == nowhere.status_code == 404
    assert body_of(theirs) == body_of(nowhere).replace("LB01-20000101-000000", gn) or gn not in body_of(theirs)
    assert "alice_plays" not in body_of(theirs) and "10 of hearts" not in body_of(theirs)


def test_a_player_sees_only_their_own_spot_of_a_shared_round(client_for, who, settled):
    page = body_of(client_for(who["alice"]).get(reverse("player_game", args=[settled.game_number])))
    assert "Seat 1" in page and "Seat 2" not in page
    assert "bob_plays" not in page and "30.00" not in page  # bob's stake on seat 2
    assert 'aria-label="King of diamonds"' in page and 'aria-label="6 of clubs"' not in page  # seat 2's card


def test_game_history_and_csv_hold_only_the_players_own_rounds(client_for, who, settled, in_play):
    pat = body_of(client_for(who["player"]).get(reverse("player_games")))
    assert settled.game_number not in pat and "No game yet" in pat
    pat_csv = body_of(client_for(who["player"]).get(reverse("player_games_csv")))
    assert pat_csv.strip().count("\n") == 0  # the header only
    bob_csv = body_of(client_for(who["player2"]).get(reverse("player_games_csv")))
    assert settled.game_number not in bob_csv


@pytest.mark.parametrize("guess", ["0", "999999"])
def test_staff_pages_answer_404_for_a_guessed_id(client_for, who, guess):
    client = client_for(who["support"])
    assert client.get(reverse("backoffice_player", args=[int(guess)])).status_code == 404
    assert client.get(reverse("backoffice_transaction", args=[int(guess)])).status_code == 404
    assert client.get(reverse("backoffice_round", args=["LB01-20000101-000000"])).status_code == 404


def test_a_staff_account_is_not_a_player_page(client_for, who):
    """Player pages show players only: a guessed id of an operator is not found."""
    response = client_for(who["support"]).get(reverse("backoffice_player", args=[who["operator"].pk]))
    assert response.status_code == 404 and "olivia_operator" not in body_of(response).split("</header>")[-1]


def test_the_player_api_refuses_staff_and_anonymous(client_for, who):
    assert client_for(who["support"]).get("/api/players/me/settings/").status_code == 403
    assert client_for(None).get("/api/players/me/settings/").status_code in (401, 403)

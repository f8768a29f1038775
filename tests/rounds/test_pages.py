"""Staff pages: who may look a round up, and what they see."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def settled(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "6c", "Kd")
    r.decide(player, "stand", seat=1)
    r.cards("Ts", "9s")
    r.complete()
    return r.settle()


@pytest.mark.parametrize(("persona", "status"), [("support", 301), ("operator", 301), ("player", 403)])
def test_the_old_record_url_leads_staff_to_the_support_round_page_players_nowhere(client_for, personas, settled,
                                                                                  persona, status):
    response = client_for(personas[persona]).get(f"/rounds/{settled.game_number}/")
    assert response.status_code == status
    if status == 301:
        assert response["Location"] == f"/support/rounds/{settled.game_number}/"
        page = client_for(personas[persona]).get(response["Location"]).content.decode()
        assert settled.game_number in page and "Audit trail" in page and "Bets placed" in page


def test_the_old_lookup_opens_a_game_number_or_hands_the_query_to_the_search(client_for, support, settled):
    client = client_for(support)
    found = client.get("/rounds/", {"game_number": settled.game_number})
    assert found.status_code == 301 and found["Location"] == f"/support/rounds/{settled.game_number}/"
    missing = client.get("/rounds/", {"game_number": "XX99-20000101-000000"})
    assert missing.status_code == 301 and missing["Location"] == "/search/?q=XX99-20000101-000000"
    assert "No round has the game number" in client.get(missing["Location"]).content.decode()
    assert client.get("/rounds/")["Location"] == "/search/"
    assert client_for(None).get("/rounds/").status_code == 302  # to the login page


def test_the_replay_check_is_an_htmx_fragment_or_a_page(client_for, support, settled):
    client = client_for(support)
    fragment = client.get(f"/rounds/{settled.game_number}/replay/", headers={"HX-Request": "true"})
    assert "<html" not in fragment.content.decode() and "replays through the rules engine" in fragment.content.decode()
    page = client.get(f"/rounds/{settled.game_number}/replay/")
    assert "<html" in page.content.decode()

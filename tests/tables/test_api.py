import pytest
from django.urls import reverse

from tables import services
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def tables(operator):
    free_bet = TableFactory(code="FB01", profile="free_bet", currencies=["EUR", "GBP"])
    classic = TableFactory(code="LB01", profile="classic")
    services.table_state_set(actor=operator, table=classic, state="open")
    return free_bet, classic


def test_the_api_needs_a_signed_in_user(client, tables):
    response = client.get(reverse("api_tables_list"))
    assert response.status_code == 403
    assert response.json()["code"] == "not_authenticated"


def test_game_clients_list_tables_and_filter_by_state(client_for, player, tables):
    client = client_for(player)
    listed = client.get(reverse("api_tables_list")).json()
    assert [(t["code"], t["state"], t["seats"], t["version"]) for t in listed] == [
        ("FB01", "closed", None, 1), ("LB01", "open", 7, 2)]
    assert [t["code"] for t in client.get(reverse("api_tables_list"), {"state": "open"}).json()] == ["LB01"]
    bad = client.get(reverse("api_tables_list"), {"state": "busy"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_table_detail_has_rules_limits_and_paytables_with_their_rtp(client_for, player, tables):
    body = client_for(player).get(reverse("api_table_detail", args=["FB01"])).json()
    assert body["rules"]["charlie"] == 6 and body["rules"]["common_draw"] is True
    assert body["limits"]["main"]["GBP"] == {"min": 100, "max": 500_000, "chips": [100, 500, 2500, 10000, 50000]}
    assert {bet["side_bet"]: bet["rtp_percent"] for bet in body["side_bets"]} == {
        "any_pair": "95.9036", "21+3": "96.2961", "hot3": "94.5951"}
    assert body["features"]["bet_behind"] is False and body["timers"]["decision_seconds"] == 10


def test_an_unknown_table_is_a_json_404(client_for, player, tables):
    response = client_for(player).get(reverse("api_table_detail", args=["ZZ99"]))
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_the_schema_documents_the_table_endpoints(client_for, operator):
    response = client_for(operator).get(reverse("api-schema"))
    assert response.status_code == 200
    assert b"/api/tables/{code}/" in response.content

"""Through the API a player sees only what is theirs: their own positions, the dealer's cards and a common draw's
shared cards, never another player's identity, stakes or cards; studio and staff keep the full picture. A round
that is neither theirs nor the one their table is playing is not found, like a game number that does not exist."""

import json

import pytest

from rounds import services

pytestmark = pytest.mark.django_db

API = "/api/rounds/"


@pytest.fixture
def seated(play, classic_table, funded):
    """Two players at one seated round, dealt: ann on seat 1 (10.00), ben on seat 2 (30.00) and behind seat 2."""
    ann, ben = funded(username="ann_at_seat_one"), funded(username="ben_at_seat_two")
    r = play(classic_table)
    r.bet(ann, {"main": 1000}, seat=1)
    r.bet(ben, {"main": 3000}, seat=2)
    r.bet(ann, {"main": 700}, seat=2, behind=True)
    r.close()
    r.cards("9h", "5c", "6s", "7d", "5d")
    return r, ann, ben


def stakes(view) -> set[int]:
    return {bet["amount"] for spot in view["spots"] for bet in spot["bets"]}


def test_two_players_at_one_seated_round_each_see_only_their_own_positions(client_for, seated, player):
    r, ann, ben = seated
    url = f"{API}{r.round.game_number}/"
    ben_view = client_for(ben).get(url).json()
    assert [(s["seat"], s["behind"], s["player"]) for s in ben_view["spots"]] == [(2, False, ben.pk)]
    assert stakes(ben_view) == {3000} and ben_view["cards"]["seats"] == {"2": ["5c", "5d"]}
    assert ben_view["cards"]["dealer"] == ["6s"] and ben_view["seats_taken"] == [1, 2]
    assert "9h" not in json.dumps(ben_view) and "7d" not in json.dumps(ben_view)  # seat 1, ann's cards

    # ann bets behind seat 2: that seat's cards decide her Bet Behind, so she sees them; ben's stake she does not.
    ann_view = client_for(ann).get(url).json()
    assert {(s["seat"], s["behind"]) for s in ann_view["spots"]} == {(1, False), (2, True)}
    assert {s["player"] for s in ann_view["spots"]} == {ann.pk} and stakes(ann_view) == {1000, 700}
    assert set(ann_view["cards"]["seats"]) == {"1", "2"} and 3000 not in stakes(ann_view)

    # The table's current round is open to every player (a game client joins it), but shows them no one.
    outsider = client_for(player).get(url).json()
    assert outsider["spots"] == [] and outsider["cards"]["seats"] == {} and outsider["seats_taken"] == [1, 2]
    current = client_for(player).get(f"{API}tables/LB01/current/").json()
    assert current == outsider


@pytest.mark.parametrize("persona", ["operator", "support"])
def test_studio_and_staff_keep_the_full_picture(client_for, personas, seated, persona):
    r, ann, ben = seated
    view = client_for(personas[persona]).get(f"{API}{r.round.game_number}/").json()
    assert {s["player"] for s in view["spots"]} == {ann.pk, ben.pk} and stakes(view) == {1000, 3000, 700}
    assert set(view["cards"]["seats"]) == {"1", "2"}


def test_another_players_past_round_is_not_found_and_says_nothing(client_for, seated, operator, player):
    r, ann, ben = seated
    r.decide(ann, "stand", seat=1)
    r.decide(ben, "stand", seat=2)
    r.cards("Ts", "Ah")  # the dealer: 6 10 A = 17
    r.complete()
    r.settle()
    services.round_open(table=r.table, actor=operator)  # the table plays on: ann's round is history now
    client = client_for(player)
    theirs = client.get(f"{API}{r.round.game_number}/")
    nowhere = client.get(f"{API}LB01-20000101-000000/")
    assert theirs.status_code == nowhere.status_code == 404
    assert theirs.json() == nowhere.json() == {"code": "not_found", "message": "Not found."}
    assert client.get(f"{API}{r.round.game_number}/stats/").status_code == 404
    mine = client_for(ben).get(f"{API}{r.round.game_number}/").json()
    assert [s["seat"] for s in mine["spots"]] == [2] and set(mine["settlement"]["spots"]) == {
        s["label"] for s in mine["spots"]}


def test_a_common_draw_shows_the_shared_cards_and_only_the_players_own_spot(client_for, play, free_bet_table,
                                                                             funded):
    ann, ben = funded(username="ann_common"), funded(username="ben_common")
    r = play(free_bet_table)
    r.bet(ann, {"main": 1000})
    r.bet(ben, {"main": 2500})
    r.close()
    r.cards("7h", "Ts", "4d", "7c")
    view = client_for(ben).get(f"{API}{r.round.game_number}/").json()
    assert view["cards"]["player"] == ["7h", "4d"] and view["cards"]["dealer"] == ["Ts", "??"]
    assert [s["player"] for s in view["spots"]] == [ben.pk] and stakes(view) == {2500}

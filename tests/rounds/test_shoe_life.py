"""The shoe's life: the cut card comes out in a round, the next round is the shoe's last, the new shoe starts
after it with the set of cards that was on the shuffle table."""

import re

import pytest
from django.urls import reverse

from rounds.models import RoundEvent, RoundState, Shoe
from tests.rounds.test_e2e import API, ApiTable

pytestmark = [pytest.mark.worker]


def _plain(response) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def _play(table, player):
    table.bet(player, {"main": 1000}, seat=1)
    table.close()
    table.cards("Th", "7s", "6d")
    table.decide(player, "stand", seat=1)
    table.cards("Qs")  # dealer 7 Q = 17
    table.complete()
    return table.wait(RoundState.SETTLED)


def test_the_cut_card_makes_the_next_round_the_last_of_the_shoe(
    celery_worker, client_for, operator, support, classic_table, funded
):
    player = funded()
    first = ApiTable(client_for, operator, "LB01")
    early = first.studio.post(first.url("cut-card/"), content_type="application/json")
    assert early.status_code == 409  # betting is open: no card has been dealt yet
    first.bet(player, {"main": 1000}, seat=1)
    first.close()
    first.cards("Th", "7s", "6d")
    out = first.ok(first.studio, first.url("cut-card/"))
    assert out["message"] == "the cards will be replaced in the following round"
    again = first.studio.post(first.url("cut-card/"), content_type="application/json")
    assert again.status_code == 409 and first.round.game_number in again.json()["message"]
    first.decide(player, "stand", seat=1)
    first.cards("Qs")
    first.complete()
    first.wait(RoundState.SETTLED)
    shoe = Shoe.objects.get(table__code="LB01", ended_at__isnull=True)
    assert shoe.cut_card_round_id == first.round.pk and shoe.last_round_id is None

    last = ApiTable(client_for, operator, "LB01")  # the last round of the shoe
    shoe.refresh_from_db()
    assert shoe.last_round_id == last.round.pk
    assert RoundEvent.objects.get(round=last.round, kind="opened").payload["last_of_shoe"] is True
    _play(last, player)
    refused = last.studio.post(API, {"table": "LB01"}, content_type="application/json")
    assert refused.status_code == 409 and "start the new shoe" in refused.json()["message"]

    started = last.ok(last.studio, f"{API}tables/LB01/shoe/", {"burn_card": ""})
    assert started["number"] == shoe.number + 1
    new = Shoe.objects.get(table__code="LB01", ended_at__isnull=True)
    assert (shoe.card_set, new.card_set) == (1, 2)  # the other set comes in from the shuffle table
    nxt = ApiTable(client_for, operator, "LB01")
    assert nxt.round.shoe_id == new.pk
    assert RoundEvent.objects.get(round=nxt.round, kind="opened").payload["last_of_shoe"] is False

    # Support sees the shoe's history from the round page: rounds per shoe, burn, cut card, last round.
    page = _plain(client_for(support).get(reverse("backoffice_round", args=[first.round.game_number])))
    assert "The cut card came out in this round: the cards will be replaced in the following round." in page
    assert f"{shoe.number} (this round's) set 1" in page and f"2 no burn {first.round.game_number} " \
        f"{last.round.game_number}" in page
    page = _plain(client_for(support).get(reverse("backoffice_round", args=[nxt.round.game_number])))
    assert f"{new.number} (this round's) set 2" in page and "not yet" in page


def test_game_clients_are_told_of_the_cut_card_the_last_round_and_the_new_shoe(
    celery_worker, client_for, operator, classic_table, funded
):
    player = funded()
    client = client_for(player)

    def shoe_of(table):
        mine = client.get(table.url())
        current = client.get(f"{API}tables/LB01/current/")
        assert mine.status_code == current.status_code == 200
        assert mine.json()["shoe"] == current.json()["shoe"]  # the round's state and the table's say the same
        return mine.json()["shoe"]

    first = ApiTable(client_for, operator, "LB01")
    assert shoe_of(first) == {"number": 1, "cut_card": False, "last_round": False, "new_shoe": False,
                              "message": ""}
    first.bet(player, {"main": 1000}, seat=1)
    first.close()
    first.cards("Th", "7s", "6d")
    first.ok(first.studio, first.url("cut-card/"))
    told = shoe_of(first)
    assert (told["cut_card"], told["last_round"]) == (True, False)
    assert told["message"] == ("The cut card came out in this round: the cards will be replaced in the following "
                               "round.")
    first.decide(player, "stand", seat=1)
    first.cards("Qs")
    first.complete()
    first.wait(RoundState.SETTLED)

    last = ApiTable(client_for, operator, "LB01")
    told = shoe_of(last)
    assert (told["number"], told["cut_card"], told["last_round"], told["new_shoe"]) == (1, False, True, False)
    assert told["message"] == "This is the last round of this shoe: the cards will be replaced after it."
    _play(last, player)
    assert shoe_of(last)["message"].startswith("This is the last round")  # no new shoe yet

    last.ok(last.studio, f"{API}tables/LB01/shoe/", {"burn_card": "5h"})
    told = shoe_of(last)  # between rounds the table's state is still the last round: its shoe was replaced
    assert (told["number"], told["new_shoe"]) == (1, True)
    assert told["message"] == "A new shoe has started: the cards have been replaced."
    nxt = ApiTable(client_for, operator, "LB01")
    told = shoe_of(nxt)
    assert (told["number"], told["cut_card"], told["last_round"], told["new_shoe"]) == (2, False, False, True)
    assert told["message"] == "A new shoe started with this round: the cards have been replaced."
    assert client.get(first.url()).json()["shoe"]["message"] == "A new shoe has started: the cards have been replaced."

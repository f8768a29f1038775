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

"""Money paths of the rules (docs/rules.md) that each need a round of their own, played through the API and
settled by the real Celery worker: Golden Chips and insurance, a multi-seat player's one insurance answer, Six
Card Charlie on a split hand, one player betting behind several seats, and the refusals of a table that has Bet
Behind or the new-shoe burn switched off."""

import pytest

from rounds.models import RoundBet, RoundState, Shoe, Spot
from tests.factories import RoundTableFactory
from tests.helpers import cash, chips
from tests.rounds.test_e2e import API, START, ApiTable, accounted

pytestmark = [pytest.mark.worker]


def _refused(response, status: int, words: str) -> dict:
    body = response.json()
    assert response.status_code == status, body
    assert words in body["message"], body
    return body


def test_one_insurance_answer_covers_every_cash_seat_of_a_multi_seat_player_and_no_golden_chip_seat(
    celery_worker, client_for, operator, classic_table, funded
):
    """rules.md: a multi-seat player's insurance insures every cash main bet they hold; a Golden Chip position is
    never insured, so a player whose only position is a Golden Chip one has no insurance to answer."""
    multi = funded(golden_chips=2000)
    chips_only = funded(golden_chips=2000)
    table = ApiTable(client_for, operator, "LB01")
    table.bet(multi, {"golden_chip": 2000}, seat=1)
    table.bet(multi, {"main": 1000}, seat=2)
    table.bet(chips_only, {"golden_chip": 2000}, seat=3)
    table.bet(multi, {"main": 2000}, seat=4)
    table.close()
    # One card to each seat, the dealer's ace, the second card to each seat (EU: no hole card).
    table.cards("Th", "9h", "Td", "8c", "As", "7h", "Ts", "8d", "Tc")
    assert table.round.state == RoundState.INSURANCE

    refused = table.client(chips_only).post(table.url("insurance/"), {"take": True}, content_type="application/json")
    _refused(refused, 409, "no insurance to answer")
    answer = table.insurance(multi, True)
    seats = dict(Spot.objects.filter(round=table.round, behind=False).values_list("pk", "seat"))
    assert sorted(seats[spot] for spot in answer["spots"]) == [2, 4]  # one answer, both cash seats, not seat 1
    insured = RoundBet.objects.filter(round=table.round, kind="insurance")
    assert sorted(insured.values_list("spot__seat", "amount")) == [(2, 500), (4, 1000)]
    assert table.round.state == RoundState.DECISIONS  # every insurable position has answered

    for player, seat in ((multi, 1), (multi, 2), (chips_only, 3), (multi, 4)):
        table.decide(player, "stand", seat=seat)
    table.cards("Kd")  # the dealer's blackjack: insurance pays 2:1
    table.complete()
    round = table.wait(RoundState.SETTLED)
    results = {label: data["result"] for label, data in round.settlement["spots"].items()}
    assert results["seat1"] == {"hands": [-2000]}  # the Golden Chips are lost and were never insured
    assert results["seat2"] == {"hands": [-1000], "insurance": 1000}
    assert results["seat3"] == {"hands": [-2000]}
    assert results["seat4"] == {"hands": [-2000], "insurance": 2000}
    assert (cash(multi), chips(multi)) == (START, 0)  # the insurance paid back both cash seats exactly
    assert (cash(chips_only), chips(chips_only)) == (START, 0)
    accounted(table, [multi, chips_only], golden={multi.pk, chips_only.pk})


def test_six_card_charlie_wins_on_a_split_hand(celery_worker, client_for, operator, free_bet_table, funded):
    """rules.md, Six Card Charlie: a hand (split hands too) that reaches six cards without busting stops and wins
    1:1, here a 17 against the dealer's 19 (the same round is vector OWN-CHARLIE-SPLIT in tests/vectors/own.json)."""
    player = funded()
    table = ApiTable(client_for, operator, "FB01")
    table.bet(player, {"main": 1000})
    table.close()
    table.cards("8h", "Tc", "8d", "9c")  # 8 8 against the dealer's 10 and 9
    table.decide(player, "split")  # a free split: hand 2 is the free bet
    table.cards("2c")  # hand 1: 8 2
    for card in ("2d", "2h", "As"):
        table.decide(player, "hit")
        table.cards(card)
    table.decide(player, "hit")
    table.cards("2s")  # hand 1: 8 2 2 2 A 2 = 17 in six cards: a Charlie, no decision more
    table.cards("Td")  # hand 2: 8 T = 18
    table.decide(player, "stand")
    table.complete()  # the dealer stands on 19
    round = table.wait(RoundState.SETTLED)
    assert round.settlement["spots"][f"p{player.pk}"]["result"] == {"hands": [1000, 0]}
    assert cash(player) == START + 1000
    accounted(table, [player])


def test_one_player_bets_behind_several_seats_and_each_follows_its_own_seat(
    celery_worker, client_for, operator, classic_table, funded
):
    """rules.md, Bet Behind: a player bets behind occupied seats (several if they like, never their own); each
    position follows its seat, with its own stake, and is never insured."""
    first, second, third, behind = funded(), funded(), funded(), funded()
    table = ApiTable(client_for, operator, "LB01")
    table.bet(first, {"main": 1000}, seat=1)
    table.bet(second, {"main": 1000}, seat=2)
    table.bet(third, {"main": 1000}, seat=3)
    table.bet(behind, {"main": 600}, seat=1, behind=True)
    table.bet(behind, {"main": 400, "perfect_pairs": 100}, seat=2, behind=True)
    table.bet(behind, {"main": 200}, seat=3, behind=True)
    own = table.client(third).post(table.url("bets/"), {"currency": "EUR", "bets": {"main": 200}, "seat": 3,
                                                         "behind": True}, content_type="application/json")
    _refused(own, 400, "cannot bet behind your own seat")
    table.close()
    table.cards("Th", "8h", "5c", "7s", "9c", "8d", "Td")  # seat 1: 19, seat 2: 8 8, seat 3: 5 T; dealer 7
    table.decide(first, "stand", seat=1)
    table.decide(second, "split", seat=2)
    table.cards("3s")  # hand 1: 8 3
    table.decide(second, "stand", seat=2)
    table.cards("Kh")  # hand 2: 8 K
    table.decide(second, "stand", seat=2)
    table.decide(third, "hit", seat=3)
    table.cards("9h")  # 5 T 9: bust
    table.cards("Qs")  # dealer 7 Q = 17
    table.complete()
    round = table.wait(RoundState.SETTLED)
    results = {label: data["result"] for label, data in round.settlement["spots"].items()}
    assert results[f"seat1-behind-p{behind.pk}"] == {"hands": [600]}
    assert results[f"seat2-behind-p{behind.pk}"] == {"hands": [-400, 400], "perfect_pairs": 1200}
    assert results[f"seat3-behind-p{behind.pk}"] == {"hands": [-200]}
    assert cash(behind) == START + 600 + 1200 - 200  # 8h 8d: a coloured pair, 12:1
    assert Spot.objects.filter(round=round, player=behind, behind=True).count() == 3
    accounted(table, [first, second, third, behind])


def test_a_table_without_bet_behind_refuses_one_and_keeps_the_seat_bet(
    celery_worker, client_for, operator, funded
):
    RoundTableFactory(profile="classic", code="LB09", bet_behind=False)
    seated, behind = funded(), funded()
    table = ApiTable(client_for, operator, "LB09")
    table.bet(seated, {"main": 1000}, seat=1)
    response = table.client(behind).post(table.url("bets/"), {"currency": "EUR", "bets": {"main": 1000}, "seat": 1,
                                                              "behind": True}, content_type="application/json")
    _refused(response, 400, "Table LB09 offers no Bet Behind")
    assert cash(behind) == START and not Spot.objects.filter(round=table.round, player=behind).exists()
    table.close()
    table.cards("Th", "7s", "9d")
    table.decide(seated, "stand", seat=1)
    table.cards("Qs")
    table.complete()
    table.wait(RoundState.SETTLED)
    accounted(table, [seated, behind])


def test_a_table_without_the_new_shoe_burn_refuses_a_burn_card_and_starts_no_shoe(
    celery_worker, client_for, operator, funded
):
    RoundTableFactory(profile="classic", code="LB09", new_shoe_burn=False)
    studio = client_for(operator)
    shoes = Shoe.objects.filter(table__code="LB09").count()
    response = studio.post(f"{API}tables/LB09/shoe/", {"burn_card": "7h"}, content_type="application/json")
    _refused(response, 400, "Table LB09 does not burn cards on a new shoe")
    assert Shoe.objects.filter(table__code="LB09").count() == shoes
    started = studio.post(f"{API}tables/LB09/shoe/", {"burn_card": ""}, content_type="application/json")
    assert started.status_code == 201 and started.json()["burned"] == 0

    # The shoe without a burn deals its cards as they come: a round plays and settles on it.
    player = funded()
    table = ApiTable(client_for, operator, "LB09")
    assert table.round.shoe.burn_card == "" and table.round.shoe.burned == 0
    table.bet(player, {"main": 1000}, seat=1)
    table.close()
    table.cards("Th", "7s", "9d")
    table.decide(player, "stand", seat=1)
    table.cards("Qs")
    table.complete()
    table.wait(RoundState.SETTLED)
    accounted(table, [player])

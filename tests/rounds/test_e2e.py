"""Whole rounds through the API on PostgreSQL, settled and voided by the real Celery worker.

After each round: the ledger audit is clean, every stake of the round is resolved exactly once, each player's
balance moved by exactly the engine's net result, and the audit trail replays to the same money."""

from datetime import timedelta

import pytest
from django.utils import timezone

from rounds import selectors, services, tasks
from rounds.models import Round, RoundState
from tests.helpers import cash, chips, join_table, wait_for
from wallet.audit import ledger_audit_run
from wallet.models import Bet, LedgerTransaction

pytestmark = [pytest.mark.worker]

API = "/api/rounds/"
START = 1_000_00


class ApiTable:
    """The studio and the game clients, talking to the API."""

    def __init__(self, client_for, studio, code):
        self.client_for = client_for
        self.studio = client_for(studio)
        self.clients = {}
        self.code = code
        self.game_number = self.ok(self.studio, API, {"table": code})["game_number"]

    def ok(self, client, url, data=None, status=(200, 201)):
        response = client.post(url, data or {}, content_type="application/json")
        assert response.status_code in status, (url, response.json())
        return response.json()

    def client(self, player):
        if player.pk not in self.clients:
            self.clients[player.pk] = self.client_for(player)
            join_table(self.clients[player.pk], self.code)  # a game client sits down before it plays
        return self.clients[player.pk]

    def url(self, tail=""):
        return f"{API}{self.game_number}/{tail}"

    def bet(self, player, bets, *, seat=None, behind=False):
        return self.ok(self.client(player), self.url("bets/"),
                       {"currency": "EUR", "bets": bets, "seat": seat, "behind": behind})

    def close(self):
        return self.ok(self.studio, self.url("close-betting/"))

    def cards(self, *cards):
        return [self.ok(self.studio, self.url("cards/"), {"card": card}) for card in cards]

    def decide(self, player, action, seat=None):
        return self.ok(self.client(player), self.url("decisions/"), {"action": action, "seat": seat})

    def insurance(self, player, take):
        return self.ok(self.client(player), self.url("insurance/"), {"take": take})

    def complete(self):
        return self.ok(self.studio, self.url("dealer-complete/"))

    @property
    def round(self) -> Round:
        return Round.objects.get(game_number=self.game_number)

    def wait(self, state, *, refunded=False):
        def reached():
            round = self.round
            return round.state == state and (not refunded or round.refunds_done_at is not None)

        wait_for(reached, what=f"round {self.game_number} to be {state}")
        return self.round


def accounted(table: ApiTable, players, *, golden=None):
    """Every stake resolved once, balances moved by the settled nets, the ledger sound, the replay equal."""
    round = table.round
    assert [str(d) for d in ledger_audit_run()] == []
    bets = Bet.objects.filter(reference=round.game_number)
    assert bets.exists() and not bets.filter(resolution__isnull=True).exists()
    if round.state == RoundState.SETTLED:
        assert LedgerTransaction.objects.filter(reference=round.game_number, kind="payout").count() == 1
        nets = {}
        for data in round.settlement["spots"].values():
            nets[data["player"]] = nets.get(data["player"], 0) + data["net"]
        for player in players:
            if player.pk not in (golden or {}):
                assert cash(player) == START + nets.get(player.pk, 0), player
        replay = selectors.round_replay(round=round)
        assert (replay.differences, replay.error, replay.matches) == ([], "", True)
    else:
        assert set(bets.values_list("resolution__outcome", flat=True)) == {"voided"}
        assert all(cash(player) == START for player in players)


def test_a_common_draw_round_with_many_players(celery_worker, client_for, operator, free_bet_table, funded):
    players = [funded() for _ in range(12)]
    stand, hit, double, split = players[0:3], players[3:6], players[6:9], players[9:12]
    table = ApiTable(client_for, operator, "FB01")
    for index, player in enumerate(players):
        table.bet(player, {"main": 1000 + 200 * index, **({"any_pair": 100} if index % 2 else {})})
    table.close()
    table.cards("8h", "9s", "8d", "7c")
    for group, action in ((stand, "stand"), (hit, "hit"), (double, "double"), (split, "split")):
        for player in group:
            table.decide(player, action)
    stats = table.client(players[0]).get(table.url("stats/")).json()
    assert stats["situations"][0]["counts"] == {"double": 3, "hit": 3, "split": 3, "stand": 3}
    table.cards("3c")
    for player in hit + split:
        table.decide(player, "stand")
    table.cards("Td")  # split hand 2: 8 T
    for player in split:
        table.decide(player, "stand")
    table.cards("8c")  # dealer 9 7 8 = 24
    table.complete()
    round = table.wait(RoundState.SETTLED)
    spots = round.settlement["spots"]
    assert spots[f"p{split[0].pk}"]["result"]["hands"] == [2800, 2800]  # hand 2 is the free bet: +1x main
    assert spots[f"p{players[1].pk}"]["result"]["any_pair"] == 800
    accounted(table, players)


def test_a_seated_round_with_bet_behind_multi_seat_and_golden_chips(
    celery_worker, client_for, operator, classic_table, funded
):
    a, b, c = funded(), funded(), funded()
    d = funded(golden_chips=2000)
    table = ApiTable(client_for, operator, "LB01")
    table.bet(a, {"main": 1000}, seat=1)
    table.bet(a, {"main": 2000, "perfect_pairs": 100}, seat=3)
    table.bet(b, {"main": 1000}, seat=2)
    table.bet(b, {"main": 600}, seat=1, behind=True)
    table.bet(c, {"main": 1000}, seat=3, behind=True)
    table.bet(d, {"golden_chip": 2000}, seat=4)
    table.close()
    table.cards("Th", "9c", "As", "Tc", "7s", "6d", "9h", "Kd", "9d")
    table.decide(a, "hit", seat=1)
    table.cards("5c")  # 21: stands by itself
    table.decide(b, "split", seat=2)
    table.cards("Ts")
    table.decide(b, "stand", seat=2)
    table.cards("2h")
    table.decide(b, "double", seat=2)
    table.cards("Kh")
    table.decide(d, "stand", seat=4)  # seat 3 is a blackjack: no decision
    table.cards("Qs")  # dealer 7 Q = 17
    table.complete()
    round = table.wait(RoundState.SETTLED)
    results = {label: data["result"] for label, data in round.settlement["spots"].items()}
    assert results["seat1"] == {"hands": [1000]} and results["seat3"] == {"hands": [3000], "perfect_pairs": -100}
    assert results["seat2"] == {"hands": [1000, 2000]}
    assert results[f"seat1-behind-p{b.pk}"] == {"hands": [600]}
    assert results[f"seat3-behind-p{c.pk}"] == {"hands": [1500]}
    assert (cash(d), chips(d)) == (START + 2000, 0)  # a Golden Chip win pays cash and spends the chips
    accounted(table, [a, b, c, d], golden={d.pk})


def test_an_insurance_round_where_the_worker_ends_the_insurance_phase(
    celery_worker, client_for, operator, free_bet_table, funded
):
    taker, decliner = funded(), funded()
    table = ApiTable(client_for, operator, "FB01")
    table.bet(taker, {"main": 1000})
    table.bet(decliner, {"main": 1000})
    table.close()
    table.cards("Th", "Ah", "9c", "6s")
    assert table.round.state == RoundState.INSURANCE
    table.insurance(taker, True)
    table.insurance(decliner, False)
    table.wait(RoundState.DECISIONS)  # the last answer queued round_advance; the peek found no blackjack
    table.decide(taker, "stand")
    table.decide(decliner, "stand")
    table.complete()  # dealer A 6: soft 17 stands
    round = table.wait(RoundState.SETTLED)
    assert round.settlement["spots"][f"p{taker.pk}"]["result"] == {"hands": [1000], "insurance": -500}
    accounted(table, [taker, decliner])


def test_a_malfunction_voids_the_round_and_the_worker_refunds_every_stake_once(
    celery_worker, client_for, operator, classic_table, funded
):
    a, b = funded(), funded()
    table = ApiTable(client_for, operator, "LB01")
    table.bet(a, {"main": 1000, "21+3": 100}, seat=1)
    table.bet(b, {"main": 1000}, seat=5)
    table.bet(a, {"main": 400}, seat=5, behind=True)
    table.close()
    table.cards("8h", "5c", "7d", "8d", "6c")
    table.decide(a, "split", seat=1)
    table.cards("2s")
    table.decide(a, "stand", seat=1)
    table.cards("3s")
    table.decide(a, "stand", seat=1)
    table.decide(b, "double", seat=5)
    table.cards("9h")
    table.cards("Td")  # dealer 7 T = 17
    outcome = table.cards("4c")[0]
    assert outcome["malfunction"] == "the dealer drew 4c on 17, but stands on 17 or more"
    table.wait(RoundState.VOIDED, refunded=True)
    tasks.round_void_refunds.delay(table.round.pk)  # a second delivery refunds nothing
    accounted(table, [a, b])
    assert LedgerTransaction.objects.filter(reference=table.game_number, kind="refund").count() == 1


def test_a_disconnected_player_and_a_timeout(celery_worker, client_for, operator, free_bet_table, funded):
    gone, absent, present = funded(), funded(), funded()
    table = ApiTable(client_for, operator, "FB01")
    for player in (gone, absent, present):
        table.bet(player, {"main": 1000})
    assert table.ok(table.client(gone), table.url("leave/"))["refunded"] is True
    table.close()
    assert table.ok(table.client(absent), table.url("leave/"))["refunded"] is False
    table.cards("5h", "Ts", "4d", "8c")
    table.decide(present, "stand")
    services.rounds_timers_sweep(now=timezone.now() + timedelta(hours=1))  # absent: 9, the timeout hits
    table.cards("Kc")  # absent: 19
    services.rounds_timers_sweep(now=timezone.now() + timedelta(hours=2))  # now it stands
    table.complete()
    round = table.wait(RoundState.SETTLED)
    assert round.settlement["spots"][f"p{absent.pk}"]["result"] == {"hands": [1000]}
    assert cash(gone) == START
    accounted(table, [absent, present])


def test_a_duplicated_settle_task_settles_once(celery_worker, client_for, operator, classic_table, funded):
    assert tasks.round_settle.acks_late and tasks.round_settle.reject_on_worker_lost
    player = funded()
    table = ApiTable(client_for, operator, "LB01")
    table.bet(player, {"main": 1000}, seat=1)
    table.close()
    table.cards("Th", "9c", "Qd")
    table.decide(player, "stand", seat=1)
    table.cards("8s")
    table.complete()
    for _ in range(3):
        tasks.round_settle.delay(table.round.pk)
    table.wait(RoundState.SETTLED)
    accounted(table, [player])


def test_a_seated_free_bet_split_gets_both_second_cards_before_hand_one_is_played(
    celery_worker, client_for, operator, seated_table, funded
):
    # The studio deals as the table does: seat 1, dealer up, seat 1, hole; after the split the second card of
    # hand 1 (5c), the second card of hand 2 (9h), then hand 1's hit (6d). The Bet Behind cannot fund the paid
    # split of tens, keeps hand 1 only, and takes the seat's hand 1 cards: T 5 6 = 21.
    seat, behind = funded(), funded(cash=1000)
    table = ApiTable(client_for, operator, "FS01")
    table.bet(seat, {"main": 1000}, seat=1)
    table.bet(behind, {"main": 1000}, seat=1, behind=True)
    table.close()
    assert [(o["target"], o["seat"]) for o in table.cards("Th", "9s", "Kd", "Tc")] == [
        ("seat", 1), ("dealer", None), ("seat", 1), ("dealer", None)]
    assert table.decide(seat, "split", seat=1)["effective"] == "split"
    assert [o["seat"] for o in table.cards("5c", "9h")] == [1, 1]
    table.decide(seat, "hit", seat=1)
    table.cards("6d")  # hand 1: T 5 6 = 21, stands by itself
    table.decide(seat, "stand", seat=1)  # hand 2: K 9 = 19
    table.complete()
    round = table.wait(RoundState.SETTLED)
    results = {label: data["result"] for label, data in round.settlement["spots"].items()}
    assert results["seat1"] == {"hands": [1000, 0]}
    assert results[f"seat1-behind-p{behind.pk}"] == {"hands": [1000]}
    assert cash(behind) == 2000
    accounted(table, [seat])


def test_a_seated_free_bet_split_card_for_hand_one_before_hand_two_has_its_second_is_refused(
    celery_worker, client_for, operator, seated_table, funded
):
    player = funded()
    table = ApiTable(client_for, operator, "FS01")
    table.bet(player, {"main": 1000}, seat=1)
    table.close()
    table.cards("8s", "Ts", "8h", "7c")
    table.decide(player, "split", seat=1)
    table.cards("3c")
    response = table.client(player).post(table.url("decisions/"), {"action": "hit", "seat": 1},
                                         content_type="application/json")
    assert response.status_code == 409 and "next card is coming" in response.json()["message"]
    table.cards("9d")
    table.decide(player, "hit", seat=1)
    table.cards("Td")  # S10: hand 1 8 3 T = 21, hand 2 8 9 = 17
    table.decide(player, "stand", seat=1)
    table.complete()
    round = table.wait(RoundState.SETTLED)
    assert round.settlement["spots"]["seat1"]["result"] == {"hands": [1000, 0]}
    accounted(table, [player])

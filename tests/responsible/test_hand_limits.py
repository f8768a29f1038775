"""Money staked during a hand: a paid double, a paid split and insurance are new cash at risk, so the player's
loss limit, a time-out and an unanswered reality check refuse them as they refuse a bet, and nothing moves. A Bet
Behind player's own rules apply to their follow-on stake; refused, their position plays on as unfunded."""

import threading

import pytest
from django.db import connections

from responsible import services as rg
from responsible.errors import Excluded, LimitReached
from rounds.models import Decision, RoundBet
from tests.factories import RoundTableFactory
from tests.helpers import cash, join_table
from tests.rounds.test_api import API, post
from tests.rounds.test_play import assert_replays, effective
from wallet.models import Bet

pytestmark = pytest.mark.django_db


def _moved(player) -> tuple[int, list[str], int, int]:
    """What the player has in cash, the kinds of their round bets, their wallet holds and their decisions."""
    return (cash(player), sorted(RoundBet.objects.filter(spot__player=player).values_list("kind", flat=True)),
            Bet.objects.filter(account__player=player).count(), Decision.objects.filter(spot__player=player).count())


def _seated_eleven(play, table, player, *, limit: int | None):
    """The player's 10.00 on seat 1 holds 5 6 (eleven) against the dealer's 6; a daily loss limit if given."""
    if limit is not None:
        rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=limit)
    r = play(table)
    r.bet(player, {"main": 10_00}, seat=1)
    r.close()
    r.cards("5h", "6c", "6d")  # seat 1, the dealer's up card, seat 1
    return r


def test_a_double_past_the_loss_limit_is_refused_and_nothing_moves(play, classic_table, funded):
    player = funded(cash=100_00)
    r = _seated_eleven(play, classic_table, player, limit=15_00)
    before = _moved(player)
    with pytest.raises(LimitReached) as refused:
        r.decide(player, "double", seat=1)
    assert "daily loss limit of" in refused.value.message and "resets at" in refused.value.message
    assert "5.00 is left" in refused.value.message or "€5.00" in refused.value.message
    assert _moved(player) == before == (90_00, ["main"], 1, 0)
    r.decide(player, "hit", seat=1)  # the hand plays on without the extra stake
    assert _moved(player)[1:] == (["main"], 1, 1)


def test_a_double_within_the_loss_limit_is_held(play, classic_table, funded):
    player = funded(cash=100_00)
    r = _seated_eleven(play, classic_table, player, limit=20_00)  # 10.00 + 10.00: exactly the limit
    assert r.decide(player, "double", seat=1)["funded"] is True
    assert _moved(player) == (80_00, ["double", "main"], 2, 1)
    r.cards("9s")  # 20
    r.cards("Td")  # the dealer's 6 T, then
    r.cards("8s")  # 24
    r.complete()
    assert r.settle().state == "settled"
    assert cash(player) == 120_00  # 20.00 staked, 40.00 back
    assert_replays(r)


def test_a_split_past_the_loss_limit_is_refused_and_nothing_moves(play, classic_table, funded):
    player = funded(cash=100_00)
    rg.limit_set(player=player, kind="loss", period="week", currency="EUR", value=19_99)
    r = play(classic_table)
    r.bet(player, {"main": 10_00}, seat=1)
    r.close()
    r.cards("8h", "6c", "8d")
    before = _moved(player)
    with pytest.raises(LimitReached, match="weekly loss limit"):
        r.decide(player, "split", seat=1)
    assert _moved(player) == before == (90_00, ["main"], 1, 0)


def test_insurance_past_the_loss_limit_is_refused_and_the_player_may_still_decline(play, classic_table, funded):
    player = funded(cash=100_00)
    rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=14_00)
    r = play(classic_table)
    r.bet(player, {"main": 10_00}, seat=1)
    r.close()
    r.cards("9h", "As", "9d")  # the dealer's ace: insurance (5.00) is offered
    assert r.refresh().state == "insurance"
    before = _moved(player)
    with pytest.raises(LimitReached, match="daily loss limit"):
        r.insurance(player, True)
    assert _moved(player) == before == (90_00, ["main"], 1, 0)
    r.insurance(player, False)
    assert r.refresh().state == "decisions"


def test_insurance_within_the_loss_limit_is_held(play, classic_table, funded):
    player = funded(cash=100_00)
    rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=15_00)
    r = play(classic_table)
    r.bet(player, {"main": 10_00}, seat=1)
    r.close()
    r.cards("9h", "As", "9d")
    r.insurance(player, True)
    assert _moved(player)[:2] == (85_00, ["insurance", "main"])


def test_a_time_out_started_during_the_hand_refuses_a_paid_double_but_the_hand_plays_on(play, classic_table,
                                                                                     funded):
    player = funded(cash=100_00)
    r = _seated_eleven(play, classic_table, player, limit=None)
    rg.exclusion_start(player=player, kind="time_out", days=1)
    with pytest.raises(Excluded, match="time-out"):
        r.decide(player, "double", seat=1)
    assert _moved(player) == (90_00, ["main"], 1, 0)
    r.decide(player, "stand", seat=1)  # open rounds settle normally
    r.cards("Td", "8s")
    r.complete()
    assert r.settle().state == "settled"


def test_a_bet_behind_past_its_own_loss_limit_follows_a_double_without_doubling(play, classic_table, funded):
    """docs/rules.md: a Bet Behind that cannot fund a paid double takes the same card at single stake ("hit and
    stand"); its player's own loss limit is what it cannot fund here, while the seat and another Bet Behind
    double."""
    seat, limited, free = funded(cash=100_00), funded(cash=100_00), funded(cash=100_00)
    rg.limit_set(player=limited, kind="loss", period="day", currency="EUR", value=15_00)
    r = play(classic_table)
    r.bet(seat, {"main": 10_00}, seat=1)
    r.bet(limited, {"main": 10_00}, seat=1, behind=True)
    r.bet(free, {"main": 10_00}, seat=1, behind=True)
    r.close()
    r.cards("5h", "6c", "6d")
    r.decide(seat, "double", seat=1)
    assert effective(limited, "follow") == ["hit_and_stand"]
    assert effective(free, "follow") == ["double"]
    assert _moved(limited)[:3] == (90_00, ["bet_behind"], 1)
    r.cards("9s")  # 20 for all three
    r.cards("Td", "8s")  # the dealer busts
    r.complete()
    r.settle()
    assert (cash(seat), cash(limited), cash(free)) == (120_00, 110_00, 120_00)
    assert_replays(r)


def test_the_api_refuses_a_double_past_the_loss_limit_with_a_409_naming_the_limit(play, classic_table, funded,
                                                                                  client_for):
    player = funded(cash=100_00)
    r = _seated_eleven(play, classic_table, player, limit=15_00)
    client = client_for(player)
    join_table(client, classic_table.code)
    url = f"{API}{r.round.game_number}/decisions/"
    response = post(client, url, {"action": "double", "seat": 1})
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "limit_reached"), body
    assert "daily loss limit" in body["message"]
    assert _moved(player) == (90_00, ["main"], 1, 0)
    assert post(client, url, {"action": "stand", "seat": 1}).status_code == 200


def test_a_paid_double_in_a_non_live_continuation_past_the_loss_limit_is_refused(play, classic_table, funded):
    """The position left the live round (rules.md, Disconnection: non_live): its player's own decisions in the
    continuation are checked as in the live round."""
    from rounds import services

    player = funded(cash=100_00)
    r = _seated_eleven(play, classic_table, player, limit=15_00)
    services.player_disconnect(round_id=r.id, player=player)
    services.continuation_reconnect(round_id=r.id, player=player)
    before = _moved(player)
    with pytest.raises(LimitReached, match="daily loss limit"):
        services.continuation_decide(round_id=r.id, player=player, action="double", seat=1, idempotency_key="d1")
    assert _moved(player) == before and before[:3] == (90_00, ["main"], 1)
    rg.limit_set(player=player, kind="loss", period="day", currency="EUR", value=10_00)  # used up: a hit stakes nothing
    assert services.continuation_decide(round_id=r.id, player=player, action="hit", seat=1,
                                        idempotency_key="h1")["action"] == "hit"


@pytest.mark.django_db(transaction=True)
def test_a_double_and_a_bet_at_another_table_that_together_pass_the_loss_limit_one_is_refused(play, classic_table,
                                                                                              funded):
    """The double's check takes the player's cash account lock before it reads the sums, as the bet's does: the
    second of the two sees the first's stake (alone, each is within the limit)."""
    player = funded(cash=100_00)
    seated = _seated_eleven(play, classic_table, player, limit=30_00)  # 10.00 used
    other = play(RoundTableFactory(profile="free_bet", code="FB01"))
    barrier = threading.Barrier(2)
    results: list = [None, None]
    moves = [lambda: seated.decide(player, "double", seat=1), lambda: other.bet(player, {"main": 15_00})]

    def run(i):
        try:
            barrier.wait()
            results[i] = moves[i]()
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(type(r).__name__ for r in results) == ["LimitReached", "dict"], results
    assert cash(player) in (80_00, 75_00)  # the double's 10.00 or the bet's 15.00 moved, never both

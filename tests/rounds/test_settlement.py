"""Settlement, voids and reversals: money moves once, exactly as the engine says, and the audit trail holds it."""

import pytest
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from rounds import errors, selectors, services
from rounds.engine.bets import PlayerEntry
from rounds.engine.rules import rules_for
from rounds.engine.script import settle_script
from rounds.engine.settle import HandResult, PlayerResult, StakeResult
from rounds.engine_adapter import (
    BetRecord,
    DecisionRecord,
    RoundRecord,
    SpotRecord,
    _proportional,
    bet_returns,
    rules_overrides,
    side_bet_returns,
    spot_bet_returns,
    spot_entry,
)
from rounds.models import RoundState
from tests.helpers import cash, chips
from wallet.models import BetResolution, LedgerTransaction

pytestmark = pytest.mark.django_db


def settled_round(play, table, players, *, seat_bets=None):
    """A classic EU round: seat 1 player 0 with 20 (stands), dealer 6 T 9 = 25; everyone wins."""
    r = play(table)
    r.bet(players[0], seat_bets or {"main": 1000, "21+3": 100}, seat=1)
    r.close()
    r.cards("Th", "6c", "Kd")
    r.decide(players[0], "stand", seat=1)
    r.cards("Ts", "9s")
    r.complete()
    return r


# --- the split of results over held bets (pure) --------------------------------------------------------------

def hand(outcome, *, cash_stake, golden=0, free=0, double=0, cash_return, golden_return=0, net=0):
    return HandResult((), outcome, cash_stake, golden, free, double, net, cash_return, golden_return)


def one_spot(bets):
    record = RoundRecord(rules=rules_for("classic_eu"), common_draw=False)
    record.spots = [SpotRecord(1, 7, 1, False, "EUR", False)]
    record.bets = [BetRecord(i + 1, 1, kind, hand_index, amount, funding, 100 + i)
                   for i, (kind, hand_index, amount, funding) in enumerate(bets)]
    return record, record.spots[0]


def test_a_ten_up_dealer_blackjack_returns_the_double_to_the_double_bet():
    record, spot = one_spot([("main", 0, 1000, "cash"), ("double", 0, 1000, "cash")])
    result = PlayerResult((hand("dealer_blackjack", cash_stake=2000, double=1000, cash_return=1000),), None, ())
    assert spot_bet_returns(record, spot, result) == {1: (0, 0), 2: (1000, 0)}


def test_a_golden_chip_push_returns_the_chips_and_the_cash_double_its_cash():
    record, spot = one_spot([("golden_chip", 0, 1000, "golden_chips"), ("double", 0, 1000, "cash")])
    result = PlayerResult((hand("push", cash_stake=1000, golden=1000, double=1000, cash_return=1000,
                                golden_return=1000),), None, ())
    assert spot_bet_returns(record, spot, result) == {1: (0, 1000), 2: (1000, 0)}


def test_a_free_split_hand_pays_through_the_spots_main_bet_and_side_bets_settle_apart():
    record, spot = one_spot([("main", 0, 1000, "cash"), ("main", 0, 1000, "cash"), ("any_pair", 0, 100, "cash")])
    result = PlayerResult(
        (hand("lose", cash_stake=2000, cash_return=0), hand("win", cash_stake=0, free=2000, cash_return=2000)),
        None, (("any_pair", StakeResult(100, 800, "pair")),),
    )
    assert spot_bet_returns(record, spot, result) == {1: (2000, 0), 2: (0, 0), 3: (900, 0)}


def test_held_bets_that_do_not_match_the_engine_are_a_settlement_mismatch_not_a_guess():
    record, spot = one_spot([("main", 0, 1000, "cash")])
    result = PlayerResult((hand("win", cash_stake=2000, cash_return=4000),), None, ())
    with pytest.raises(errors.SettlementMismatch, match="held 1000 cash"):
        spot_bet_returns(record, spot, result)


def test_spots_sharing_a_result_and_bet_shape_get_the_same_split_as_each_spot_alone():
    """bet_returns splits each (result, bets) pair once and reuses it by position: the same returns as splitting
    every spot, including the largest-stake remainder, a departed spot's side bets only, and a spot whose bets
    differ in stake from its neighbours'."""
    record = RoundRecord(rules=rules_for("free_bet"), common_draw=True)
    win = PlayerResult((hand("win", cash_stake=1001, cash_return=2003),), None,
                       (("any_pair", StakeResult(100, 800, "pair")),))
    shapes = [[("main", 0, 667, "cash"), ("main", 0, 334, "cash"), ("any_pair", 0, 100, "cash")],
              [("main", 0, 500, "cash"), ("main", 0, 501, "cash"), ("any_pair", 0, 100, "cash")]]
    results = {}
    bet_id = 0
    for spot_id in range(1, 8):
        record.spots.append(SpotRecord(spot_id, 100 + spot_id, None, False, "EUR", False))
        for kind, hand_index, amount, funding in shapes[spot_id % 2]:
            bet_id += 1
            record.bets.append(BetRecord(bet_id, spot_id, kind, hand_index, amount, funding, 1000 + bet_id))
        results[spot_id] = win  # one result object for all, as the engine's memo gives identical players
    record.departed = {3}
    record.reindex()
    want = {}
    for spot in record.spots:
        each = side_bet_returns if spot.id in record.departed else spot_bet_returns
        want.update(each(record, spot, results[spot.id]))
    got = bet_returns(record, results)
    assert got == want
    # 2003 * 667 // 1001 = 1334 and 2003 * 334 // 1001 = 668: the remainder goes to the larger stake
    assert (got[4], got[5], got[1], got[2]) == ((1335, 0), (668, 0), (1000, 0), (1003, 0))
    assert 7 not in got and got[9] == (900, 0)  # spot 3 departed: only its side bet is the live round's


def test_spots_with_the_same_bets_and_decisions_share_entry_fields_but_a_mistyped_stake_is_seen_as_it_is():
    """spot_entry works out each distinct set of bets and decisions once; a record holding a stake that is not an
    int (an audit trail may say 1000.0) is not memoised, so the engine sees every value as it is."""
    def record_of(amounts):
        record = RoundRecord(rules=rules_for("classic_eu"), common_draw=True)
        for spot_id, amount in enumerate(amounts, start=1):
            record.spots.append(SpotRecord(spot_id, spot_id, None, False, "EUR", False))
            record.bets.append(BetRecord(2 * spot_id, spot_id, "main", 0, amount, "cash", spot_id))
            record.bets.append(BetRecord(2 * spot_id + 1, spot_id, "any_pair", 0, 100, "cash", spot_id))
            record.decisions.append(DecisionRecord(spot_id, 1, "action", "double", "double", 0, spot_id != 2))
        record.reindex()
        return record

    record = record_of([1000, 1000, 1000])
    entries = [spot_entry(record, spot) for spot in record.spots]
    assert [e.id for e in entries] == ["p1", "p2", "p3"]
    assert entries[0] == PlayerEntry("p1", 1000, 0, (("any_pair", 100),), False, None, ("double",))
    assert entries[1].balance == 0 and entries[2].balance is None
    assert entries[2] == PlayerEntry("p3", 1000, 0, (("any_pair", 100),), False, None, ("double",))
    mixed = record_of([1000, 1000, 1000.0])
    [first, _, third] = [spot_entry(mixed, spot) for spot in mixed.spots]
    assert type(first.main) is int and type(third.main) is float


@settings(max_examples=200, deadline=None)
@given(total=st.integers(0, 10**9), amounts=st.lists(st.integers(1, 10**7), min_size=1, max_size=8),
       zero_weights=st.booleans())
def test_a_proportional_split_sums_exactly_and_never_goes_negative(total, amounts, zero_weights):
    bets = [BetRecord(i + 1, 1, "main", 0, amount, "cash", i) for i, amount in enumerate(amounts)]
    weights = [0] * len(bets) if zero_weights else amounts
    shares = _proportional(total, bets, weights)
    assert sum(shares.values()) == total and min(shares.values()) >= 0


def test_round_scripts_carry_the_tables_rules_exactly():
    for name in ("free_bet", "free_bet_seated", "classic_eu", "classic_us_peek_after"):
        rules = rules_for(name, {"charlie": None, "decks": 6})
        assert rules_for(rules.name, rules_overrides(rules)) == rules


# --- settling with the wallet -------------------------------------------------------------------------------

def test_settling_twice_moves_money_once(play, classic_table, funded):
    player = funded()
    r = settled_round(play, classic_table, [player])
    assert services.round_settle(round_id=r.id) is True
    counts = (LedgerTransaction.objects.count(), BetResolution.objects.count())
    assert services.round_settle(round_id=r.id) is False
    assert (LedgerTransaction.objects.count(), BetResolution.objects.count()) == counts
    assert cash(player) == 1_000_00 + 1000 - 100
    assert r.refresh().settlement["spots"]["seat1"]["result"] == {"hands": [1000], "21+3": -100}


def test_the_audit_trail_replays_to_the_recorded_settlement_and_the_wallets_money(play, classic_table, funded):
    player = funded()
    r = settled_round(play, classic_table, [player])
    r.settle()
    replay = selectors.round_replay(round=r.round)
    assert replay.matches and replay.differences == []
    # The returns per bet are the ledger's resolutions, not repeated in the round's settlement record.
    assert replay.wallet_returns == replay.bet_returns and replay.bet_returns
    assert "bets" not in r.round.settlement
    for script, result in zip(replay.scripts, replay.results, strict=True):
        assert settle_script(script) == result
        assert result["players"] == {label: want for label, want in script["expect"].items()}


def test_a_replay_notices_a_wallet_that_paid_something_else(play, classic_table, funded):
    player = funded()
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "6c", "Kd")
    r.decide(player, "stand", seat=1)
    r.cards("Ts", "9s")
    r.complete()
    replay = selectors.round_replay(round=r.refresh())
    assert not replay.matches
    assert replay.differences[-1].endswith("it has no recorded settlement")


@pytest.mark.parametrize("table", ["rounds_roundevent", "rounds_cardrecord", "rounds_decision", "rounds_roundbet"])
def test_the_audit_trail_and_its_facts_cannot_be_updated_or_deleted(play, classic_table, funded, table):
    r = settled_round(play, classic_table, [funded()])
    for statement in (f"UPDATE {table} SET id = id WHERE round_id = %s", f"DELETE FROM {table} WHERE round_id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cur:
            cur.execute(statement, [r.id])


# --- voids and reversals ------------------------------------------------------------------------------------

def test_a_staff_void_needs_the_permission_and_a_reason(play, free_bet_table, funded, player, support):
    r = play(free_bet_table)
    r.bet(funded(), {"main": 1000})
    with pytest.raises(PermissionDenied):
        services.round_void(round_id=r.id, actor=player, reason="I lost")
    with pytest.raises(errors.InvalidRoundRequest, match="A reason is required"):
        services.round_void(round_id=r.id, actor=support, reason="  ")
    assert r.refresh().state == RoundState.BETTING_OPEN
    services.round_void(round_id=r.id, actor=support, reason="dealer misdeal")
    assert (r.refresh().state, r.round.voided_by, r.round.void_kind) == (RoundState.VOIDED, support, "staff")
    with pytest.raises(errors.IllegalTransition, match="already voided"):
        services.round_void(round_id=r.id, actor=support, reason="again")
    services.round_void_refunds(round_id=r.id)


def test_a_void_while_settling_wins_and_the_settle_task_then_does_nothing(play, classic_table, funded, support):
    player = funded()
    r = settled_round(play, classic_table, [player])
    services.round_void(round_id=r.id, actor=support, reason="wrong card keyed")
    assert services.round_settle(round_id=r.id) is False
    assert services.round_void_refunds(round_id=r.id) is True
    assert cash(player) == 1_000_00
    assert set(BetResolution.objects.values_list("outcome", flat=True)) == {"voided"}


def test_a_settled_round_cannot_be_voided_only_reversed_by_staff_with_a_reason(
    play, classic_table, funded, support, player
):
    winner, chip_player = funded(), funded(golden_chips=2000)
    r = play(classic_table)
    r.bet(winner, {"main": 1000, "21+3": 100}, seat=1)
    r.bet(chip_player, {"golden_chip": 2000}, seat=2)
    r.close()
    r.cards("Th", "9h", "6c", "Kd", "9d")
    r.decide(winner, "stand", seat=1)
    r.decide(chip_player, "stand", seat=2)
    r.cards("Ts", "9s")
    r.complete()
    r.settle()
    assert (cash(winner), cash(chip_player), chips(chip_player)) == (100_900, 1_000_00 + 2000, 0)
    with pytest.raises(errors.RoundAlreadySettled, match="already settled: it cannot be voided"):
        services.round_void(round_id=r.id, actor=support, reason="dispute")
    with pytest.raises(PermissionDenied):
        services.round_reverse(round_id=r.id, actor=player, reason="dispute")
    with pytest.raises(errors.InvalidRoundRequest):
        services.round_reverse(round_id=r.id, actor=support, reason="")
    result = services.round_reverse(round_id=r.id, actor=support, reason="camera showed a misdeal")
    # As if voided: every stake back, no payout stands; written as new transactions, nothing edited.
    assert (cash(winner), cash(chip_player), chips(chip_player)) == (1_000_00, 1_000_00, 2000)
    assert {a["amount"] for a in result["adjustments"]} == {-900, -2000, 2000}
    assert (r.refresh().state, r.round.void_kind) == (RoundState.VOIDED, "reversal")
    assert r.round.events.filter(kind="reversed").get().actor == support
    with pytest.raises(errors.IllegalTransition, match="only a settled round is reversed"):
        services.round_reverse(round_id=r.id, actor=support, reason="twice")


def test_settling_takes_the_same_queries_for_two_players_or_ten(play, free_bet_table, funded):
    from django.db import connection as db
    from django.test.utils import CaptureQueriesContext

    players = [funded() for _ in range(10)]
    counts = []
    for size in (1, 2, 10):  # the first settlement also opens the house's accounts
        r = play(free_bet_table)
        for player in players[:size]:
            r.bet(player, {"main": 1000, "any_pair": 100})
        r.close()
        r.cards("8h", "9s", "8d", "7c")
        for player in players[:size]:
            r.decide(player, "stand")
        r.cards("Tc")
        r.complete()
        with CaptureQueriesContext(db) as queries:
            assert services.round_settle(round_id=r.id) is True
        counts.append(len(queries))
    assert counts[1] == counts[2] < 30


def test_replay_round_command_replays_a_recorded_round_by_game_number(play, classic_table, funded, capsys):
    from django.core.management import call_command

    r = settled_round(play, classic_table, [funded(cash=10_000)])
    r.settle()
    call_command("replay_round", "--game-number", r.round.game_number, "--check")
    printed = capsys.readouterr().out
    assert r.round.game_number in printed and '"hands": [1000]' in printed


def test_replay_round_command_names_an_unknown_game_number(db, capsys):
    from django.core.management import call_command

    with pytest.raises(SystemExit) as exit_info:
        call_command("replay_round", "--game-number", "XX01-20990101-000000")
    assert exit_info.value.code == 1
    assert "XX01-20990101-000000: no round has this game number" in capsys.readouterr().err


def test_the_settlement_runs_with_the_cyclic_collector_paused_and_restores_it(play, classic_table, funded):
    """The collector walked every live object of a big settlement again and again (half the worker's CPU of a
    10,000-player round, docs/benchmarks.md); round_settle pauses it, and gives it back even on an error."""
    import gc
    import sys

    r = settled_round(play, classic_table, [funded()])
    collections = []

    from rounds import engine_adapter
    from wallet.services import bets

    # The settlement's work (not the service's way in and out, where the collector is back on).
    work = {f.__code__ for f in (selectors.round_record_load, engine_adapter.settle_record,
                                  engine_adapter.settlement_summary, engine_adapter.bet_returns, bets.bet_resolve)}

    def count(phase, info):
        frame = sys._getframe()
        while frame is not None and frame.f_code not in work:
            frame = frame.f_back
        if phase == "start" and frame is not None:
            collections.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(1)  # a small round allocates too little to reach the usual threshold: any allocation does
    gc.callbacks.append(count)
    try:
        assert services.round_settle(round_id=r.id) is True
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*thresholds)
    assert collections == [] and gc.isenabled()
    assert r.refresh().state == RoundState.SETTLED


def test_a_paused_collector_comes_back_after_an_error():
    import gc

    from casino.gc_pause import gc_paused

    with pytest.raises(ValueError), gc_paused():
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled()

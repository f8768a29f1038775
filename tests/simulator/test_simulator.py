"""The table simulator: the same seed plays the same games (through the services or the API), the events it
injects really happen, every round it plays ends settled or voided with a sound ledger, and the demo loads once."""

from collections import Counter

import pytest
from django.core.management import call_command

from chat.models import ChatMessage
from players.models import TablePresence
from rounds import selectors
from rounds.engine.rules import rules_for
from rounds.models import Decision, Round, RoundEvent, RoundState, Spot, VoidKind
from rounds.simulator import ScriptedEvent, SimulationConfig, run_fingerprint, simulation_run
from rounds.simulator.habits import Offer, optimal_action, stake_from_chips
from tests.helpers import wait_for
from wallet.audit import ledger_audit_run
from wallet.models import Account, AccountKind, BetResolution, Entry, LedgerTransaction

# Small, quick runs with every kind of event switched on at rates that make them happen.
BUSY = dict(tables=3, players=9, rounds=15, settle="inline", parallel_tables=False, disconnect_rate=0.08,
            late_disconnect_rate=0.05, malfunction_rate=0.08, pause_rate=0.08)


def run(**options):
    return simulation_run(SimulationConfig(**{**BUSY, **options}))


def rounds_of(report):
    return Round.objects.filter(table__code__in=report.tables)


def assert_every_round_ended_and_replays(report):
    rounds = rounds_of(report)
    assert rounds.count() == report.config.rounds
    assert set(rounds.values_list("state", flat=True)) <= {RoundState.SETTLED, RoundState.VOIDED}
    assert not rounds.filter(state=RoundState.VOIDED, refunds_done_at__isnull=True).exists()
    for round in rounds.filter(state=RoundState.SETTLED):
        replay = selectors.round_replay(round=round)
        assert replay.matches, (round.game_number, replay.differences, replay.error)
    assert [str(d) for d in ledger_audit_run()] == []


@pytest.mark.slow
@pytest.mark.django_db
def test_the_same_seed_plays_the_same_games_and_another_seed_does_not(roles):
    first = run(seed=11, prefix="SA", rounds=12)
    again = run(seed=11, prefix="SB", rounds=12)
    other = run(seed=12, prefix="SC", rounds=12)
    games = run_fingerprint(first)
    assert len(games) == 12 and any(cards for _t, _s, _k, cards, _spots in games)
    assert run_fingerprint(again) == games
    assert run_fingerprint(other) != games
    for report in (first, again, other):
        assert_every_round_ended_and_replays(report)


@pytest.mark.slow
@pytest.mark.django_db
def test_the_api_transport_plays_the_same_games_as_the_services(roles):
    # Everyone confirms by hand and looks at other tables, so those moves go through the API too.
    moves = {"confirm_by_hand": True, "forget_confirm": 0.3, "switch_tables": 0.3}
    through_services = run(seed=5, prefix="SV", rounds=9, habit_overrides=moves)
    through_api = run(seed=5, prefix="AP", rounds=9, via="api", habit_overrides=moves)
    assert run_fingerprint(through_api) == run_fingerprint(through_services)
    # The API path really was taken: the players' requests carry idempotency keys the views recorded.
    assert through_api.stats["placements"] == through_services.stats["placements"] > 0
    for move in ("bets confirmed by hand", "confirmations forgotten", "table switches", "table switches back",
                 "host chat messages"):
        assert through_api.stats[move] == through_services.stats[move] > 0, move
    went_back = "players whose unconfirmed bets went back"  # (none here: each forgetter was voided or left first)
    assert through_api.stats[went_back] == through_services.stats[went_back]
    assert through_api.stats["chat messages"] > 0
    new_moves = ("refused settings", "refused confirm bets", "refused switch", "refused host chat")
    assert not [name for name in through_api.stats if name.startswith(new_moves)]
    assert_every_round_ended_and_replays(through_api)


@pytest.mark.slow
@pytest.mark.django_db
def test_injected_events_happen_and_leave_the_money_right(roles):
    scripted = tuple(
        ScriptedEvent(table=table, round=number, kind="malfunction", phase=phase)
        for table, number, phase in ((0, 1, "betting"), (1, 1, "dealing"), (2, 1, "decisions"), (0, 3, "dealer"))
    ) + (ScriptedEvent(table=1, round=2, kind="pause", phase="betting"),
         ScriptedEvent(table=2, round=3, kind="pause", phase="decisions"))
    report = run(seed=3, prefix="EV", rounds=12, players=12, scripted_events=scripted, malfunction_rate=0.0,
                 pause_rate=0.0, disconnect_rate=0.1, late_disconnect_rate=0.1)
    rounds = rounds_of(report)
    stats = report.stats

    malfunctions = rounds.filter(state=RoundState.VOIDED, void_kind=VoidKind.MALFUNCTION)
    assert malfunctions.count() >= 4
    assert stats["malfunction voids (betting)"] and stats["malfunction voids (dealing)"]
    assert stats["malfunction voids (decisions)"]
    assert stats["malfunction voids (dealer drew on 17+)"] + stats["malfunction voids (dealer)"] >= 1
    # Every stake of a voided round came back: its bets are all resolved as voided.
    for round in malfunctions:
        outcomes = {bet.wallet_bet.resolution.outcome for bet in round.bets.select_related("wallet_bet__resolution")}
        assert outcomes <= {"voided"}

    assert RoundEvent.objects.filter(round__in=rounds, kind="paused").count() == 2
    assert RoundEvent.objects.filter(round__in=rounds, kind="resumed").count() == 2
    assert stats["refused while paused: table_not_open"] == 2

    refunded = Spot.objects.filter(round__in=rounds, void_reason__contains="disconnected")
    assert refunded.count() == stats["disconnects during betting (refunded)"] > 0
    played_by_timer = Spot.objects.filter(round__in=rounds, disconnected_at__isnull=False, voided_at__isnull=True)
    stood = stats.get("disconnects during betting (bets stand, played by timeout)", 0)
    assert played_by_timer.count() == stats["disconnects after betting (played by timeout)"] + stood > 0
    assert Decision.objects.filter(spot__in=played_by_timer, action="timeout", actor_kind="system").exists()

    # The cashier's view: what the players hold plus what the house won is what was deposited, less withdrawn.
    cash = sum(Account.objects.filter(player__username__startswith="ev_", kind=AccountKind.PLAYER_CASH)
               .values_list("balance", flat=True))
    house = sum(Entry.objects.filter(account__player__isnull=True, account__kind__in=(
        AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_BETS_IN_PLAY, AccountKind.HOUSE_TIPS)
    ).values_list("amount", flat=True))
    assert cash + house == stats["deposited"] - stats["withdrawn"]
    assert_every_round_ended_and_replays(report)


@pytest.mark.slow
@pytest.mark.django_db
def test_a_run_uses_every_feature_of_the_tables(roles):
    # A seed whose run happens to use every feature (undo, seat moves, confirming by hand, chat and switching tables
    # included) at this size; the one player who confirms by hand at its Live Blackjack table forgets more often.
    report = run(seed=7, prefix="FT", rounds=18, players=12, malfunction_rate=0.0, pause_rate=0.0,
                 habit_overrides={"forget_confirm": 0.4})
    stats = report.stats
    for seen in ("common-draw bets", "seat bets", "bet behind", "multi seat", "golden chip bets", "side bets",
                 "deal now confirmations", "decisions: optimal", "shoes", "cards burned", "undo", "undo all",
                 "seat moves", "bets confirmed by hand", "confirmations forgotten",
                 "players whose unconfirmed bets went back", "chat messages", "host chat messages",
                 "table switches", "table switches back"):
        assert stats[seen] > 0, seen
    # The server agrees: the confirmations, the returns at the close, the chat and the switches really happened.
    assert RoundEvent.objects.filter(round__in=rounds_of(report), kind="bets_confirmed").count() == stats[
        "bets confirmed by hand"]
    returned = RoundEvent.objects.filter(round__in=rounds_of(report), kind="unconfirmed_returned")
    assert sum(len(event.payload["players"]) for event in returned) == stats["players whose unconfirmed bets went back"]
    chat = ChatMessage.objects.filter(table__code__in=report.tables)
    assert chat.filter(author_kind="player").count() == stats["chat messages"]
    assert chat.filter(author_kind="host").count() == stats["host chat messages"] == 3
    switched = TablePresence.objects.filter(table__code__in=report.tables, end_reason="left")
    assert switched.count() == stats["table switches"] + stats["table switches back"]
    rounds = rounds_of(report)
    kinds = Counter(rounds.values_list("bets__kind", flat=True))
    assert kinds["main"] and kinds["bet_behind"] and kinds["golden_chip"]
    assert {"free_bet", "free_bet_seated", "classic"} == {r.config["profile"] for r in rounds}
    assert_every_round_ended_and_replays(report)


@pytest.mark.worker
def test_the_worker_settles_what_the_simulator_plays_and_duplicates_change_nothing(celery_worker, roles):
    report = simulation_run(SimulationConfig(
        tables=3, players=12, rounds=9, seed=8, prefix="WK", settle="worker", parallel_tables=True,
        player_threads=2, duplicate_task_rate=0.5, malfunction_rate=0.1, settle_timeout=60,
    ))
    rounds = rounds_of(report)
    assert report.stats["settlement tasks delivered twice"] > 0
    assert report.stats["rounds settled"] + report.stats["rounds voided"] == 9
    payouts = Counter(LedgerTransaction.objects.filter(kind="payout").values_list("reference", flat=True))
    assert payouts and max(payouts.values()) == 1
    wait_for(lambda: not rounds.filter(state=RoundState.VOIDED, refunds_done_at__isnull=True).exists(),
             what="refunds of the voided rounds")
    assert BetResolution.objects.count() == len(set(BetResolution.objects.values_list("bet_id", flat=True)))
    assert_every_round_ended_and_replays(report)


@pytest.mark.slow
@pytest.mark.django_db
def test_simulate_tables_reports_what_it_played(roles, capsys):
    call_command("simulate_tables", "--rounds", "6", "--players", "6", "--prefix", "CM", "--settle", "inline",
                 "--sequential", "--seed", "4", "--progress")
    out, err = capsys.readouterr()
    assert "6 rounds at 3 tables (CMFB01, CMFS01, CMLB01) with 6 players" in out
    assert "rounds settled" in out and "6/6 rounds" in err
    assert Round.objects.filter(table__code__startswith="CM").count() == 6


@pytest.mark.django_db
def test_simulate_tables_refuses_bad_options(roles):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="prefix"):
        call_command("simulate_tables", "--prefix", "lower", "--rounds", "1")


@pytest.mark.slow
@pytest.mark.django_db
def test_the_demo_loads_rounds_once(roles, capsys):
    call_command("demo_data", "--rounds", "24", "--players", "6")
    first = capsys.readouterr().out
    demo = Round.objects.filter(table__code__in=("FB01", "LFB1", "LB01"))
    assert demo.count() == 24
    assert demo.filter(state=RoundState.SETTLED).count() >= 20
    assert demo.filter(state=RoundState.VOIDED, void_kind=VoidKind.MALFUNCTION).exists()  # the scripted one
    assert "operator  operator  / operator-demo" in first and "alice     / alice-demo" in first
    call_command("demo_data", "--rounds", "24", "--players", "6")
    second = capsys.readouterr().out
    assert "nothing added" in second and "alice     / alice-demo" in second
    assert demo.count() == 24
    assert [str(d) for d in ledger_audit_run()] == []


# --- the players' choices ----------------------------------------------------------------------------------------

def offer(cards, total, soft, up, actions=("hit", "stand", "double", "split"), free_hand=False):
    return Offer(spot_id=1, seat=None, hand_index=0, cards=tuple(cards), total=total, soft=soft,
                 actions=tuple(actions), double="paid", split="paid", free_hand=free_hand, up=up)


def test_optimal_players_follow_the_strategy_chart():
    free_bet, classic = rules_for("free_bet"), rules_for("classic")
    assert optimal_action(free_bet, offer(["5h", "6d"], 11, False, "6s")) == "double"  # free double
    assert optimal_action(free_bet, offer(["8h", "8d"], 16, False, "Ts")) == "split"  # free split
    assert optimal_action(classic, offer(["Th", "6d"], 16, False, "Ks", ("hit", "stand", "double"))) == "hit"
    assert optimal_action(classic, offer(["Th", "2d"], 12, False, "4s", ("hit", "stand", "double"))) == "stand"
    assert optimal_action(classic, offer(["Ah", "7d"], 18, True, "9s", ("hit", "stand", "double"))) == "hit"
    # Where the chart says double but only hit or stand are allowed, the chart's fallback applies.
    assert optimal_action(classic, offer(["5h", "3c", "3d"], 11, False, "6s", ("hit", "stand"))) == "hit"


def test_stakes_are_made_of_the_tables_chips_within_its_limits():
    chips = [100, 500, 2_500]
    assert stake_from_chips(1_234, chips=chips, low=100, high=500_000, even=True) == 1_200
    assert stake_from_chips(10, chips=chips, low=100, high=500_000, even=True) == 100
    assert stake_from_chips(10**9, chips=chips, low=100, high=500_000, even=True) == 500_000
    assert stake_from_chips(250, chips=[25], low=25, high=1_000, even=False) == 250
    assert stake_from_chips(75, chips=[25], low=25, high=1_000, even=True) % 2 == 0
    assert stake_from_chips(300, chips=[100], low=500, high=400, even=True) is None

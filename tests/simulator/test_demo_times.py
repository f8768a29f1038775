"""The demo's rounds read as real play over past days: each opened at the time its game number says, its bets,
cards and decisions each at their own later moment, settled after its last card, one round after another at a
table, and nothing dated after the demo finished."""

from datetime import UTC, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from rounds.models import (
    MAIN_KINDS,
    SIDE_KINDS,
    CardRecord,
    Decision,
    Round,
    RoundBet,
    RoundEvent,
    RoundState,
)
from wallet.models import LedgerTransaction

DEMO_TABLES = ("FB01", "LFB1", "LB01")


@pytest.fixture
def demo(roles):
    before = timezone.now()
    call_command("demo_data", "--rounds", "24", "--players", "6", "--days", "2")
    return before, timezone.now()


def strictly_increasing(times) -> bool:
    return all(earlier < later for earlier, later in zip(times, times[1:], strict=False))


@pytest.mark.slow
@pytest.mark.django_db
def test_every_demo_round_happens_in_order_at_believable_times(demo):
    started, finished = demo
    rounds = list(Round.objects.filter(table__code__in=DEMO_TABLES).select_related("table").order_by("opened_at"))
    assert len(rounds) == 24
    for round in rounds:
        name = round.game_number
        assert name.startswith(f"{round.table.code}-{round.opened_at.astimezone(UTC):%Y%m%d-%H%M%S}"), name
        bets = list(RoundBet.objects.filter(round=round).order_by("id").values_list("created_at", flat=True))
        # Placed while betting was open; insurance, doubles and splits come later, with the decisions.
        placed = list(RoundBet.objects.filter(round=round, kind__in=[*MAIN_KINDS, *SIDE_KINDS])
                      .values_list("created_at", flat=True))
        later = list(RoundBet.objects.filter(round=round).exclude(kind__in=[*MAIN_KINDS, *SIDE_KINDS])
                     .values_list("created_at", flat=True))
        cards = list(CardRecord.objects.filter(round=round).order_by("position")
                     .values_list("recorded_at", flat=True))
        decisions = list(Decision.objects.filter(round=round).order_by("created_at", "id")
                         .values_list("created_at", flat=True))
        # A Bet Behind follows its seat, and one timer decides for every absent player, at the same moment.
        chosen = list(Decision.objects.filter(round=round, actor_kind="player").values_list("created_at", flat=True))
        events = list(RoundEvent.objects.filter(round=round).order_by("id").values_list("at", flat=True))
        assert all(round.opened_at < at for at in bets), name
        assert sorted(events) == events and events[0] == round.opened_at, name
        assert strictly_increasing(cards), f"{name}: two cards at one moment or out of order"
        assert len(set(chosen)) == len(chosen), f"{name}: a player took two decisions at one moment"
        if round.betting_closed_at is not None:
            assert all(at < round.betting_closed_at for at in placed), name
            assert all(round.betting_closed_at < at for at in later), name
            assert all(round.betting_closed_at <= at for at in cards), name
        if round.state == RoundState.SETTLED:
            assert round.settled_at > max([*cards, *decisions, round.opened_at]), name
        else:
            assert round.state == RoundState.VOIDED and round.voided_at > round.opened_at, name
        assert round.opened_at >= finished - timedelta(days=2, hours=1), name
        assert max([*events, round.settled_at or round.voided_at]) < started, f"{name} ends after the demo ran"
    # One round after another at each table, spread over the days asked for.
    for code in DEMO_TABLES:
        played = [r for r in rounds if r.table.code == code]
        for earlier, later in zip(played, played[1:], strict=False):
            assert later.opened_at > (earlier.settled_at or earlier.refunds_done_at or earlier.voided_at)
        assert played[-1].opened_at - played[0].opened_at > timedelta(days=1)
    assert not LedgerTransaction.objects.filter(created_at__gt=started).exists()
    assert not RoundEvent.objects.filter(at__gt=started).exists()



"""The settlement benchmark's fast builder (bench/settle_template.py): a round scaled up by copying played spots
has the shape of a round the simulator played at the same size, and settles and replays like one."""

from collections import Counter

import pytest
from django.contrib.auth import get_user_model

from bench.settle_template import ScaleRefused, round_play, round_scale, scale_sources
from rounds import selectors, services
from rounds.models import Decision, Round, RoundBet, RoundEvent, RoundState, Spot
from wallet.audit import ledger_audit_run
from wallet.models import Account, Bet, BetResolution

PLAYED = 8
SCALED = 20  # not a multiple of PLAYED: the copies cycle through the played spots unevenly


def shape(round_id: int) -> dict:
    """What the settlement reads and writes, per standing spot: its bets' kinds, a decision log, the audit
    events; per round: every bet held and unresolved, each held from its player's own account."""
    spots = list(Spot.objects.filter(round_id=round_id, voided_at__isnull=True))
    bets = list(RoundBet.objects.filter(round_id=round_id, spot__voided_at__isnull=True).select_related("wallet_bet"))
    kinds = Counter(tuple(sorted(b.kind for b in bets if b.spot_id == s.pk and b.hand_index == 0)) for s in spots)
    events = Counter(RoundEvent.objects.filter(round_id=round_id, kind="bets_placed").values_list(
        "payload__spot__id", flat=True))
    owners = set(Account.objects.filter(pk__in={b.wallet_bet.account_id for b in bets}).values_list(
        "pk", "player_id"))
    return {
        "bet kinds per spot": set(kinds),
        "every spot placed its bets once in the audit trail": all(events[s.pk] == 1 for s in spots),
        "every spot decided": all(Decision.objects.filter(spot=s).exists() for s in spots),
        "every decision audited": Decision.objects.filter(round_id=round_id).count()
        == RoundEvent.objects.filter(round_id=round_id, kind="decision").count(),
        "every bet held and unresolved": not BetResolution.objects.filter(bet__round_bet__in=bets).exists(),
        "each bet from its player's account": all((b.wallet_bet.account_id, s_player[b.spot_id]) in owners
                                                 for s_player in [{s.pk: s.player_id for s in spots}]
                                                 for b in bets),
        "wallet meta names the spot": all(b.wallet_bet.meta["spot"] == b.spot_id for b in bets),
    }


def nets(round: Round) -> dict[int, int]:
    round.refresh_from_db()
    return {data["spot"]: data["net"] for data in round.settlement["spots"].values()}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_scaled_round_has_a_played_rounds_shape_and_settles_like_it(roles):
    played = round_play(players=SCALED, seed=3, threads=1, prefix="TP", settle="inline")
    small = round_play(players=PLAYED, seed=3, threads=1, prefix="TS", settle="inline")
    studio = get_user_model().objects.get(pk=small["studio_id"])
    sources = {s.pk: s for s in scale_sources(Round.objects.get(pk=small["round_id"]))}
    before = Spot.objects.filter(round_id=small["round_id"], voided_at__isnull=True).count()
    added = round_scale(round_id=small["round_id"], players=SCALED, studio=studio, threads=1, prefix="TX")

    standing = Spot.objects.filter(round_id=small["round_id"], voided_at__isnull=True).count()
    assert standing == SCALED and added["players"] == SCALED - before
    assert shape(small["round_id"]) == shape(played["round_id"])
    assert all(shape(small["round_id"]).values())

    copies = list(Spot.objects.filter(round_id=small["round_id"], player__username__startswith="TX").order_by("id"))
    assert len(copies) == added["players"]
    source_list = sorted(sources)
    for index, copy in enumerate(copies):
        source = sources[source_list[index % len(source_list)]]
        assert [(b.kind, b.hand_index, b.amount, b.funding) for b in copy.bets.order_by("id")] == [
            (b.kind, b.hand_index, b.amount, b.funding) for b in source.bets.order_by("id")]
        assert [(d.sequence, d.kind, d.action, d.effective, d.hand_index, d.cost, d.funded, d.stream_length)
                for d in copy.decisions.order_by("sequence")] == [
            (d.sequence, d.kind, d.action, d.effective, d.hand_index, d.cost, d.funded, d.stream_length)
            for d in source.decisions.order_by("sequence")]
        # Funded as the played player was: the same balance left once the bets are held.
        held_from = dict(Account.objects.filter(player=source.player).values_list("kind", "balance"))
        copy_accounts = dict(Account.objects.filter(player=copy.player).values_list("kind", "balance"))
        assert copy_accounts and all(held_from[kind] == balance for kind, balance in copy_accounts.items())

    for info in (played, small):
        services.dealer_complete(round_id=info["round_id"], actor=studio)
        round = Round.objects.get(pk=info["round_id"])
        if round.state == RoundState.SETTLING:
            assert services.round_settle(round_id=round.pk) is True
        round.refresh_from_db()
        assert round.state == RoundState.SETTLED
        replay = selectors.round_replay(round=round)
        assert replay.matches, (replay.differences, replay.error)
    scaled_nets = nets(Round.objects.get(pk=small["round_id"]))
    for index, copy in enumerate(copies):
        assert scaled_nets[copy.pk] == scaled_nets[source_list[index % len(source_list)]]
    assert not Bet.objects.filter(round_bet__round_id=small["round_id"], resolution__isnull=True).exclude(
        round_bet__spot__voided_at__isnull=False).exists()
    assert [str(d) for d in ledger_audit_run()] == []
    with pytest.raises(ScaleRefused, match="settled, not waiting for dealer_complete"):
        round_scale(round_id=small["round_id"], players=SCALED + 5, studio=studio, threads=1, prefix="TY")

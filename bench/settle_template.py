"""A big common-draw round built fast from a small one the table simulator played: the 100,000-player settlement.

Playing a round through the simulator costs a few service calls per player and per decision, and grows worse
than linearly with the table (each decision step reloads the round): 10,000 players take 10 to 15 minutes on a
2-CPU host, 100,000 would take hours. Settlement does not care how the state came to be, only what it is, and
at a common draw every player's hand is the shared cards plus their own decisions: a copy of a player who
placed the same bets and took the same decisions is another legal position of the same round.

`round_scale` therefore takes a round the simulator played up to the dealer's complete hand and adds players
until the round has `players` spots, each new one a copy of a played spot (taken in turn):

- a new player (a user in the player group) funded through the wallet's own services (`deposit`, and
  `golden_chips_grant` for a copied Golden Chip bet) with what the played player had before the round;
- the spot, then its bets held through the wallet's bulk hold `bet_hold_many` (every guard of a hold applies:
  funds, the balanced entries, the idempotency key), then the round's bets on those holds;
- the decisions and the audit trail (bets placed, confirmations, decisions with the bet a paid double held,
  timeouts) copied with the ids of the copy, so the round still replays from its audit trail and the ledger
  audit still finds every movement.

Written set-based (bulk inserts, a few thousand players per hold); nothing in it changes a row the simulator
wrote (the ledger and the audit trail refuse that anyway). tests/rounds/test_settle_template.py checks that
a scaled round has the shape of one the simulator played at the same size and that it settles and replays.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

# Round-level events (opened, cards, state changes...) are the round's once; these are a player's and copied
# (a player's other events, such as a voided spot's, are not: the copy is of the standing spot only).
PLAYER_EVENTS = ("bets_placed", "bets_confirmed", "confirmed", "decision", "timeout")
HOLD_BATCH_PLAYERS = 2_000


SIDE_BETS = ("any_pair", "21+3", "hot3")


def round_play(*, players: int, seed: int, threads: int, prefix: str = "BS", settle: str = "worker") -> dict:
    """Play a common-draw round through the table simulator up to the dealer's complete hand (the studio's next
    call would be dealer_complete): every player places a main bet and the three side bets of the free_bet
    profile and takes their own decisions (optimal strategy, habits, a few timeouts)."""
    import time
    from collections import Counter

    from rounds.models import Round
    from rounds.simulator.run import SimulationConfig, simulation_prepare, table_sims

    config = SimulationConfig(
        tables=1, players=players, rounds=1, seed=seed, prefix=prefix, settle=settle, player_threads=threads,
        disconnect_rate=0.0, late_disconnect_rate=0.0, malfunction_rate=0.0, pause_rate=0.0,
        habit_overrides={"plays": 1.0, "side_bets": 1.0, "repeat": 0.0, "double_bets": 0.0, "afk": 0.01},
        table_timers={"betting_seconds": 120, "decision_seconds": 60},
    )
    started = time.perf_counter()
    transport, studio, tables, sim_players = simulation_prepare(config)
    prepared = time.perf_counter() - started
    stats: Counter = Counter()
    [sim] = table_sims(config, transport=transport, studio=studio, tables=tables, players=sim_players, stats=stats)
    sim.shoe_new()
    started = time.perf_counter()
    play = sim.play_round(0, until="dealer_complete")
    played = time.perf_counter() - started
    round = Round.objects.get(pk=play.ref.id)
    if round.state != "dealer":
        raise ScaleRefused(f"round {round.game_number} ended {round.state} before the dealer's turn (a peeked "
                           "dealer blackjack?): try another seed")
    return {"round_id": round.pk, "game_number": round.game_number, "prepare_seconds": prepared,
            "play_seconds": played, "stats": dict(stats), "studio_id": studio.pk} | round_counts(round.pk)


def round_counts(round_id: int) -> dict[str, int]:
    """What the settlement will resolve: not the bets given back at the close, nor those of voided spots."""
    from rounds.models import Decision, RoundBet, Spot

    bets = RoundBet.objects.filter(round_id=round_id, returned__isnull=True, spot__voided_at__isnull=True)
    return {"spots": Spot.objects.filter(round_id=round_id, voided_at__isnull=True).count(), "bets": bets.count(),
            "side_bets": bets.filter(kind__in=SIDE_BETS).count(),
            "decisions": Decision.objects.filter(round_id=round_id).count()}


class ScaleRefused(Exception):
    """The played round has something a copy would not reproduce faithfully."""


def scale_sources(round) -> list:
    """The spots a copy can reproduce: standing, none of their bets given back, no continuation (a player
    whose spot was voided or returned took another path through the services than a copy would)."""
    from rounds.models import BetReturn, Continuation, Spot

    if not round.config.get("common_draw"):
        raise ScaleRefused(f"round {round.game_number} is not a common draw: its seats cannot be copied")
    if round.state != "dealer":
        raise ScaleRefused(f"round {round.game_number} is {round.state}, not waiting for dealer_complete")
    skipped = {*BetReturn.objects.filter(round=round).values_list("bet__spot_id", flat=True),
               *Continuation.objects.filter(round=round).values_list("spot_id", flat=True)}
    spots = [spot for spot in Spot.objects.filter(round=round, voided_at__isnull=True).select_related("player")
             .order_by("id") if spot.pk not in skipped]
    if not spots:
        raise ScaleRefused(f"round {round.game_number} has no spot a copy can reproduce")
    return spots


def _players_create(sources: list, copy_of: list[int], prefix: str) -> list:
    """One new user in the player group per copy, named after the player copied."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group

    model = get_user_model()
    password = make_password(None)
    users = model.objects.bulk_create([
        model(username=f"{prefix}{index}_{sources[source].player.username}"[:150], password=password,
              first_name=sources[source].player.first_name, email=f"{prefix}{index}@sim.example")
        for index, source in enumerate(copy_of)
    ], batch_size=5_000)
    group = Group.objects.get(name="player")
    through = model.groups.through
    through.objects.bulk_create([through(user_id=user.pk, group_id=group.pk) for user in users], batch_size=5_000)
    return users


def _players_fund(round, sources: list, copy_of: list[int], users: list, *, studio, threads: int) -> None:
    """Each copy gets, through the wallet's services, what its played player had when the round opened:
    the balance of each account its bets came from plus what those bets hold."""
    from rounds.simulator.threads import parallel
    from wallet import services as wallet
    from wallet.models import Account, AccountKind

    held: dict[tuple[int, int], int] = defaultdict(int)  # (player, account) -> held in this round
    for spot in sources:
        for bet in spot.live_bets:
            held[(spot.player_id, bet.wallet_bet.account_id)] += bet.amount
    accounts = {a.pk: a for a in Account.objects.filter(pk__in={account for _, account in held})}
    funding: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for (player, account_id), amount in sorted(held.items()):
        account = accounts[account_id]
        funding[player].append((account.kind, account.currency, account.balance + amount))

    def fund(item: tuple[int, Any]) -> None:
        index, user = item
        source = sources[copy_of[index]]
        for kind, currency, amount in funding[source.player_id]:
            key = f"bench-scale:{round.pk}:{user.pk}:{kind}"
            if amount <= 0:
                continue
            if kind == AccountKind.PLAYER_GOLDEN_CHIPS:
                wallet.golden_chips_grant(player=user, currency=currency, amount=amount, staff=studio,
                                          reason="Golden Chips of a copied player (settlement benchmark)",
                                          idempotency_key=key)
            else:
                wallet.deposit(player=user, currency=currency, amount=amount, idempotency_key=key, actor=user)

    parallel(list(enumerate(users)), fund, threads=threads)


def _remap(payload: dict, kind: str, *, spot: dict[int, int], player: dict[int, int], bet: dict[int, int],
           wallet_bet: dict[int, int]) -> dict:
    if kind == "bets_placed":
        return {**payload, "spot": {**payload["spot"], "id": spot[payload["spot"]["id"]],
                                    "player": player[payload["spot"]["player"]]},
                "bets": [{**b, "id": bet[b["id"]], "wallet_bet": wallet_bet[b["wallet_bet"]]} for b in payload["bets"]]}
    if kind == "decision":
        held = payload.get("bet")
        return {**payload, "spot": spot[payload["spot"]],
                "bet": {**held, "id": bet[held["id"]], "wallet_bet": wallet_bet[held["wallet_bet"]]} if held else None}
    if kind == "bets_confirmed":
        # Only the copied spot's bets (a player's other, voided spot is not copied).
        return {**payload, "player": player[payload["player"]], "bets": [bet[b] for b in payload["bets"] if b in bet]}
    if kind == "confirmed":
        return {**payload, "player": player[payload["player"]]}
    raise ScaleRefused(f"no copy rule for a {kind} event")


def round_scale(*, round_id: int, players: int, studio, threads: int = 4, prefix: str = "BX") -> dict[str, int]:
    """Add copies of the round's played spots until it has `players` spots; returns what was added."""
    from django.db import transaction

    from rounds.models import Decision, Round, RoundBet, RoundEvent, Spot
    from wallet import services as wallet
    from wallet.models import Bet

    round = Round.objects.get(pk=round_id)
    sources = scale_sources(round)
    bets_of: dict[int, list] = defaultdict(list)
    for bet in RoundBet.objects.filter(round=round).select_related("wallet_bet").order_by("id"):
        bets_of[bet.spot_id].append(bet)
    for spot in sources:
        spot.live_bets = bets_of[spot.pk]
    decisions_of: dict[int, list] = defaultdict(list)
    for decision in Decision.objects.filter(round=round).order_by("spot_id", "sequence"):
        decisions_of[decision.spot_id].append(decision)
    events_of: dict[int, list] = defaultdict(list)  # source player -> their events, in order
    timeouts: list[tuple[Any, dict]] = []
    by_spot = {spot.pk: spot for spot in sources}
    by_player = {spot.player_id: spot for spot in sources}
    for event in RoundEvent.objects.filter(round=round, kind__in=PLAYER_EVENTS).order_by("id"):
        payload = event.payload
        if event.kind == "timeout":
            timeouts.append((event, payload))
            continue
        spot = by_spot.get(payload["spot"]["id"] if event.kind == "bets_placed" else payload.get("spot")) \
            if event.kind in ("bets_placed", "decision") else by_player.get(payload["player"])
        if spot is not None:
            events_of[spot.player_id].append(event)
    standing = Spot.objects.filter(round=round, voided_at__isnull=True).count()
    copy_of = [index % len(sources) for index in range(max(players - standing, 0))]
    if not copy_of:
        return {"players": 0, "bets": 0, "decisions": 0, "events": 0}
    users = _players_create(sources, copy_of, prefix)
    _players_fund(round, sources, copy_of, users, studio=studio, threads=threads)
    wallet_bets = {b.pk: b for b in Bet.objects.filter(round_bet__round=round)}
    added = {"players": len(users), "bets": 0, "decisions": 0, "events": 0}
    for start in range(0, len(users), HOLD_BATCH_PLAYERS):
        batch = list(zip(range(start, start + HOLD_BATCH_PLAYERS), users[start:start + HOLD_BATCH_PLAYERS],
                         strict=False))
        with transaction.atomic(durable=True):
            spots = Spot.objects.bulk_create([
                Spot(round=round, player=user, seat=None, behind=False, currency=sources[copy_of[i]].currency,
                     created_at=sources[copy_of[i]].created_at, confirmed_at=sources[copy_of[i]].confirmed_at,
                     status=sources[copy_of[i]].status,
                     need_index=sources[copy_of[i]].need_index, insurance=sources[copy_of[i]].insurance)
                for i, user in batch
            ])
            holds = []
            for (i, user), spot in zip(batch, spots, strict=True):
                holds.append((user, [
                    wallet.BetHoldSpec(amount=b.amount, currency=b.currency, funding=b.funding,
                                       kind=wallet_bets[b.wallet_bet_id].kind,
                                       reference=wallet_bets[b.wallet_bet_id].reference,
                                       meta={**wallet_bets[b.wallet_bet_id].meta, "spot": spot.pk})
                    for b in sources[copy_of[i]].live_bets]))
            held = iter(wallet.bet_hold_many(holds_by_player=holds, idempotency_key=f"bench-scale:{round.pk}:{start}",
                                             reference=round.game_number,
                                             meta={"game": round.config["name"], "round": round.pk}, durable=False))
            new_bets, per_copy = [], []  # per copy: {source bet: its new bet}
            for (i, _user), spot in zip(batch, spots, strict=True):
                mine = {}
                for b in sources[copy_of[i]].live_bets:
                    mine[b] = RoundBet(round=round, spot=spot, kind=b.kind, hand_index=b.hand_index, amount=b.amount,
                                       currency=b.currency, funding=b.funding, wallet_bet=next(held),
                                       created_at=b.created_at)
                    new_bets.append(mine[b])
                per_copy.append(mine)
            RoundBet.objects.bulk_create(new_bets)
            new_decisions, new_events = [], []
            copied: dict[int, list[int]] = defaultdict(list)  # source spot -> its copies in this batch
            for (i, user), spot, mine in zip(batch, spots, per_copy, strict=True):
                source = sources[copy_of[i]]
                copied[source.pk].append(spot.pk)
                bet_map = {old.pk: new.pk for old, new in mine.items()}
                wallet_map = {old.wallet_bet_id: new.wallet_bet_id for old, new in mine.items()}
                if source.confirmed_through is not None:
                    spot.confirmed_through = bet_map[source.confirmed_through]  # its last confirmed bet
                for d in decisions_of[source.pk]:
                    new_decisions.append(Decision(
                        round=round, spot=spot, sequence=d.sequence, kind=d.kind, action=d.action,
                        effective=d.effective, hand_index=d.hand_index, cost=d.cost, funded=d.funded,
                        stream_length=d.stream_length, actor_kind=d.actor_kind,
                        actor_id=user.pk if d.actor_id == source.player_id else d.actor_id, created_at=d.created_at))
                for e in events_of[source.player_id]:
                    new_events.append(RoundEvent(
                        round=round, at=e.at, kind=e.kind, actor_kind=e.actor_kind,
                        actor_id=user.pk if e.actor_id == source.player_id else e.actor_id,
                        payload=_remap(e.payload, e.kind, spot={source.pk: spot.pk},
                                       player={source.player_id: user.pk}, bet=bet_map, wallet_bet=wallet_map)))
            Spot.objects.bulk_update([s for s in spots if s.confirmed_through is not None], ["confirmed_through"])
            for event, payload in timeouts:
                # A timeout names the spots whose timer ran out: one more per batch naming their copies.
                named = [copy for s in payload["spots"] for copy in copied.get(s, ())]
                if named:
                    new_events.append(RoundEvent(round=round, at=event.at, kind="timeout",
                                                 actor_kind=event.actor_kind, payload={**payload, "spots": named}))
            Decision.objects.bulk_create(new_decisions)
            RoundEvent.objects.bulk_create(new_events)
        added["bets"] += len(new_bets)
        added["decisions"] += len(new_decisions)
        added["events"] += len(new_events)
    return added

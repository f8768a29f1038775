"""Stakes given back while betting is open: an UNDO, an unconfirmed bet at the close, a seat given up.

A spot whose every live bet goes back is voided as a whole (`_spots_void`: the seat is free again); otherwise the
bets are returned one by one, each a `BetReturn` fact, in one wallet void. Either way a stake is released through
the ledger exactly once: the wallet resolves a bet once, and the callers hold the player's spots FOR UPDATE (or
the round FOR UPDATE), so two requests never return the same bet. A side bet never outlives its spot's main bet:
a return that leaves a spot without a main stake takes its side bets with it.

Confirmation (the Live Blackjack text) applies at classic tables: a spot's bets up to `Spot.confirmed_through` are
confirmed and can no longer be undone; at the close of betting a player whom the table confirms automatically has
every bet confirmed, and a player who confirms by hand gets back what they did not confirm.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import F, Max, OuterRef, Subquery

from rounds.audit import event_add
from rounds.errors import IllegalTransition
from rounds.models import MAIN_KINDS, ActorKind, BetReturn, Round, RoundBet, RoundState, Spot
from rounds.services._common import _table_playing
from rounds.services.voids import _spots_void
from wallet import services as wallet


def _betting_open(round: Round, *, now: datetime) -> None:
    """What every betting move checks first: betting is open, its time is not over, the table is playing."""
    if round.state != RoundState.BETTING_OPEN:
        raise IllegalTransition(f"Betting is closed for round {round.game_number}.")
    if round.deadline is not None and now >= round.deadline:
        raise IllegalTransition(f"Betting time for round {round.game_number} is over.")
    _table_playing(round)


CONFIRMING_PROFILE = "classic"


def confirmation_applies(round: Round) -> bool:
    """Bets are confirmed (by hand, or automatically at the end of betting time) at Live Blackjack tables."""
    return round.config["profile"] == CONFIRMING_PROFILE


def confirms_automatically(round: Round, player_ids: set[int]) -> set[int]:
    """Those of these players whose bets the table confirms at the end of betting time: the table's
    auto-confirmation is on and they did not switch it off in their settings."""
    if not round.config["features"].get("auto_confirm") or not player_ids:
        return set()
    from players.models import PlayerProfile  # the player's own setting; players sit on top of rounds

    by_hand = set(PlayerProfile.objects.filter(player_id__in=player_ids, auto_confirm_bets=False)
                  .values_list("player_id", flat=True))
    return player_ids - by_hand


def live_bets(spot_ids) -> dict[int, list[RoundBet]]:
    """The bets still standing on these spots (none returned), per spot, in the order they were placed."""
    bets: dict[int, list[RoundBet]] = defaultdict(list)
    for bet in RoundBet.objects.filter(spot_id__in=list(spot_ids), returned__isnull=True).order_by("id"):
        bets[bet.spot_id].append(bet)
    return bets


def is_confirmed(spot: Spot, bet: RoundBet) -> bool:
    return spot.confirmed_through is not None and bet.pk <= spot.confirmed_through


def bets_return(round: Round, spots: dict[int, Spot], chosen: dict[int, list[RoundBet]], *, reason: str,
                label: str, key: str, now: datetime, actor_kind: str, actor=None) -> dict[str, Any]:
    """Give back the `chosen` bets of these spots (the caller holds the spots' locks). `key` is the ledger key
    of the partial returns; `label` says why, in the player's words (ledger, audit). Returns the bet ids."""
    standing = live_bets(chosen)
    whole: list[Spot] = []
    partial: list[RoundBet] = []
    for spot_id, bets in chosen.items():
        ids = {bet.pk for bet in bets}
        left = [bet for bet in standing[spot_id] if bet.pk not in ids]
        if not any(bet.kind in MAIN_KINDS for bet in left):
            whole.append(spots[spot_id])  # nothing, or side bets only, would be left: the spot goes
        else:
            partial.extend(bets)
    returned = sorted(bet.pk for spot in whole for bet in standing[spot.pk])
    _spots_void(round, sorted(whole, key=lambda s: s.pk), reason=label, now=now, actor_kind=actor_kind,
                actor=actor)
    if partial:
        partial.sort(key=lambda bet: bet.pk)
        txn = wallet.bet_void(bet_ids=[bet.wallet_bet_id for bet in partial], reason=label,
                              reference=round.game_number, idempotency_key=key, meta={"round": round.pk},
                              durable=False)
        BetReturn.objects.bulk_create([BetReturn(round=round, bet=bet, reason=reason, at=now) for bet in partial])
        event_add(round, "bets_returned", actor_kind=actor_kind, actor=actor, at=now, payload={
            "bets": [bet.pk for bet in partial], "spots": sorted({bet.spot_id for bet in partial}),
            "reason": reason, "wallet_transaction": txn.pk})
        returned.extend(bet.pk for bet in partial)
    return {"returned": sorted(returned), "spots_voided": [spot.pk for spot in whole]}


def confirm_spots(spots: list[Spot], *, now: datetime) -> None:
    """Confirm every bet now standing on these spots, in one statement (a close may confirm thousands of Bet
    Behinds): each spot's `confirmed_through` becomes its latest standing bet."""
    if not spots:
        return
    latest = (RoundBet.objects.filter(spot=OuterRef("pk"), returned__isnull=True).order_by()
              .values("spot").annotate(last=Max("id")).values("last"))
    Spot.objects.filter(pk__in=[s.pk for s in spots]).annotate(last=Subquery(latest)).filter(
        last__isnull=False).exclude(confirmed_through=F("last")).update(
        confirmed_through=Subquery(latest), confirmed_at=now)


def unconfirmed_at_close(round: Round, *, now: datetime) -> None:
    """At the close of betting (the round locked FOR UPDATE): confirm the bets of every player the table
    confirms automatically, and give back every bet the others did not confirm (the Live Blackjack text)."""
    if not confirmation_applies(round):
        return
    spots = {s.pk: s for s in Spot.objects.filter(round=round, voided_at__isnull=True).order_by("id")}
    if not spots:
        return
    automatic = confirms_automatically(round, {s.player_id for s in spots.values()})
    confirm_spots([s for s in spots.values() if s.player_id in automatic], now=now)
    chosen: dict[int, list[RoundBet]] = {}
    for spot_id, bets in live_bets([pk for pk, s in spots.items() if s.player_id not in automatic]).items():
        left = [bet for bet in bets if not is_confirmed(spots[spot_id], bet)]
        if left:
            chosen[spot_id] = left
    if chosen:
        by_hand = {spots[spot_id].player_id for spot_id in chosen}
        result = bets_return(round, spots, chosen, reason="unconfirmed", label="bets not confirmed by the close",
                             key=f"round{round.pk}:unconfirmed", now=now, actor_kind=ActorKind.SYSTEM)
        event_add(round, "unconfirmed_returned", actor_kind=ActorKind.SYSTEM, at=now,
                  payload={"players": sorted(by_hand), **result})

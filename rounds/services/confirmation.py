"""Confirming bets and Deal Now (the Live Blackjack text).

At classic tables bets are confirmed by hand (`bets_confirm`), or automatically at the end of betting time where
the table's auto-confirmation is on and the player kept it on in their settings; then there is no Confirm.
Bets not confirmed at the close go back (rounds.services.returns). Confirmed bets cannot be undone; without the
table's Multiple Bets, confirming also ends the player's betting for the round.

Deal Now is offered while the seated players are no more than the table's `deal_now_players`; a player who
confirms by hand presses it only after confirming, and pressing it confirms the bets of one whom the table
confirms automatically. Once a seat's player pressed it the seat takes no more Bet Behind; when every seated
player has, betting closes early.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from rounds import selectors
from rounds.audit import event_add
from rounds.errors import BetRefused
from rounds.locks import round_lock, spots_lock
from rounds.models import ActorKind, Spot
from rounds.services._common import _now
from rounds.services.dealing import _betting_close
from rounds.services.returns import (
    _betting_open,
    confirm_spots,
    confirmation_applies,
    confirms_automatically,
    is_confirmed,
    live_bets,
)


def bets_confirm(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """Confirm every bet the player has in the round now. A repeat confirms nothing new and says so."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id, shared=True)
        _betting_open(round, now=now)
        code = round.config["code"]
        if not confirmation_applies(round):
            raise BetRefused(f"Bets at table {code} need no confirmation: they stand when betting closes.")
        if confirms_automatically(round, {player.pk}):
            raise BetRefused(f"Table {code} confirms your bets when betting time ends; to confirm by hand, "
                             "switch automatic confirmation off in your settings.")
        spots = list(spots_lock(round=round, player=player))
        standing = live_bets([s.pk for s in spots])
        if not any(standing.values()):
            raise BetRefused(f"You have no bets in round {round.game_number} to confirm.")
        by_id = {s.pk: s for s in spots}
        new = sorted(bet.pk for spot_id, bets in standing.items() for bet in bets
                     if not is_confirmed(by_id[spot_id], bet))
        if new:
            confirm_spots(spots, now=now)
            event_add(round, "bets_confirmed", actor_kind=ActorKind.PLAYER, actor=player, at=now,
                      payload={"player": player.pk, "bets": new})
    return {"confirmed": new, "multiple_bets": bool(round.config["features"].get("multiple_bets"))}


def betting_confirm(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """Deal Now: the seated player is ready; when every seated player is, betting closes early."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        rules = selectors.round_rules(round)
        _betting_open(round, now=now)
        features = round.config["features"]
        code = round.config["code"]
        if not (rules.deal_now and features["deal_now"]):
            raise BetRefused(f"Table {code} has no Deal Now.")
        seated = Spot.objects.filter(round=round, behind=False, seat__isnull=False, voided_at__isnull=True)
        everything = list(spots_lock(round=round, player=player))
        mine = [s for s in everything if not s.behind and s.seat is not None]
        if not mine:
            raise BetRefused("Only a seated player with a bet can press Deal Now.")
        players = seated.values("player_id").distinct().count()
        most = features.get("deal_now_players", 7)
        if players > most:
            raise BetRefused(f"Deal Now is offered at table {code} with at most {most} seated players; "
                             f"{players} are seated.")
        if confirmation_applies(round) and not confirms_automatically(round, {player.pk}):
            by_id = {s.pk: s for s in everything}
            if any(not is_confirmed(by_id[spot_id], bet) for spot_id, bets in live_bets(by_id).items()
                   for bet in bets):
                raise BetRefused("Confirm your bets first: Deal Now comes after your confirmation.")
        else:
            confirm_spots(everything, now=now)
        Spot.objects.filter(pk__in=[s.pk for s in mine], deal_now_at__isnull=True).update(deal_now_at=now)
        event_add(round, "confirmed", actor_kind=ActorKind.PLAYER, actor=player, at=now,
                  payload={"player": player.pk, "deal_now": True})
        closed = not seated.filter(deal_now_at__isnull=True).exists()
        if closed:
            _betting_close(round, now=now, actor_kind=ActorKind.SYSTEM, reason="deal now: every player confirmed")
    return {"confirmed": True, "betting_closed": closed}

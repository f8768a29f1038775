"""Multi Seat seat changes while betting is open: move a position to a free seat, or give one seat up and get
its bets back.

Only with no confirmed bets (rounds.services.returns): a player whom the table confirms automatically may change
seats until betting ends, one who confirms by hand until they confirm. The moved spot keeps its bets and
their holds (no money moves); Bet Behinds others placed on the old seat stay with that seat, and go back at the
close if nobody bets there (rules.md, Bet Behind). Between rounds there is nothing to move: a seat is taken by
betting on it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from rounds.audit import event_add
from rounds.errors import BetRefused
from rounds.idempotency import request_once
from rounds.locks import round_lock_for_bet
from rounds.models import ActorKind, Round, Spot
from rounds.services._common import _now
from rounds.services.returns import _betting_open, live_bets
from rounds.services.voids import _spots_void


def _seat_check(round: Round, seat, *, what: str) -> int:
    seats = round.config["seats"]
    if round.common_draw:
        raise BetRefused(f"Table {round.config['code']} is a common draw: there are no seats to change.")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
        raise BetRefused(f"Choose {what} from 1 to {seats} at table {round.config['code']}, not {seat!r}.")
    return seat


def _my_seat(round: Round, player, seat: int) -> tuple[Spot, list[Spot]]:
    """The player's spot on the seat and all their live spots (locked by the caller); no confirmed bet."""
    spots = list(Spot.objects.filter(pk__in=round.locked_spot_ids, voided_at__isnull=True).order_by("id"))
    spot = next((s for s in spots if s.seat == seat and not s.behind), None)
    if spot is None:
        raise BetRefused(f"You have no bet on seat {seat}.")
    if any(s.confirmed_through is not None for s in spots):
        raise BetRefused("Your bets are confirmed: seats can no longer change this round.")
    return spot, spots


def seat_move(*, round_id: int, player, from_seat: int, to_seat: int, idempotency_key: str,
              now: datetime | None = None) -> dict[str, Any]:
    """Move the player's position (with its bets) from one seat to a free one."""
    now = _now(now)

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=True)
        _betting_open(round, now=now)
        source = _seat_check(round, from_seat, what="the seat you leave")
        target = _seat_check(round, to_seat, what="the seat you take")
        if source == target:
            raise BetRefused(f"You are on seat {source} already.")
        spot, spots = _my_seat(round, player, source)
        if any(s.seat == target and s.behind for s in spots):
            raise BetRefused(f"You bet behind seat {target}: you cannot sit on a seat you bet behind.")
        if Spot.objects.filter(round=round, seat=target, behind=False, voided_at__isnull=True).exists():
            raise BetRefused(f"Seat {target} is taken by another player.")
        try:
            with transaction.atomic():
                Spot.objects.filter(pk=spot.pk).update(seat=target)
        except IntegrityError:
            raise BetRefused(f"Seat {target} was just taken by another player.") from None
        event_add(round, "spot_moved", actor_kind=ActorKind.PLAYER, actor=player, at=now,
                  payload={"spot": spot.pk, "player": player.pk, "from_seat": source, "to_seat": target})
        return {"spot": spot.pk, "seat": target}

    return request_once(user=player, key=idempotency_key, operation="seat_move", round_id=round_id,
                        payload={"from": from_seat, "to": to_seat}, write=write)


def seat_give_up(*, round_id: int, player, seat: int, idempotency_key: str,
                 now: datetime | None = None) -> dict[str, Any]:
    """Give up one seat: its bets go back to the player and the seat is free."""
    now = _now(now)

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=True)
        _betting_open(round, now=now)
        spot, _spots = _my_seat(round, player, _seat_check(round, seat, what="the seat you give up"))
        returned = sorted(bet.pk for bet in live_bets([spot.pk])[spot.pk])
        _spots_void(round, [spot], reason=f"the player gave up seat {spot.seat}", now=now,
                    actor_kind=ActorKind.PLAYER, actor=player)
        return {"spot": spot.pk, "seat": spot.seat, "returned": returned}

    return request_once(user=player, key=idempotency_key, operation="seat_give_up", round_id=round_id,
                        payload={"seat": seat}, write=write)

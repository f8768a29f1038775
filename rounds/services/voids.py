"""Voids, their refunds, and the reversal of a settled round.

A void changes the state at once and queues the refunds; the worker refunds every stake exactly once. A
settled round is never voided: staff reverse it with compensating wallet transactions.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.permissions import require_permission
from rounds.audit import actor_user, event_add
from rounds.errors import IllegalTransition, RoundAlreadySettled
from rounds.locks import round_lock, round_lock_full
from rounds.models import ActorKind, Round, RoundBet, RoundState, Spot, VoidKind
from rounds.services._common import _label, _now, _queue, _reason_check, _round_set, _transition
from wallet import services as wallet
from wallet.models import AccountKind, Funding


def _void(round: Round, *, kind: str, reason: str, actor, now: datetime) -> None:
    if round.state == RoundState.SETTLED:
        raise RoundAlreadySettled(
            f"Round {round.game_number} is already settled: it cannot be voided. Staff can reverse it instead "
            "(with a reason), which writes compensating transactions."
        )
    if round.state == RoundState.VOIDED:
        raise IllegalTransition(f"Round {round.game_number} is already voided.")
    _transition(round, RoundState.VOIDED, now=now, actor_kind=ActorKind.STAFF if actor else ActorKind.SYSTEM,
                actor=actor, reason=reason, voided_at=now, void_kind=kind, void_reason=reason,
                voided_by=actor_user(actor), deadline=None, turn_seat=None)
    event_add(round, "voided", actor_kind=ActorKind.STAFF if actor else ActorKind.SYSTEM, actor=actor, at=now,
              payload={"kind": kind, "reason": reason})
    _queue("round_void_refunds", round.pk)


def round_void(*, round_id: int, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Void a round that is not settled (staff with the void permission, with a reason; or the system).

    The state changes at once; the round_void_refunds task then refunds every stake exactly once.
    """
    if actor is not None:
        require_permission(actor, "void_rounds")
    reason = _reason_check(reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        _void(round, kind=VoidKind.STAFF if actor else VoidKind.MALFUNCTION, reason=reason, actor=actor, now=now)
    return round


def round_void_refunds(*, round_id: int) -> bool:
    """Refund every stake of a voided round not yet resolved, in one wallet batch; marks the refunds done.

    Idempotent: nothing to do (not voided, or already refunded) returns False.
    """
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = round_lock_full(round_id)
        if round is None or round.state != RoundState.VOIDED or round.refunds_done_at is not None:
            return False
        bets = list(
            RoundBet.objects.filter(round=round)
            .annotate(resolved=Exists(_resolution_of(OuterRef("wallet_bet_id"))))
            .filter(resolved=False).order_by("id")
        )
        txn = None
        if bets:
            txn = wallet.bet_void(
                bet_ids=[bet.wallet_bet_id for bet in bets], reason=round.void_reason or "round voided",
                reference=round.game_number, idempotency_key=f"round{round.pk}:void",
                meta={"game": round.config["name"], "round": round.pk}, durable=False,
            )
        _round_set(round, refunds_done_at=now)
        event_add(round, "refunded", actor_kind=ActorKind.SYSTEM, at=now, payload={
            "bets": [bet.pk for bet in bets], "wallet_transaction": txn.pk if txn else None,
        })
    return True


def _resolution_of(wallet_bet_id):
    from wallet.models import BetResolution

    return BetResolution.objects.filter(bet_id=wallet_bet_id)


def round_reverse(*, round_id: int, actor, reason: str, now: datetime | None = None) -> dict[str, Any]:
    """Reverse a settled round: compensating wallet adjustments put every player where a void would have
    (each stake back, no payout stands). Staff only, reason required, audited; the round becomes voided."""
    require_permission(actor, "void_rounds")
    reason = _reason_check(reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        if round.state != RoundState.SETTLED:
            raise IllegalTransition(
                f"Round {round.game_number} is {_label(round.state)}: only a settled round is reversed; "
                "void a round that is not settled."
            )
        deltas: dict[tuple[int, str, str], int] = defaultdict(int)
        for bet in RoundBet.objects.filter(round=round).select_related("wallet_bet__resolution", "spot"):
            resolution = bet.wallet_bet.resolution
            player_id = bet.spot.player_id
            if bet.funding == Funding.GOLDEN_CHIPS:
                deltas[(player_id, AccountKind.PLAYER_GOLDEN_CHIPS, bet.currency)] += (
                    bet.amount - resolution.chips_return)
                deltas[(player_id, AccountKind.PLAYER_CASH, bet.currency)] -= resolution.cash_return
            else:
                deltas[(player_id, AccountKind.PLAYER_CASH, bet.currency)] += bet.amount - resolution.cash_return
        users = get_user_model().objects.in_bulk({player_id for player_id, _k, _c in deltas})
        adjustments = []
        for (player_id, kind, currency), amount in sorted(deltas.items()):
            if not amount:
                continue
            txn = wallet.adjust(
                player=users[player_id], currency=currency, amount=amount, staff=actor, reason=reason,
                idempotency_key=f"round{round.pk}:reverse:{player_id}:{kind}:{currency}", account_kind=kind,
                reference=round.game_number, meta={"round": round.pk, "reversal": True}, durable=False,
            )
            adjustments.append({"player": player_id, "account": kind, "currency": currency, "amount": amount,
                                "wallet_transaction": txn.pk})
        _transition(round, RoundState.VOIDED, now=now, actor_kind=ActorKind.STAFF, actor=actor, reason=reason,
                    voided_at=now, void_kind=VoidKind.REVERSAL, void_reason=reason, voided_by=actor,
                    refunds_done_at=now)
        event_add(round, "reversed", actor_kind=ActorKind.STAFF, actor=actor, at=now,
                  payload={"reason": reason, "adjustments": adjustments})
    return {"adjustments": adjustments}


def _spots_void(round: Round, spots: list[Spot], *, reason: str, now: datetime, actor_kind: str,
                actor=None) -> None:
    """Refund every bet of these spots at once (betting still open, or a Bet Behind whose seat has no bet)."""
    if not spots:
        return
    bets = list(RoundBet.objects.filter(spot__in=spots).order_by("id"))
    txn = None
    if bets:
        txn = wallet.bet_void(
            bet_ids=[bet.wallet_bet_id for bet in bets], reason=reason, reference=round.game_number,
            idempotency_key=f"round{round.pk}:void-spots:{','.join(str(s.pk) for s in spots)}",
            meta={"round": round.pk}, durable=False,
        )
    Spot.objects.filter(pk__in=[s.pk for s in spots]).update(voided_at=now, void_reason=reason[:200])
    for spot in spots:
        event_add(round, "spot_voided", actor_kind=actor_kind, actor=actor, at=now, payload={
            "spot": spot.pk, "reason": reason, "bets": [b.pk for b in bets if b.spot_id == spot.pk],
            "wallet_transaction": txn.pk if txn else None,
        })

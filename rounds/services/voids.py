"""Voids, their refunds, and the reversal of a settled round.

A void changes the state at once and queues the refunds; the worker refunds every stake exactly once. A
settled round is never voided: staff reverse it with compensating wallet transactions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.permissions import require_permission
from accounts.staffaudit import Origin, for_round, staff_action_record
from rounds.audit import actor_user, event_add
from rounds.errors import IllegalTransition, RoundAlreadySettled
from rounds.locks import round_lock, round_lock_for_refunds
from rounds.models import ActorKind, Round, RoundBet, RoundEvent, RoundState, Spot, VoidKind
from rounds.reversal import round_reversal_moves
from rounds.services._common import _label, _now, _queue, _reason_check, _round_set, _transition
from wallet import services as wallet


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


def round_void(*, round_id: int, reason: str, actor=None, now: datetime | None = None,
               origin: Origin | None = None) -> Round:
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
        staff_action_record(actor=actor, action=StaffActionKind.ROUND_VOIDED, target=for_round(round), origin=origin,
                            reason=reason, at=now)
    return round


# Players per refund or reversal batch: each batch holds its players' accounts only for its own short
# transaction, so a player of a 10,000-player round betting at another table waits milliseconds, not seconds.
REFUND_BATCH_PLAYERS = 25


def round_void_refunds(*, round_id: int, batch_players: int = REFUND_BATCH_PLAYERS) -> bool:
    """Give back the money of a voided round in batches of players: every stake not yet resolved (a void), or
    the compensating adjustments (a reversal). Marks the refunds done after the last batch.

    Idempotent and resumable: each batch moves the round's cursor in its own transaction with the money (and
    the ledger's key per batch), so a crash resumes exactly after the last committed batch. Nothing to do
    (not voided, or already refunded) returns False.
    """
    did = False
    while True:
        with transaction.atomic(durable=True):
            round = round_lock_for_refunds(round_id)
            if round is None or round.state != RoundState.VOIDED or round.refunds_done_at is not None:
                return did
            _refund_batch(round, batch_players=batch_players, now=timezone.now())
            did = True


def _refund_batch(round: Round, *, batch_players: int, now: datetime) -> None:
    after = round.refunds_cursor
    players = list(Spot.objects.filter(round=round, player_id__gt=after).order_by("player_id")
                   .values_list("player_id", flat=True).distinct()[:batch_players])
    if round.void_kind == VoidKind.REVERSAL:
        payload = {"adjustments": _reverse_players(round, players)}
    else:
        payload = _void_players(round, players, after=after)
    last = len(players) < batch_players
    if players:
        _round_set(round, refunds_cursor=players[-1])
    if last:
        _round_set(round, refunds_done_at=now)
    if players or last:
        event_add(round, "refunded", actor_kind=ActorKind.SYSTEM, at=now, payload=payload | {
            "players": len(players), "after_player": after, "done": last})


def _void_players(round: Round, players: list[int], *, after: int) -> dict[str, Any]:
    bets = list(
        RoundBet.objects.filter(round=round, spot__player_id__in=players)
        .annotate(resolved=Exists(_resolution_of(OuterRef("wallet_bet_id"))))
        .filter(resolved=False).order_by("id")
    ) if players else []
    txn = None
    if bets:
        txn = wallet.bet_void(
            bet_ids=[bet.wallet_bet_id for bet in bets], reason=round.void_reason or "round voided",
            reference=round.game_number, idempotency_key=f"round{round.pk}:void:after{after}",
            meta={"game": round.config["name"], "round": round.pk}, durable=False,
        )
    return {"bets": [bet.pk for bet in bets], "wallet_transaction": txn.pk if txn else None}


def _resolution_of(wallet_bet_id):
    from wallet.models import BetResolution

    return BetResolution.objects.filter(bet_id=wallet_bet_id)


def _reverse_players(round: Round, players: list[int]) -> list[dict[str, Any]]:
    """The compensating adjustments of these players: each back where a void would have put them."""
    moves = round_reversal_moves(round=round, players=players)
    users = get_user_model().objects.in_bulk({entry.player_id for entry in moves})
    adjustments = []
    for entry in moves:
        for (kind, currency), amount in entry.moves.items():
            txn = wallet.adjust(
                player=users[entry.player_id], currency=currency, amount=amount, staff=round.voided_by,
                reason=round.void_reason,
                idempotency_key=f"round{round.pk}:reverse:{entry.player_id}:{kind}:{currency}",
                account_kind=kind, reference=round.game_number,
                meta={"round": round.pk, "reversal": True, "game": round.config.get("name", ""),
                      "staked": entry.staked.get(currency, 0), "paid": entry.paid.get(currency, 0)},
                durable=False,
            )
            adjustments.append({"player": entry.player_id, "account": kind, "currency": currency,
                                "amount": amount, "wallet_transaction": txn.pk})
    return adjustments


def round_reverse(*, round_id: int, actor, reason: str, now: datetime | None = None,
                  batch_players: int = REFUND_BATCH_PLAYERS, origin: Origin | None = None) -> dict[str, Any]:
    """Reverse a settled round: compensating wallet adjustments put every player where a void would have
    (each stake back, no payout stands). Staff only, reason required, audited; the round becomes voided.

    The state changes first, on its own; the adjustments then follow in batches of players (round_void_refunds),
    so no player's account waits on the whole round. A crash in between is resumed by the recovery sweep."""
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
        _transition(round, RoundState.VOIDED, now=now, actor_kind=ActorKind.STAFF, actor=actor, reason=reason,
                    voided_at=now, void_kind=VoidKind.REVERSAL, void_reason=reason, voided_by=actor,
                    refunds_cursor=0)
        event_add(round, "reversed", actor_kind=ActorKind.STAFF, actor=actor, at=now, payload={"reason": reason})
        staff_action_record(actor=actor, action=StaffActionKind.ROUND_REVERSED, target=for_round(round),
                            origin=origin, reason=reason, at=now)
    round_void_refunds(round_id=round.pk, batch_players=batch_players)
    adjustments = [adjustment for payload in RoundEvent.objects.filter(round_id=round.pk, kind="refunded")
                   .order_by("id").values_list("payload", flat=True) for adjustment in payload["adjustments"]]
    return {"adjustments": adjustments}


def _spots_void(round: Round, spots: list[Spot], *, reason: str, now: datetime, actor_kind: str,
                actor=None) -> None:
    """Refund every bet of these spots at once (betting still open, or a Bet Behind whose seat has no bet)."""
    if not spots:
        return
    bets = list(RoundBet.objects.filter(spot__in=spots, returned__isnull=True).order_by("id"))
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

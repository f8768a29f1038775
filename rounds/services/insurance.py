"""Insurance: the players' answers, the timer's declines, and the dealer's peek that ends the phase.

Insurance is answered per player and covers all of that player's insurable spots (cash main bet, not Bet
Behind): docs/rules.md, insurance for a multi-seat player covers every other position.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from responsible.checks import bet_allowed
from rounds import selectors
from rounds.engine.dealer import peeked_blackjack
from rounds.engine.play import TIMEOUT
from rounds.engine_adapter import RoundRecord, stake_totals
from rounds.errors import DecisionRefused, IllegalTransition, InvalidRoundRequest
from rounds.idempotency import request_once
from rounds.locks import round_lock, spots_lock
from rounds.models import ActorKind, BetKind, DecisionKind, Round, RoundBet, RoundState, Spot
from rounds.services._common import _label, _now, _queue, _table_playing, _transition
from rounds.services.play import _decision_write, _progress, _shared_play, _spots_refresh
from wallet import services as wallet
from wallet.models import Funding


def _insurable(record: RoundRecord) -> list[int]:
    spots = []
    for spot in record.live_spots():
        totals = stake_totals(record, spot.id)
        if not spot.behind and totals[BetKind.MAIN] and not totals[BetKind.GOLDEN_CHIP]:
            spots.append(spot.id)
    return spots


def _after_insurance(round: Round, record: RoundRecord, *, now: datetime) -> None:
    if peeked_blackjack(record.rules, record.dealer_cards):
        _transition(round, RoundState.SETTLING, now=now, actor_kind=ActorKind.SYSTEM,
                    reason="the dealer's peek found a blackjack", deadline=None, settling_at=now)
        _queue("round_settle", round.pk)
        return
    _transition(round, RoundState.DECISIONS, now=now, actor_kind=ActorKind.SYSTEM, deadline=None)
    spots = list(Spot.objects.filter(round=round, voided_at__isnull=True).order_by("id"))
    _spots_refresh(record, spots)
    _progress(round, now=now, new_step=True)


def insurance_decide(*, round_id: int, player, take: bool, idempotency_key: str,
                     now: datetime | None = None) -> dict[str, Any]:
    """Take or decline insurance (half the main bet) on every insurable spot of the player."""
    if not isinstance(take, bool):
        raise InvalidRoundRequest("take must be true or false.")
    now = _now(now)

    def write():
        round = round_lock(round_id, shared=_shared_play(round_id))
        if round.state != RoundState.INSURANCE:
            raise IllegalTransition(f"Round {round.game_number} offers no insurance now ({_label(round.state)}).")
        _table_playing(round)
        if round.deadline is not None and now >= round.deadline:
            raise DecisionRefused("The insurance time is over.")
        spots = list(spots_lock(round=round, player=player, behind=False, insurance__isnull=True))
        record = selectors.round_record_load(round, spot_ids=[s.pk for s in spots])
        insurable = set(_insurable(record))
        spots = [s for s in spots if s.pk in insurable]
        if not spots:
            raise DecisionRefused("You have no insurance to answer in this round.")
        result = _insurance_answer(round, record, spots, take=take, actor_kind=ActorKind.PLAYER, actor=player,
                                   now=now)
        if round.common_draw:
            _queue("round_advance", round.pk)
        else:
            _insurance_maybe_done(round, now=now)
        return result

    return request_once(user=player, key=idempotency_key, operation="insurance", round_id=round_id,
                        payload={"take": take}, write=write)


def _insurance_answer(round: Round, record: RoundRecord, spots: list[Spot], *, take: bool, actor_kind: str,
                      actor, now: datetime, action: str | None = None) -> dict[str, Any]:
    bets = []
    if take:
        costs = [stake_totals(record, spot.pk)[BetKind.MAIN] // 2 for spot in spots]
        specs = [
            wallet.BetHoldSpec(amount=cost, currency=spot.currency, kind=BetKind.INSURANCE,
                               reference=round.game_number, meta={"round": round.pk, "spot": spot.pk})
            for spot, cost in zip(spots, costs, strict=True)
        ]
        # Insurance is new cash at risk: the player's loss limit, an exclusion or an unanswered reality check
        # refuses it (the request rolls back), after the round and spot locks; once per currency staked.
        for currency in sorted({spec.currency for spec in specs}):
            bet_allowed(player=actor, currency=currency, now=now,
                        cash_amount=sum(spec.amount for spec in specs if spec.currency == currency))
        held = wallet.bet_hold(
            player=actor, holds=specs, idempotency_key=f"round{round.pk}:insurance:{actor.pk}",
            reference=round.game_number, meta={"game": round.config["name"], "round": round.pk}, durable=False,
        )
        bets = RoundBet.objects.bulk_create([
            RoundBet(round=round, spot=spot, kind=BetKind.INSURANCE, amount=spec.amount, currency=spot.currency,
                     funding=Funding.CASH, wallet_bet_id=bet.pk, created_at=now)
            for spot, spec, bet in zip(spots, specs, held, strict=True)
        ])
    by_spot = {bet.spot_id: bet for bet in bets}
    for spot in spots:
        bet = by_spot.get(spot.pk)
        _decision_write(round, record, spot, kind=DecisionKind.INSURANCE, action=action or ("take" if take else
                        "decline"), effective="take" if take else "decline", hand_index=0,
                        cost=bet.amount if bet else 0, funded=True if bet else None, actor_kind=actor_kind,
                        actor=actor, now=now, bet=bet)
    Spot.objects.filter(pk__in=[s.pk for s in spots]).update(insurance=take)
    return {"spots": [s.pk for s in spots], "insurance": take, "bets": [b.pk for b in bets]}


def _insurance_maybe_done(round: Round, *, now: datetime, force: bool = False) -> None:
    """End the insurance phase once every insurable spot answered (or, forced by the timer, decline the rest)."""
    if round.state != RoundState.INSURANCE:
        return
    record = selectors.round_record_load(round)
    unanswered = list(Spot.objects.filter(pk__in=_insurable(record), insurance__isnull=True).order_by("id"))
    if unanswered and not force:
        return
    for spot in unanswered:
        _insurance_answer(round, record, [spot], take=False, actor_kind=ActorKind.SYSTEM, actor=None, now=now,
                          action=TIMEOUT)
    _after_insurance(round, record, now=now)

"""The non-live continuation (rules.md, Disconnection: `non_live`): a disconnected player's positions leave the
live round when betting has closed, and the player finishes them alone on cards the server draws.

The live seat itself plays on in the live round with the timeout rule (its Bet Behinds follow it) and the live
round settles the position's side bets on the live cards; the position's main bet, Golden Chips, insurance and
every double and split stay held until the continuation settles them, once, under `round<id>:continuation...`
keys. Locks as everywhere: round, spot, account.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from responsible.checks import bet_allowed
from rounds import selectors
from rounds.audit import event_add
from rounds.continuation_play import ContinuationState, continuation_shoe
from rounds.engine.play import DOUBLE, FINISHED, SPLIT, TIMEOUT
from rounds.engine_adapter import (
    SIDE_KINDS,
    RoundRecord,
    position_cards,
    rules_overrides,
    spot_bet_returns,
    spot_turn,
)
from rounds.errors import DecisionRefused, IllegalTransition, InvalidRoundRequest
from rounds.idempotency import request_once
from rounds.locks import round_lock
from rounds.models import ActorKind, BetKind, Continuation, RoundBet, RoundState, Spot
from rounds.services._common import _now
from wallet import services as wallet
from wallet.errors import InsufficientFunds, UnknownAccount
from wallet.models import Funding

# A disconnection in these states sends the positions to a continuation; later, the live round has them.
CONTINUED_STATES = (RoundState.BETTING_CLOSED, RoundState.DEALING, RoundState.INSURANCE, RoundState.DECISIONS,
                    RoundState.DEALER)
PLAYER_ACTIONS = ("hit", "stand", "double", "split")
HAND_KINDS = ("main", "golden_chip", "insurance", "double", "split")


def _continuation_spots_start(round, record: RoundRecord, spots: list[Spot], *, now: datetime) -> list[int]:
    """Inside the disconnection's transaction (round locked): one continuation per position of the player."""
    rules = record.rules
    dealt = [card for cards in record.cards.values() for card in cards]
    started = []
    for spot in spots:
        if spot.behind or Continuation.objects.filter(spot=spot).exists():
            continue  # a Bet Behind follows the live seat; a position leaves the live round once
        spot_record = record.spot(spot.pk)
        first, stream = position_cards(record, spot.seat)
        used = 0
        if len(first) == 2:
            used = spot_turn(record, spot_record).next_card_index
        decisions = record.decisions_of(spot.pk, "action")
        carried = {"player": [str(c) for c in first], "stream": [str(c) for c in stream[:used]],
                   "dealer": list(record.cards.get(("dealer", 0), []))}
        continuation = Continuation.objects.create(
            round=round, spot=spot, player_id=spot.player_id, started_at=now,
            deadline=now + timedelta(seconds=rules.non_live_deadline), carried=carried,
            first=carried["player"], stream=carried["stream"], dealer=carried["dealer"],
            actions=[d.action for d in decisions], live_decisions=len(decisions),
            funded=[bool(d.funded) for d in decisions if d.funded is not None],
            insurance=any(b.kind == BetKind.INSURANCE for b in record.bets_of(spot.pk)),
            shoe=continuation_shoe(dealt),
        )
        event_add(round, "continuation_started", actor_kind=ActorKind.SYSTEM, at=now, payload={
            "continuation": continuation.pk, "spot": spot.pk, "player": spot.player_id, "carried": carried,
            "actions": continuation.actions, "funded": continuation.funded, "insurance": continuation.insurance,
            "deadline": continuation.deadline.isoformat()})
        _advance(round, continuation, now=now, by="timeout")
        started.append(continuation.pk)
    return started


def _state(round, continuation: Continuation) -> ContinuationState:
    bets = RoundBet.objects.filter(spot_id=continuation.spot_id, returned__isnull=True).values_list(
        "kind", "amount", "funding")
    main = sum(a for k, a, _f in bets if k in ("main", "bet_behind"))
    golden = sum(a for k, a, _f in bets if k == "golden_chip")
    insurance = sum(a for k, a, _f in bets if k == "insurance")
    spot = continuation.spot
    label = f"{spot.label}-continuation"
    return ContinuationState(
        rules=selectors.round_rules(round), label=label, main=main, golden=golden,
        insurance=continuation.insurance, first=list(continuation.first), stream=list(continuation.stream),
        dealer=list(continuation.dealer), actions=list(continuation.actions), funded=list(continuation.funded),
        unit=main + golden, insurance_stake=insurance, shoe=list(continuation.shoe))


def _store(round, continuation: Continuation, state: ContinuationState, *, now: datetime) -> None:
    if state.drawn:
        event_add(round, "continuation_cards", actor_kind=ActorKind.SYSTEM, at=now, payload={
            "continuation": continuation.pk, "spot": continuation.spot_id,
            "cards": [{"to": where, "card": card} for where, card in state.drawn]})
        state.drawn = []
    continuation.first, continuation.stream, continuation.dealer = state.first, state.stream, state.dealer
    continuation.actions, continuation.funded, continuation.shoe = state.actions, state.funded, state.shoe


def _advance(round, continuation: Continuation, *, now: datetime, by: str) -> str:
    """Draw what is due; when no decision is left, complete the dealer's hand and settle."""
    state = _state(round, continuation)
    status = state.advance()
    _store(round, continuation, state, now=now)
    if status == FINISHED:
        _settle(round, continuation, state, now=now, by=by)
    continuation.save()
    return status


def _settle(round, continuation: Continuation, state: ContinuationState, *, now: datetime, by: str) -> None:
    result = state.settle()
    spot = continuation.spot
    record = selectors.round_record_load(round, spot_ids=[spot.pk])
    record.bets = [b for b in record.bets if b.kind not in SIDE_KINDS]
    record.reindex()
    returns = spot_bet_returns(record, record.spot(spot.pk), result)
    wallet_ids = {bet.id: bet.wallet_bet_id for bet in record.bets}
    resolutions = [wallet.BetResolutionSpec(bet_id=wallet_ids[bet_id], cash_return=cash, chips_return=chips)
                   for bet_id, (cash, chips) in sorted(returns.items())]
    txn = wallet.bet_resolve(
        resolutions=resolutions, idempotency_key=f"round{round.pk}:continuation{continuation.pk}:settle",
        reference=round.game_number, meta={"game": round.config["name"], "round": round.pk}, durable=False)
    summary = {"result": result.to_script(), "net": result.net, "dealer": list(state.dealer),
               "bets": {str(k): list(v) for k, v in sorted(returns.items())}, "wallet_transaction": txn.pk,
               "script": state.script(name=f"{round.game_number}/continuation-{spot.label}",
                                      overrides=rules_overrides(state.rules), expect=None)}
    continuation.finished_at = continuation.settled_at = now
    continuation.finished_by = by
    continuation.settlement = summary
    event_add(round, "continuation_settled", actor_kind=ActorKind.SYSTEM, at=now,
              payload={"continuation": continuation.pk, "spot": spot.pk, "by": by, "settlement": summary})


def _continuation_for(round, *, player, seat: int | None) -> Continuation:
    rows = Continuation.objects.select_for_update().select_related("spot").filter(round=round, player=player)
    if seat is not None:
        rows = rows.filter(spot__seat=seat)
    found = list(rows.order_by("id"))
    if not found:
        raise DecisionRefused(f"You have no non-live continuation in round {round.game_number}"
                              + (f" on seat {seat}." if seat is not None else "."))
    if len(found) > 1:
        raise InvalidRoundRequest("Say which of your seats this decision is for.")
    return found[0]


def continuation_reconnect(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """The player is back: their continuations of the round open for their decisions (once)."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        rows = list(Continuation.objects.select_for_update().filter(round=round, player=player).order_by("id"))
        if not rows:
            raise DecisionRefused(f"You have no non-live continuation in round {round.game_number}.")
        if all(row.reconnected_at is not None for row in rows):
            raise IllegalTransition(f"You already reconnected to round {round.game_number}'s continuation.")
        for row in rows:
            if row.reconnected_at is None:
                row.reconnected_at = now
                row.save(update_fields=["reconnected_at"])
        event_add(round, "continuation_reconnected", actor_kind=ActorKind.PLAYER, actor=player, at=now,
                  payload={"player": player.pk, "continuations": [row.pk for row in rows]})
    return {"continuations": [row.pk for row in rows]}


def _hold(round, continuation: Continuation, *, kind: str, amount: int, hand: int, now: datetime) -> bool:
    spot = continuation.spot
    spec = wallet.BetHoldSpec(amount=amount, currency=spot.currency, kind=kind, reference=round.game_number,
                              meta={"round": round.pk, "spot": spot.pk, "hand": hand, "continuation": True})
    key = f"round{round.pk}:continuation{continuation.pk}:decision{len(continuation.actions) + 1}"
    try:
        held = wallet.bet_hold(player=spot.player, holds=[spec], idempotency_key=key, reference=round.game_number,
                               meta={"game": round.config["name"], "round": round.pk}, durable=False)
    except (InsufficientFunds, UnknownAccount):
        return False
    bet = RoundBet.objects.create(round=round, spot=spot, kind=kind, hand_index=hand, amount=amount,
                                  currency=spot.currency, funding=Funding.CASH, wallet_bet_id=held[0].pk,
                                  created_at=now)
    event_add(round, "continuation_bet", actor_kind=ActorKind.SYSTEM, at=now, payload={
        "continuation": continuation.pk, "spot": spot.pk,
        "bet": {"id": bet.pk, "kind": kind, "hand": hand, "amount": amount, "funding": Funding.CASH,
                "wallet_bet": held[0].pk}})
    return True


def _decide(round, continuation: Continuation, *, action: str, actor_kind: str, actor, now: datetime):
    if continuation.finished_at is not None:
        raise DecisionRefused("This continuation is finished: it has no decision left.")
    state = _state(round, continuation)
    point = state.turn().decision()
    if point is None:  # cannot happen once advanced; refuse rather than guess
        raise DecisionRefused("No decision is due in this continuation.")
    if action != TIMEOUT and action not in point.actions:
        hand = " ".join(str(card) for card in point.cards)
        raise DecisionRefused(f"You cannot {action} on {hand} ({point.total}); you may {', '.join(point.actions)}.")
    paid = (action == DOUBLE and point.double == "paid") or (action == SPLIT and point.split == "paid")
    if paid and all(state.funded):
        # The player's own paid double or split, as in the live round: their responsible-gambling rules may
        # refuse it (the request rolls back), after the round and continuation locks.
        bet_allowed(player=continuation.spot.player, currency=continuation.spot.currency, cash_amount=state.unit,
                    now=now)
    if paid:
        # Once one paid action could not be held, every later one falls back too (as in the live round).
        funded = all(state.funded) and _hold(
            round, continuation, kind=BetKind.SPLIT if action == SPLIT else BetKind.DOUBLE, amount=state.unit,
            hand=1 if action == SPLIT else point.hand_index, now=now)
        continuation.funded = [*continuation.funded, funded]
    continuation.actions = [*continuation.actions, action]
    event_add(round, "continuation_decision", actor_kind=actor_kind, actor=actor, at=now, payload={
        "continuation": continuation.pk, "spot": continuation.spot_id, "action": action,
        "hand": point.hand_index, "funded": continuation.funded[-1] if paid else None})
    status = _advance(round, continuation, now=now, by="player" if actor_kind == ActorKind.PLAYER else "timeout")
    return {"continuation": continuation.pk, "action": action, "hand": point.hand_index,
            "status": "finished" if status == FINISHED else "deciding"}


def continuation_decide(*, round_id: int, player, action: str, idempotency_key: str, seat: int | None = None,
                        now: datetime | None = None) -> dict[str, Any]:
    """A reconnected player's decision in their continuation (the live round's decision rules and errors)."""
    if action not in PLAYER_ACTIONS:
        raise InvalidRoundRequest(f"action must be one of {', '.join(PLAYER_ACTIONS)}, not {action!r}.")
    now = _now(now)

    def write():
        round = round_lock(round_id)
        if round.state == RoundState.VOIDED:
            raise IllegalTransition(f"Round {round.game_number} was voided: its bets are refunded.")
        continuation = _continuation_for(round, player=player, seat=seat)
        if continuation.reconnected_at is None:
            raise DecisionRefused("Reconnect to the round first: your continuation waits for you.")
        return _decide(round, continuation, action=action, actor_kind=ActorKind.PLAYER, actor=player, now=now)

    return request_once(user=player, key=idempotency_key, operation="continuation", round_id=round_id,
                        payload={"action": action, "seat": seat}, write=write)


def continuation_complete(*, continuation_id: int, now: datetime | None = None) -> bool:
    """The deadline passed: the timeout rule takes every remaining decision. Idempotent."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round_id = Continuation.objects.filter(pk=continuation_id).values_list("round_id", flat=True).first()
        if round_id is None:
            return False
        round = round_lock(round_id)
        continuation = Continuation.objects.select_for_update().select_related("spot__player").get(
            pk=continuation_id)
        if continuation.finished_at is not None or continuation.deadline > now or round.state == RoundState.VOIDED:
            return False
        while continuation.finished_at is None:
            _decide(round, continuation, action=TIMEOUT, actor_kind=ActorKind.SYSTEM, actor=None, now=now)
    return True


def continuations_sweep(*, now: datetime | None = None) -> list[int]:
    """Every continuation past its deadline: completed with the timeout rule (each in its own transaction)."""
    now = _now(now)
    due = list(Continuation.objects.filter(finished_at__isnull=True, deadline__lte=now)
               .exclude(round__state=RoundState.VOIDED).values_list("pk", flat=True))
    return [pk for pk in due if continuation_complete(continuation_id=pk, now=now)]


def continuation_view(continuation: Continuation) -> dict[str, Any]:
    """What the player (and support) see of a continuation: carried-over cards apart from drawn ones."""
    status = "finished" if continuation.finished_at else "deciding"
    view: dict[str, Any] = {
        "id": continuation.pk, "seat": continuation.spot.seat, "status": status,
        "carried": continuation.carried, "cards": {"player": continuation.first, "stream": continuation.stream,
                                                   "dealer": continuation.dealer},
        "actions": continuation.actions[continuation.live_decisions:],
        "deadline": continuation.deadline, "reconnected": continuation.reconnected_at is not None,
        "finished_by": continuation.finished_by or None,
        "result": continuation.settlement["result"] if continuation.settlement else None,
        "net": continuation.settlement["net"] if continuation.settlement else None,
        "may": [],
    }
    if status == "deciding":
        round = continuation.round
        point = _state(round, continuation).turn().decision()
        view["may"] = list(point.actions) if point is not None else []
    return view

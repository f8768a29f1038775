"""Players' decisions, Bet Behinds following their seat, and whose turn it is.

Common draw: a stream card is expected only when no player is still deciding, so everyone decides on the same
cards; the decision timer restarts with each new stream card. Seated: the timer restarts at every decision point
of the seat whose turn it is.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from responsible.checks import bet_allowed
from responsible.errors import ResponsibleError
from rounds import selectors
from rounds.audit import actor_user, event_add
from rounds.engine.play import (
    DECISION,
    DOUBLE,
    FINISHED,
    HIT,
    HIT_AND_STAND,
    NEEDS_CARD,
    SPLIT,
    SPLIT_HAND_ONE,
    STAND,
    TIMEOUT,
)
from rounds.engine_adapter import (
    RoundRecord,
    behind_has_hand,
    behind_unfunded,
    spot_turn,
    spot_unit,
    turn_status,
)
from rounds.errors import DecisionRefused, IllegalTransition, InvalidRoundRequest, NotYourTurn
from rounds.idempotency import request_once
from rounds.locks import round_lock, spots_lock
from rounds.models import (
    ActorKind,
    BetKind,
    CardTarget,
    Decision,
    DecisionKind,
    Round,
    RoundBet,
    RoundState,
    Spot,
    SpotStatus,
)
from rounds.services._common import _label, _now, _queue, _round_set, _seconds, _table_playing, _transition
from wallet import services as wallet
from wallet.errors import InsufficientFunds, UnknownAccount
from wallet.models import Funding

PLAYER_ACTIONS = (HIT, STAND, DOUBLE, SPLIT)
STATUS_OF = {DECISION: SpotStatus.DECIDING, NEEDS_CARD: SpotStatus.NEEDS_CARD, FINISHED: SpotStatus.FINISHED}


def _bet_payload(bet: RoundBet) -> dict[str, Any]:
    return {"id": bet.pk, "kind": bet.kind, "hand": bet.hand_index, "amount": bet.amount, "funding": bet.funding,
            "wallet_bet": bet.wallet_bet_id}


def _shared_play(round_id: int) -> bool:
    """Players at a common draw act in parallel (round FOR SHARE); a seated table plays one seat at a time."""
    config = Round.objects.filter(pk=round_id).values_list("config", flat=True).first()
    return bool(config and config.get("common_draw"))


def _decision_write(round: Round, record: RoundRecord, spot: Spot, *, kind: str, action: str, effective: str,
                    hand_index: int, cost: int, funded: bool | None, actor_kind: str, actor, now: datetime,
                    bet: RoundBet | None = None) -> Decision:
    sequence = len(record.decisions_of(spot.pk)) + 1
    stream = len(record.cards.get((CardTarget.STREAM, 0), []))
    decision = Decision.objects.create(
        round=round, spot=spot, sequence=sequence, kind=kind, action=action, effective=effective,
        hand_index=hand_index, cost=cost, funded=funded, stream_length=stream, actor_kind=actor_kind,
        actor=actor_user(actor), created_at=now,
    )
    record.decisions.append(selectors.decision_record(decision))
    if bet is not None:
        record.bets.append(selectors.bet_record(bet))
    record.reindex()
    event_add(round, "decision", actor_kind=actor_kind, actor=actor, at=now, payload={
        "spot": spot.pk, "sequence": sequence, "kind": kind, "action": action, "effective": effective,
        "hand": hand_index, "cost": cost, "funded": funded, "stream_length": stream,
        "bet": _bet_payload(bet) if bet is not None else None,
    })
    return decision


def _hold_extra(round: Round, spot: Spot, *, player, amount: int, kind: str, hand_index: int, key: str,
                now: datetime) -> RoundBet | None:
    """Hold a paid double's or split's stake; None when the wallet cannot cover it (the fallback applies)."""
    spec = wallet.BetHoldSpec(amount=amount, currency=spot.currency, kind=kind, reference=round.game_number,
                              meta={"round": round.pk, "spot": spot.pk, "hand": hand_index})
    try:
        held = wallet.bet_hold(player=player, holds=[spec], idempotency_key=key, reference=round.game_number,
                               meta={"game": round.config["name"], "round": round.pk}, durable=False)
    except (InsufficientFunds, UnknownAccount):
        return None  # the wallet's savepoint rolled back; nothing was written
    return RoundBet.objects.create(round=round, spot=spot, kind=kind, hand_index=hand_index, amount=amount,
                                   currency=spot.currency, funding=Funding.CASH, wallet_bet_id=held[0].pk,
                                   created_at=now)


def _decide(round: Round, record: RoundRecord, spot: Spot, *, action: str, actor_kind: str, actor,
            now: datetime) -> dict[str, Any]:
    spot_record = record.spot(spot.pk)
    play = spot_turn(record, spot_record)
    point = play.decision()
    if point is None:
        waiting = play.advance() == NEEDS_CARD
        raise DecisionRefused("No decision is due: " + ("your next card is coming." if waiting
                                                        else "your hands are finished."))
    if action != TIMEOUT and action not in point.actions:
        hand = " ".join(str(card) for card in point.cards)
        raise DecisionRefused(f"You cannot {action} on {hand} ({point.total}); you may {', '.join(point.actions)}.")
    paid = (action == DOUBLE and point.double == "paid") or (action == SPLIT and point.split == "paid")
    # The seat's Bet Behinds are locked before any account, as every service locks: round, spots, accounts.
    behinds = (list(spots_lock(round=round, with_player=True, seat=spot.seat, behind=True))
               if spot.seat is not None else [])
    bet = None
    funded = None
    hand_index = point.hand_index
    if paid:
        already_short = any(d.funded is False for d in record.decisions_of(spot.pk))
        if not already_short:
            # The player's own paid double or split is new money at risk: a loss limit, an exclusion or an
            # unanswered reality check refuses it (the request rolls back), after the round and spot locks.
            bet_allowed(player=spot.player, currency=spot.currency, cash_amount=spot_unit(record, spot.pk), now=now)
            bet = _hold_extra(
                round, spot, player=spot.player, amount=spot_unit(record, spot.pk), hand_index=(
                    1 if action == SPLIT else hand_index), kind=BetKind.SPLIT if action == SPLIT else BetKind.DOUBLE,
                key=f"round{round.pk}:spot{spot.pk}:decision{len(record.decisions_of(spot.pk)) + 1}", now=now,
            )
        funded = bet is not None
        if not funded:
            play.balance = 0
    effective = play.apply(action)
    _decision_write(round, record, spot, kind=DecisionKind.ACTION, action=action, effective=effective,
                    hand_index=hand_index, cost=spot_unit(record, spot.pk) if paid else 0, funded=funded,
                    actor_kind=actor_kind, actor=actor, now=now, bet=bet)
    if spot.seat is not None:
        _follow(round, record, behinds, hand_index=hand_index, seat_effective=effective, now=now)
    _spots_refresh(record, [spot])
    return {"spot": spot.pk, "action": action, "effective": effective, "hand": hand_index, "funded": funded,
            "status": spot.status}


def _follow_allowed(record: RoundRecord, behind: Spot, *, now: datetime) -> bool:
    """Whether the Bet Behind player's own responsible-gambling rules let them stake a follow-on double or split.
    A refusal does not stop the seat: their position plays on as for a stake it cannot fund (docs/rules.md)."""
    try:
        bet_allowed(player=behind.player, currency=behind.currency, cash_amount=spot_unit(record, behind.pk),
                    now=now)
    except ResponsibleError:
        return False  # bet_allowed only reads (and locks the account): nothing to roll back
    return True


def _follow(round: Round, record: RoundRecord, behinds: list[Spot], *, hand_index: int, seat_effective: str,
            now: datetime) -> None:
    """Every Bet Behind on the seat (locked by the caller) follows its decision, with its own stake and balance
    fallbacks."""
    if not behinds:
        return
    known = {spot.id for spot in record.spots}
    missing = [b.pk for b in behinds if b.pk not in known]
    if missing:
        extra = selectors.round_record_load(round, spot_ids=missing)
        record.spots += extra.spots
        record.bets += extra.bets
        record.decisions += extra.decisions
        record.reindex()
    for behind in behinds:
        behind_record = record.spot(behind.pk)
        if not behind_has_hand(record, behind_record, hand_index):
            continue
        bet = None
        funded = None
        effective = seat_effective
        if seat_effective in (DOUBLE, SPLIT):
            if not behind_unfunded(record, behind_record) and _follow_allowed(record, behind, now=now):
                bet = _hold_extra(
                    round, behind, player=behind.player, amount=spot_unit(record, behind.pk),
                    kind=BetKind.SPLIT if seat_effective == SPLIT else BetKind.DOUBLE,
                    hand_index=1 if seat_effective == SPLIT else hand_index,
                    key=f"round{round.pk}:spot{behind.pk}:decision{len(record.decisions_of(behind.pk)) + 1}",
                    now=now,
                )
            funded = bet is not None
            if not funded:
                effective = HIT_AND_STAND if seat_effective == DOUBLE else SPLIT_HAND_ONE
        _decision_write(round, record, behind, kind=DecisionKind.FOLLOW, action=seat_effective,
                        effective=effective, hand_index=hand_index,
                        cost=spot_unit(record, behind.pk) if funded is not None else 0, funded=funded,
                        actor_kind=ActorKind.SYSTEM, actor=None, now=now, bet=bet)


def decision_make(*, round_id: int, player, action: str, idempotency_key: str, seat: int | None = None,
                  now: datetime | None = None) -> dict[str, Any]:
    """A player's decision (hit, stand, double, split) on their spot — in turn, and only if legal now."""
    if action not in PLAYER_ACTIONS:
        raise InvalidRoundRequest(f"action must be one of {', '.join(PLAYER_ACTIONS)}, not {action!r}.")
    now = _now(now)

    def write():
        shared = _shared_play(round_id)
        round = round_lock(round_id, shared=shared)
        if round.state != RoundState.DECISIONS:
            raise IllegalTransition(f"Round {round.game_number} takes no decisions now ({_label(round.state)}).")
        _table_playing(round)
        if round.common_draw:
            if seat is not None:
                raise InvalidRoundRequest("A common draw has no seats: decide without one.")
            spot = spots_lock(round=round, player=player, seat__isnull=True).first()
        else:
            if seat is None:
                raise InvalidRoundRequest("Say which of your seats this decision is for.")
            spot = spots_lock(round=round, player=player, seat=seat, behind=False).first()
        if spot is None:
            raise DecisionRefused("You have no hand to play in this round" + (f" on seat {seat}." if seat else "."))
        if not round.common_draw and round.turn_seat != spot.seat:
            raise NotYourTurn(f"It is seat {round.turn_seat}'s turn, not seat {spot.seat}'s.")
        if round.common_draw:
            record = selectors.round_record_load(round, spot_ids=[spot.pk])
        else:
            record = selectors.round_record_load(round)
        spot.player = player
        result = _decide(round, record, spot, action=action, actor_kind=ActorKind.PLAYER, actor=player, now=now)
        if round.common_draw:
            if spot.status != SpotStatus.DECIDING:
                _queue("round_advance", round.pk)
        else:
            _progress(round, now=now, new_step=True)
        return result

    return request_once(user=player, key=idempotency_key, operation="decision", round_id=round_id,
                        payload={"action": action, "seat": seat}, write=write)


def _spots_refresh(record: RoundRecord, spots: list[Spot]) -> None:
    """Recompute the cached play status of these spots (and of the Bet Behinds of their seats)."""
    changed = []
    # Keyed by seat; None never enters (Bet Behinds are read back with seat__in these keys).
    by_seat: dict[int | None, tuple[str, int | None]] = {}
    for spot in spots:
        if spot.behind:
            continue
        status, need = turn_status(spot_turn(record, record.spot(spot.pk)))
        new = (STATUS_OF[status], need)
        if spot.seat is not None:
            by_seat[spot.seat] = new
        if (spot.status, spot.need_index) != new:
            spot.status, spot.need_index = new
            changed.append(spot)
    if by_seat:
        for behind in Spot.objects.filter(round_id=spots[0].round_id, behind=True, seat__in=list(by_seat),
                                          voided_at__isnull=True):
            behind.status, behind.need_index = by_seat[behind.seat]
            changed.append(behind)
    if changed:
        Spot.objects.bulk_update(changed, ["status", "need_index"])


def _progress(round: Round, *, now: datetime, new_step: bool) -> dict[str, int] | None:
    """After a decision or a card: whose turn, the decision timer, and the dealer once everyone is done. Gives
    the play statuses counted (selectors.spot_statuses), or None when the round takes no decisions."""
    if round.state != RoundState.DECISIONS:
        return None
    # The counts and, at a seated table, whose turn it is, from one read.
    rows = selectors.spot_play_rows(round=round, in_seat_order=not round.common_draw)
    statuses = selectors.spot_statuses(round=round, rows=rows)
    unfinished = sum(n for status, n in statuses.items() if status != SpotStatus.FINISHED)
    if not unfinished:
        _transition(round, RoundState.DEALER, now=now, actor_kind=ActorKind.SYSTEM, deadline=None, turn_seat=None)
        return statuses
    seconds = timedelta(seconds=_seconds(round, "decision_seconds"))
    if round.common_draw:
        if not statuses.get(SpotStatus.DECIDING):
            _round_set(round, deadline=None)
        elif new_step or round.deadline is None:
            _round_set(round, deadline=now + seconds)
        return statuses
    # The first seat, in seat order, whose position is not finished: `unfinished` counted it.
    turn_seat, turn_status = next(row for row in rows if row[1] != SpotStatus.FINISHED)
    _round_set(round, turn_seat=turn_seat,
               deadline=now + seconds if turn_status == SpotStatus.DECIDING else None)
    return statuses


def _card_to_players(round: Round, record: RoundRecord, where: tuple[str, int], *, now: datetime) -> None:
    if where[0] == CardTarget.STREAM:
        index = len(record.cards[where]) - 1
        waiting = list(Spot.objects.filter(round=round, status=SpotStatus.NEEDS_CARD, need_index=index,
                                           behind=False, voided_at__isnull=True).order_by("id"))
        _spots_refresh(record, waiting)
    else:
        seat_spots = list(Spot.objects.filter(round=round, seat=where[1], behind=False, voided_at__isnull=True))
        _spots_refresh(record, seat_spots)
    _progress(round, now=now, new_step=True)

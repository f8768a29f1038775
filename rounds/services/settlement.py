"""The dealer's hand and settlement: every held bet resolved in one wallet batch."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.db import connection, transaction
from django.db.models import Subquery
from django.db.models.functions import JSONObject
from django.utils import timezone

from casino.gc_pause import gc_paused
from rounds import selectors
from rounds.audit import event_add
from rounds.engine.dealer import dealer_needs_card
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_total
from rounds.engine_adapter import bet_returns, dealer_outlook, settle_record, settlement_summary
from rounds.errors import DealerIncomplete, IllegalTransition
from rounds.locks import round_lock, round_lock_full
from rounds.models import ActorKind, Round, RoundState, VoidKind
from rounds.services._common import _label, _now, _queue, _studio_check, _table_playing, _transition
from rounds.services.play import _progress
from rounds.services.voids import _void
from wallet import services as wallet


def dealer_complete(*, round_id: int, actor=None, now: datetime | None = None) -> dict[str, Any]:
    """The studio says the dealer's hand is complete: it is checked with the engine, then settled by a worker."""
    _studio_check(actor)
    now = _now(now)
    actor_kind = ActorKind.DEALER if actor else ActorKind.SYSTEM
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        _table_playing(round)
        _progress(round, now=now, new_step=False)
        if round.state != RoundState.DEALER:
            raise IllegalTransition(f"Round {round.game_number} is {_label(round.state)}: the players have not "
                                    "finished." if round.state == RoundState.DECISIONS else
                                    f"Round {round.game_number} is {_label(round.state)}: there is no dealer's "
                                    "hand to complete.")
        record = selectors.round_record_load(round)
        dealer = record.dealer_cards
        any_live, needs_second = dealer_outlook(record)
        if dealer_needs_card(record.rules, dealer, any_live_hand=any_live, needs_second=needs_second) or (
            len(dealer) > 2 and hand_total(dealer) < 17
        ):
            total = hand_total(dealer) if dealer else 0
            raise DealerIncomplete(f"The dealer's hand is not complete ({' '.join(map(str, dealer))} = {total}): "
                                   "record the dealer's next card.")
        try:
            settle_record(record)
        except EngineError as error:
            event_add(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": str(error)})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {error}", actor=None, now=now)
            return {"state": round.state, "malfunction": str(error)}
        _transition(round, RoundState.SETTLING, now=now, actor_kind=actor_kind, actor=actor,
                    reason="dealer's hand complete", settling_at=now)
        _queue("round_settle", round.pk)
    return {"state": round.state, "malfunction": ""}


def round_settle(*, round_id: int) -> bool:
    """Settle a round that is settling: engine results -> every held bet resolved at once -> settled.

    Idempotent: a round not settling (already settled, voided, unknown) is left alone and False returned.
    """
    now = timezone.now()
    with gc_paused(), transaction.atomic(durable=True):
        round = round_lock_full(round_id)
        if round is None or round.state != RoundState.SETTLING:
            return False
        record = selectors.round_record_load(round)
        try:
            results = settle_record(record)
        except EngineError as error:
            event_add(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": str(error)})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {error}", actor=None, now=now)
            return False
        returns = bet_returns(record, results)
        summary = settlement_summary(record, results)
        from wallet.services import BetResolutionSpec

        # Straight from the tuples, without a Python frame per spec: a big common draw resolves 40,000 bets.
        spec = partial(tuple.__new__, BetResolutionSpec)
        returned = returns.get
        resolutions = [
            spec((bet.wallet_bet_id, *value)) for bet in record.bets if (value := returned(bet.id)) is not None
        ]
        txn = None
        if resolutions:
            txn = wallet.bet_resolve(
                resolutions=resolutions, idempotency_key=f"round{round.pk}:settle", reference=round.game_number,
                meta={"game": round.config["name"], "round": round.pk}, durable=False,
            )
        summary["wallet_transaction"] = txn.pk if txn else None
        _transition(round, RoundState.SETTLED, now=now, actor_kind=ActorKind.SYSTEM, settled_at=now,
                    settlement=summary)
        if connection.vendor == "postgresql":
            # The audit trail keeps the settlement too: PostgreSQL copies it from the round row just written, so
            # the megabytes of JSON of a big common draw are encoded and sent once, not twice.
            payload: JSONObject | dict[str, Any] = JSONObject(
                settlement=Subquery(Round.objects.filter(pk=round.pk).values("settlement")))
        else:
            payload = {"settlement": summary}
        event_add(round, "settled", actor_kind=ActorKind.SYSTEM, at=now, payload=payload)
    return True

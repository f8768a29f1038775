"""A round as plain data for the engine (rounds.engine_adapter.RoundRecord): from its tables (live play,
settlement) or rebuilt from its append-only audit trail alone (replay)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from rounds.engine.rules import Rules
from rounds.engine_adapter import BetRecord, DecisionRecord, RoundRecord, SpotRecord
from rounds.models import CardRecord, Continuation, Decision, Round, RoundBet, RoundEvent, Spot
from rounds.selectors.lookup import round_rules


def bet_record(bet: RoundBet) -> BetRecord:
    return BetRecord(
        id=bet.pk, spot_id=bet.spot_id, kind=bet.kind, hand_index=bet.hand_index, amount=bet.amount,
        funding=bet.funding, wallet_bet_id=bet.wallet_bet_id,
    )


def decision_record(decision: Decision) -> DecisionRecord:
    return DecisionRecord(
        spot_id=decision.spot_id, sequence=decision.sequence, kind=decision.kind, action=decision.action,
        effective=decision.effective, hand_index=decision.hand_index, funded=decision.funded,
    )


# The columns of RoundBet and Decision that make a BetRecord and a DecisionRecord, in their field order.
BET_RECORD_FIELDS = ("id", "spot_id", "kind", "hand_index", "amount", "funding", "wallet_bet_id")
DECISION_RECORD_FIELDS = ("spot_id", "sequence", "kind", "action", "effective", "hand_index", "funded")


def round_record_load(round: Round, *, spot_ids: list[int] | None = None) -> RoundRecord:
    """The round as the engine needs it, in four queries; `spot_ids` narrows it to some spots (live play)."""
    record = RoundRecord(rules=round_rules(round), common_draw=round.common_draw)
    for target, seat, card in CardRecord.objects.filter(round=round).order_by("position").values_list(
        "target", "seat", "card"
    ):
        record.cards.setdefault((target, seat), []).append(card)
    spots = Spot.objects.filter(round=round)
    bets = RoundBet.objects.filter(round=round, returned__isnull=True)
    decisions = Decision.objects.filter(round=round)
    if spot_ids is not None:
        spots = spots.filter(pk__in=spot_ids)
        bets = bets.filter(spot_id__in=spot_ids)
        decisions = decisions.filter(spot_id__in=spot_ids)
    # Plain rows, not model instances: settling a common draw loads tens of thousands of them, and building
    # models costs more than the queries (bench/settle_bench.py).
    record.spots = list(map(SpotRecord._make, spots.order_by("id").values_list(
        "id", "player_id", "seat", "behind", "currency", Q(voided_at__isnull=False))))
    record.bets = list(map(BetRecord._make, bets.order_by("id").values_list(*BET_RECORD_FIELDS)))
    record.decisions = list(map(DecisionRecord._make, decisions.order_by("spot_id", "sequence").values_list(
        *DECISION_RECORD_FIELDS)))
    departed = Continuation.objects.filter(round=round)
    if spot_ids is not None:
        departed = departed.filter(spot_id__in=spot_ids)
    record.departed = set(departed.values_list("spot_id", flat=True))
    return record


@dataclass
class AuditedRound:
    record: RoundRecord
    settlement: dict[str, Any] | None
    events: int
    # continuation id -> what its audit events say: carried cards and decisions, drawn cards, settlement.
    continuations: dict[int, dict[str, Any]] = field(default_factory=dict)


def round_record_from_events(round: Round) -> AuditedRound:
    """Rebuild the round from its append-only audit trail alone (no other table is read)."""
    record: RoundRecord | None = None
    spots: dict[int, dict[str, Any]] = {}
    voided: set[int] = set()
    returned: set[int] = set()
    settlement = None
    count = 0
    continuations: dict[int, dict[str, Any]] = {}
    for kind, payload in RoundEvent.objects.filter(round=round).order_by("id").values_list("kind", "payload"):
        count += 1
        if kind == "opened":
            rules = Rules.from_dict(payload["config"]["rules"])
            record = RoundRecord(rules=rules, common_draw=bool(payload["config"]["common_draw"]))
        elif record is None:
            raise ValueError(f"round {round.game_number}: the audit trail does not start with 'opened'")
        elif kind == "bets_placed":
            spots.setdefault(payload["spot"]["id"], payload["spot"])
            record.bets.extend(_bet_from_payload(bet, payload["spot"]["id"]) for bet in payload["bets"])
        elif kind == "spot_voided":
            voided.add(payload["spot"])
        elif kind == "bets_returned":
            returned.update(payload["bets"])
        elif kind == "spot_moved":
            spots[payload["spot"]] = {**spots[payload["spot"]], "seat": payload["to_seat"]}
        elif kind == "card":
            record.cards.setdefault((payload["target"], payload["seat"]), []).append(payload["card"])
        elif kind == "decision":
            record.decisions.append(DecisionRecord(
                spot_id=payload["spot"], sequence=payload["sequence"], kind=payload["kind"],
                action=payload["action"], effective=payload["effective"], hand_index=payload["hand"],
                funded=payload["funded"],
            ))
            if payload.get("bet"):
                record.bets.append(_bet_from_payload(payload["bet"], payload["spot"]))
        elif kind == "settled":
            settlement = payload["settlement"]
        elif kind.startswith("continuation_"):
            _continuation_event(record, continuations, kind, payload)
    if record is None:
        raise ValueError(f"round {round.game_number} has no audit trail")
    if returned:
        record.bets = [bet for bet in record.bets if bet.id not in returned]
    record.spots = [
        SpotRecord(id=spot_id, player_id=data["player"], seat=data["seat"], behind=data["behind"],
                   currency=data["currency"], voided=spot_id in voided)
        for spot_id, data in sorted(spots.items())
    ]
    return AuditedRound(record=record, settlement=settlement, events=count, continuations=continuations)


def _continuation_event(record: RoundRecord, continuations: dict[int, dict[str, Any]], kind: str,
                        payload: dict[str, Any]) -> None:
    if kind == "continuation_started":
        record.departed.add(payload["spot"])
        carried = payload["carried"]
        continuations[payload["continuation"]] = {
            "spot": payload["spot"], "insurance": payload["insurance"], "first": list(carried["player"]),
            "stream": list(carried["stream"]), "dealer": list(carried["dealer"]),
            "actions": list(payload["actions"]), "funded": list(payload["funded"]), "settlement": None}
        return
    data = continuations.get(payload.get("continuation"))
    if data is None:
        return
    if kind == "continuation_cards":
        for card in payload["cards"]:
            data[{"player": "first"}.get(card["to"], card["to"])].append(card["card"])
    elif kind == "continuation_decision":
        data["actions"].append(payload["action"])
        if payload["funded"] is not None:
            data["funded"].append(payload["funded"])
    elif kind == "continuation_bet":
        record.bets.append(_bet_from_payload(payload["bet"], payload["spot"]))
    elif kind == "continuation_settled":
        data["settlement"] = payload["settlement"]


def _bet_from_payload(bet: dict[str, Any], spot_id: int) -> BetRecord:
    return BetRecord(
        id=bet["id"], spot_id=spot_id, kind=bet["kind"], hand_index=bet["hand"], amount=bet["amount"],
        funding=bet["funding"], wallet_bet_id=bet["wallet_bet"],
    )

"""A round as plain data for the engine (rounds.engine_adapter.RoundRecord): from its tables (live play,
settlement) or rebuilt from its append-only audit trail alone (replay)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import connection

from rounds.engine.rules import Rules
from rounds.engine_adapter import BetRecord, DecisionRecord, RoundRecord, SpotRecord
from rounds.models import Decision, Round, RoundBet, RoundEvent
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


# The records straight from the rows, without _make's Python frame and length check for each of the 70,000 rows of
# a big common draw: the queries below select exactly the records' fields, in their order.
_bet_make = partial(tuple.__new__, BetRecord)
_decision_make = partial(tuple.__new__, DecisionRecord)
_spot_make = partial(tuple.__new__, SpotRecord)


# The record's reads as SQL written once: every card, decision and settlement loads the record, and compiling
# the four ORM queries cost more than running them (the profile of the tests' rounds). Plain SQL that SQLite
# (make run) runs too; a spot's departed flag (it has a continuation) comes with its row.
_CARDS_SQL = "SELECT target, seat, card FROM rounds_cardrecord WHERE round_id = %s ORDER BY position"
_SPOTS_SQL = (
    "SELECT s.id, s.player_id, s.seat, s.behind, s.currency, s.voided_at IS NOT NULL, EXISTS (SELECT 1 FROM "
    "rounds_continuation c WHERE c.spot_id = s.id AND c.round_id = s.round_id) FROM rounds_spot s "
    "WHERE s.round_id = %s{spots} ORDER BY s.id"
)
_BETS_SQL = (
    f"SELECT {', '.join(f'b.{name}' for name in BET_RECORD_FIELDS)} FROM rounds_roundbet b WHERE b.round_id = %s "
    "AND NOT EXISTS (SELECT 1 FROM rounds_betreturn r WHERE r.bet_id = b.id){spots} ORDER BY b.id"
)
_DECISIONS_SQL = (
    f"SELECT {', '.join(DECISION_RECORD_FIELDS)} FROM rounds_decision WHERE round_id = %s{{spots}} "
    "ORDER BY spot_id, sequence"
)


def round_record_load(round: Round, *, spot_ids: list[int] | None = None) -> RoundRecord:
    """The round as the engine needs it, in four queries; `spot_ids` narrows it to some spots (live play)."""
    record = RoundRecord(rules=round_rules(round), common_draw=round.common_draw)
    with connection.cursor() as cursor:
        cursor.execute(_CARDS_SQL, [round.pk])
        for target, seat, card in cursor.fetchall():
            record.cards.setdefault((target, seat), []).append(card)
        if spot_ids is not None and not spot_ids:
            return record
        params: list[int] = [round.pk]
        spots = bet_spots = spot_only = ""
        if spot_ids is not None:
            marks = ", ".join(["%s"] * len(spot_ids))
            spots, bet_spots, spot_only = (f" AND s.id IN ({marks})", f" AND b.spot_id IN ({marks})",
                                           f" AND spot_id IN ({marks})")
            params += spot_ids
        # Plain rows, not model instances: settling a common draw loads tens of thousands of them, and building
        # models costs more than the queries (bench/settle_bench.py).
        cursor.execute(_SPOTS_SQL.format(spots=spots), params)
        rows = cursor.fetchall()
        cursor.execute(_BETS_SQL.format(spots=bet_spots), params)
        record.bets = list(map(_bet_make, cursor.fetchall()))
        cursor.execute(_DECISIONS_SQL.format(spots=spot_only), params)
        decisions = cursor.fetchall()
    if connection.vendor != "postgresql":  # SQLite gives its booleans as 0 and 1
        rows = [(*row[:3], bool(row[3]), row[4], bool(row[5]), bool(row[6])) for row in rows]
        decisions = [(*row[:6], None if row[6] is None else bool(row[6])) for row in decisions]
    record.spots = [_spot_make(row[:6]) for row in rows]
    record.departed = {row[0] for row in rows if row[6]}
    record.decisions = list(map(_decision_make, decisions))
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

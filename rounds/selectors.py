"""Reads of rounds: the live view of a round, its full record, its replay, and a player's rounds.

The back office (support desk, regulator) uses `round_by_game_number`, `round_full_record` and `round_replay`;
the game client API uses `round_view` and `decision_stats`; a player's game history is rounds.game_history.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Prefetch, Q

from rounds import snapshots, table_now, visibility
from rounds.confirmation_view import confirmation_for
from rounds.continuation_play import ContinuationState
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.engine.rules import Rules
from rounds.engine.script import expect_differences, settle_script
from rounds.engine_adapter import (
    SIDE_KINDS,
    BetRecord,
    DecisionRecord,
    RoundRecord,
    SpotRecord,
    bet_returns,
    position_cards,
    round_scripts,
    rules_overrides,
    settle_record,
    spot_bet_returns,
    spot_entry,
    spot_turn,
)
from rounds.models import (
    ACTIVE_STATES,
    CardRecord,
    CardTarget,
    Continuation,
    Decision,
    DecisionKind,
    Round,
    RoundBet,
    RoundEvent,
    RoundState,
    Spot,
    SpotStatus,
)
from rounds.shoe_news import shoe_news
from wallet import selectors as wallet_selectors

# --- single rounds -----------------------------------------------------------------------------------------

def round_by_game_number(*, game_number: str) -> Round | None:
    if not isinstance(game_number, str) or len(game_number) > 40:
        return None
    return Round.objects.select_related("table", "shoe").filter(game_number=game_number).first()


def round_id_by_game_number(*, game_number: str) -> int | None:
    """Just the id (a bet needs nothing else before its service locks the round)."""
    if not isinstance(game_number, str) or len(game_number) > 40:
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM rounds_round WHERE game_number = %s", [game_number])
        row = cursor.fetchone()
    return row[0] if row else None


def round_active_for_table(*, table) -> Round | None:
    return Round.objects.filter(table=table, state__in=ACTIVE_STATES).first()


def player_in_round(*, round: Round, player) -> bool:
    """The player has a position in the round that is neither void nor already disconnected."""
    return Spot.objects.filter(round=round, player=player, voided_at__isnull=True,
                               disconnected_at__isnull=True).exists()


def round_latest_for_table(*, table) -> Round | None:
    return Round.objects.filter(table=table).order_by("-id").first()


def round_rules(round: Round) -> Rules:
    return snapshots.snapshot(round).rules


# --- the record, from the tables and from the audit trail --------------------------------------------------

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


def _continuation_replay(record: RoundRecord, data: dict[str, Any], *, name: str) -> tuple[dict[str, Any],
                                                                                           dict[int, tuple[int, int]]]:
    """A continuation rebuilt from its events: its round script and the returns of its bets."""
    spot = record.spot(data["spot"])
    bets = [b for b in record.bets_of(spot.id) if b.kind not in SIDE_KINDS]
    main = sum(b.amount for b in bets if b.kind in ("main", "bet_behind"))
    golden = sum(b.amount for b in bets if b.kind == "golden_chip")
    insurance = sum(b.amount for b in bets if b.kind == "insurance")
    state = ContinuationState(
        rules=record.rules, label=f"{spot.label}-continuation", main=main, golden=golden,
        insurance=data["insurance"], first=data["first"], stream=data["stream"], dealer=data["dealer"],
        actions=data["actions"], funded=data["funded"], unit=main + golden, insurance_stake=insurance, shoe=[])
    recorded = data["settlement"]
    script = state.script(name=f"{name}/continuation-{spot.label}", overrides=rules_overrides(record.rules),
                          expect=recorded["result"] if recorded else None)
    sub = RoundRecord(rules=record.rules, common_draw=record.common_draw, spots=[spot], bets=bets)
    return script, spot_bet_returns(sub, spot, state.settle())


def _bet_from_payload(bet: dict[str, Any], spot_id: int) -> BetRecord:
    return BetRecord(
        id=bet["id"], spot_id=spot_id, kind=bet["kind"], hand_index=bet["hand"], amount=bet["amount"],
        funding=bet["funding"], wallet_bet_id=bet["wallet_bet"],
    )


# --- replay ------------------------------------------------------------------------------------------------

@dataclass
class RoundReplay:
    """The engine's view of a recorded round: one script per dealt position, replayed.

    `scripts` are docs/round-script.md objects whose `expect` is the recorded settlement, so `replay_round --check`
    verifies them too. `matches` is true when the replay gives the recorded results and the same money per bet
    as the wallet actually moved.
    """

    game_number: str
    state: str
    scripts: list[dict[str, Any]]
    results: list[dict[str, Any]]
    recorded: dict[str, Any] | None
    bet_returns: dict[str, list[int]] = field(default_factory=dict)
    wallet_returns: dict[str, list[int]] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    error: str = ""
    # Non-live continuations not finished yet: their bets are still held and have nothing to compare.
    pending: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return self.recorded is not None and not self.differences and not self.error


def round_replay(*, round: Round) -> RoundReplay:
    """Replay a round from its audit trail through the engine and compare with what was settled and paid."""
    audited = round_record_from_events(round)
    record = audited.record
    recorded = audited.settlement
    expect = {label: data["result"] for label, data in recorded["spots"].items()} if recorded else None
    scripts = round_scripts(record, name=round.game_number, expect=expect)
    replay = RoundReplay(game_number=round.game_number, state=round.state, scripts=scripts, results=[],
                         recorded=recorded)
    try:
        for script in scripts:
            result = settle_script(script)
            replay.results.append(result)
            if script.get("expect") is not None:
                replay.differences += [f"{script['id']}: {d}" for d in expect_differences(script["expect"], result)]
        live_returns = bet_returns(record, settle_record(record))
        returns = dict(live_returns)
        for data in audited.continuations.values():
            if data["settlement"] is None:
                replay.pending.append(f"{record.spot(data['spot']).label}: the disconnected player's non-live "
                                      "continuation is still open; its bets stay held until it ends")
                continue
            script, continued = _continuation_replay(record, data, name=round.game_number)
            scripts.append(script)
            result = settle_script(script)
            replay.results.append(result)
            replay.differences += [f"{script['id']}: {d}" for d in expect_differences(script["expect"], result)]
            returns.update(continued)
    except EngineError as error:
        replay.error = str(error)
        return replay
    replay.bet_returns = {str(bet_id): list(value) for bet_id, value in sorted(returns.items())}
    if recorded is None:
        replay.differences.append(f"round {round.game_number} is {round.state}: it has no recorded settlement")
        return replay
    if {str(bet_id): list(value) for bet_id, value in sorted(live_returns.items())} != recorded["bets"]:
        replay.differences.append("the replayed returns per bet differ from the recorded settlement")
    wallet_ids = {bet.id: bet.wallet_bet_id for bet in record.bets}
    resolutions = {
        bet.pk: bet for bet in RoundBet.objects.filter(round=round).select_related("wallet_bet__resolution")
    }
    for bet_id, (cash, chips) in sorted(returns.items()):
        row = resolutions.get(bet_id)
        resolution = getattr(row.wallet_bet, "resolution", None) if row else None
        if row is None or row.wallet_bet_id != wallet_ids[bet_id] or resolution is None:
            replay.differences.append(f"bet {bet_id} has no wallet resolution")
            continue
        replay.wallet_returns[str(bet_id)] = [resolution.cash_return, resolution.chips_return]
        if (resolution.cash_return, resolution.chips_return) != (cash, chips):
            replay.differences.append(
                f"bet {bet_id}: the wallet paid {resolution.cash_return} cash and {resolution.chips_return} "
                f"chips, the replay gives {cash} and {chips}"
            )
    return replay


# --- the full record for the staff API -----------------------------------------------------------------------

def round_full_record(*, round: Round) -> dict[str, Any]:
    """Everything about one round (the staff API's record): cards, spots, bets with their wallet outcome,
    decisions, transactions, audit."""
    spots = list(Spot.objects.filter(round=round).select_related("player").order_by("id"))
    bets = list(
        RoundBet.objects.filter(round=round)
        .select_related("wallet_bet__resolution__transaction", "wallet_bet__hold_transaction")
        .order_by("id")
    )
    transactions: dict[int, dict[str, Any]] = {}
    bet_rows = []
    for bet in bets:
        hold = bet.wallet_bet.hold_transaction
        transactions[hold.pk] = {"id": hold.pk, "kind": hold.kind, "created_at": hold.created_at}
        resolution = getattr(bet.wallet_bet, "resolution", None)
        if resolution is not None:
            txn = resolution.transaction
            transactions[txn.pk] = {"id": txn.pk, "kind": txn.kind, "created_at": txn.created_at}
        bet_rows.append({
            "id": bet.pk, "spot": bet.spot_id, "kind": bet.kind, "hand": bet.hand_index, "amount": bet.amount,
            "currency": bet.currency, "funding": bet.funding, "wallet_bet": bet.wallet_bet_id,
            "hold_transaction": hold.pk,
            "outcome": resolution.outcome if resolution else None,
            "cash_return": resolution.cash_return if resolution else None,
            "chips_return": resolution.chips_return if resolution else None,
            "resolution_transaction": resolution.transaction_id if resolution else None,
        })
    from wallet.models import LedgerTransaction

    for txn in LedgerTransaction.objects.filter(reference=round.game_number).exclude(pk__in=list(transactions)):
        transactions[txn.pk] = {"id": txn.pk, "kind": txn.kind, "created_at": txn.created_at}
    return {
        "round": round,
        "spots": [
            {"id": s.pk, "player": s.player_id, "username": s.player.get_username(), "seat": s.seat,
             "behind": s.behind, "currency": s.currency, "label": s.label, "status": s.status,
             "voided_at": s.voided_at, "void_reason": s.void_reason, "disconnected_at": s.disconnected_at}
            for s in spots
        ],
        "cards": list(CardRecord.objects.filter(round=round).order_by("position").values(
            "position", "target", "seat", "sequence", "card", "recorded_at", "recorded_by")),
        "bets": bet_rows,
        "decisions": list(Decision.objects.filter(round=round).order_by("created_at", "id").values(
            "spot", "sequence", "kind", "action", "effective", "hand_index", "cost", "funded", "actor_kind",
            "actor", "created_at")),
        "transactions": sorted(transactions.values(), key=lambda t: t["id"]),
        "events": list(RoundEvent.objects.filter(round=round).order_by("id").values(
            "id", "at", "kind", "actor_kind", "actor", "payload")),
    }


# --- lists -------------------------------------------------------------------------------------------------

def last_bets(*, table, player, before_round_id: int) -> list[dict[str, Any]]:
    """The player's opening bets in their latest earlier round at this table: [{seat, behind, currency, bets}]."""
    latest = (
        Spot.objects.filter(round__table=table, round_id__lt=before_round_id, player=player)
        .order_by("-round_id").values_list("round_id", flat=True).first()
    )
    if latest is None:
        return []
    placements = []
    spots = Spot.objects.filter(round_id=latest, player=player).prefetch_related(
        Prefetch("bets", queryset=RoundBet.objects.filter(
            kind__in=("main", "golden_chip", "bet_behind", "any_pair", "21+3", "hot3", "perfect_pairs"),
            returned__isnull=True,  # an undone bet is not one of the player's last bets
        ).order_by("id"))
    ).order_by("seat", "behind", "id")
    seen: set[tuple[int | None, bool]] = set()
    for spot in spots:
        if (spot.seat, spot.behind) in seen:
            continue  # a spot voided and placed again: the later one stands
        totals: dict[str, int] = defaultdict(int)
        for bet in spot.bets.all():
            totals["main" if bet.kind == "bet_behind" else bet.kind] += bet.amount
        if totals:
            seen.add((spot.seat, spot.behind))
            placements.append({"seat": spot.seat, "behind": spot.behind, "currency": spot.currency,
                               "bets": dict(totals)})
    return placements


# --- the live view ------------------------------------------------------------------------------------------

def hole_card_hidden(round: Round) -> bool:
    """While the players act, the dealer's hole card is face down for players (staff see it)."""
    return round_rules(round).has_hole_card and round.state in (
        RoundState.BETTING_CLOSED, RoundState.DEALING, RoundState.INSURANCE, RoundState.DECISIONS,
    )


def dealer_cards_shown(cards: list[str], *, hidden: bool) -> list[str]:
    """The dealer's cards as a player sees them: "??" for a hole card still face down."""
    return [cards[0], "??", *cards[2:]] if hidden and len(cards) >= 2 else list(cards)


def _describe_hand(hand) -> dict[str, Any]:
    total, soft = hand_value(hand.cards) if hand.cards else (0, False)
    return {
        "cards": [str(card) for card in hand.cards], "total": total, "soft": soft,
        "stake": hand.stake, "golden": hand.golden, "double": hand.double, "free": hand.free,
        "bust": total > 21, "blackjack": hand.blackjack,
    }


def spot_view(record: RoundRecord, spot: SpotRecord, round: Round, *, turn: bool) -> dict[str, Any]:
    entry = spot_entry(record, spot)
    view: dict[str, Any] = {
        "id": spot.id, "label": spot.label, "seat": spot.seat, "behind": spot.behind, "currency": spot.currency,
        "player": spot.player_id, "voided": spot.voided,
        "bets": [{"id": b.id, "kind": b.kind, "hand": b.hand_index, "amount": b.amount, "funding": b.funding}
                 for b in record.bets_of(spot.id)],
        "hands": [], "decision": None,
    }
    first, _stream = position_cards(record, spot.seat)
    if spot.voided or len(first) < 2 or not entry.unit or spot.behind:
        return view
    try:
        play = spot_turn(record, spot)
    except EngineError:
        return view
    view["hands"] = [_describe_hand(hand) for hand in play.hands]
    point = play.decision() if round.state == RoundState.DECISIONS and turn else None
    if point is not None:
        cash = offer_cash(spot, paid=point.double == "paid" or point.split == "paid")
        view["decision"] = {
            "hand": point.hand_index, "actions": list(point.actions), "double": point.double,
            "split": point.split, "double_cost": point.double_cost, "split_cost": point.split_cost,
            "double_funded": offer_funded(point.double, point.double_funded, point.double_cost, cash),
            "split_funded": offer_funded(point.split, point.split_funded, point.split_cost, cash),
            "timeout_action": point.timeout_action,
        }
    return view


def offer_cash(spot: SpotRecord, *, paid: bool) -> int | None:
    """The cash a paid double or split would be held from now (the wallet's own read), when one is offered.

    Cash, at a Golden Chip position too: its doubles and splits are paid in cash (docs/rules.md), so its Golden
    Chip balance never funds them. Insurance bought earlier is already out of this balance."""
    return wallet_selectors.player_balance(player=spot.player_id, currency=spot.currency) if paid else None


def offer_funded(offer: str | None, engine_funded: bool, cost: int, cash: int | None) -> bool:
    """Whether taking this offer now would be played as offered: a free one always, a paid one only if the
    round's earlier fallback allows it (the engine says) and the cash covers its cost now."""
    if offer != "paid":
        return engine_funded
    return engine_funded and cash is not None and cash >= cost


def round_view(*, round: Round, viewer=None, staff: bool = False) -> dict[str, Any]:
    """What the studio (everything) or a game client sees of a round now: rounds.visibility says what a player
    may see."""
    rules = round_rules(round)
    record = round_record_load(round)
    dealer = dealer_cards_shown([str(card) for card in record.dealer_cards],
                                hidden=not staff and hole_card_hidden(round))
    spots = {s.id: s for s in Spot.objects.filter(round=round).only("id", "status", "insurance", "confirmed_at",
                                                                   "deal_now_at")}
    view_spots = []
    for spot in record.spots:
        mine = viewer is not None and spot.player_id == getattr(viewer, "pk", None)
        # A common draw may hold thousands of anonymous players: a client sees its own spot only.
        if not (mine or staff) and (spot.voided or round.common_draw):
            continue
        turn = round.common_draw or spot.seat == round.turn_seat
        shown = spot_view(record, spot, round, turn=turn and (mine or staff))
        shown["mine"] = mine
        shown["status"] = spots[spot.id].status
        shown["insurance"] = spots[spot.id].insurance
        shown["confirmed"] = spots[spot.id].confirmed_at is not None
        shown["deal_now"] = spots[spot.id].deal_now_at is not None
        if not (mine or staff):
            shown["decision"] = None
        view_spots.append(shown)
    cards = {
        "dealer": dealer,
        "player": [str(c) for c in record.cards_of(CardTarget.PLAYER)],
        "stream": [str(c) for c in record.cards_of(CardTarget.STREAM)],
        "seats": {str(seat): cards for (target, seat), cards in sorted(record.cards.items()) if target == "seat"},
    }
    view = {
        "game_number": round.game_number,
        "table": round.table.code,
        "profile": round.config["profile"],
        "rules": rules.name,
        "common_draw": round.common_draw,
        "state": round.state,
        "deadline": round.deadline,
        "turn_seat": round.turn_seat,
        "opened_at": round.opened_at,
        "settled_at": round.settled_at,
        "voided_at": round.voided_at,
        "void_reason": round.void_reason if round.state == RoundState.VOIDED else "",
        "cards": cards,
        "spots": view_spots,
        "seats_taken": sorted({spot.seat for spot in record.spots
                               if spot.seat is not None and not spot.behind and not spot.voided}),
        "settlement": _settlement_for(round, viewer, staff),
        "shoe": shoe_news(round=round),
        "paused": table_now.pause_notice(table=round.table, round=round),
        "confirmation": None if staff else confirmation_for(round=round, viewer=viewer),
    }
    return view if staff else visibility.round_view_for_player(view=view, player_id=getattr(viewer, "pk", None))


def _settlement_for(round: Round, viewer, staff: bool) -> dict[str, Any] | None:
    if not round.settlement:
        return None
    if staff:
        return round.settlement
    player_id = getattr(viewer, "pk", None)
    return {
        "dealer": round.settlement["dealer"],
        "spots": {label: data for label, data in round.settlement["spots"].items() if data["player"] == player_id},
    }


# --- live decision statistics (common draw) ----------------------------------------------------------------

def decision_stats(*, round: Round) -> dict[str, Any]:
    """For the current step of a common draw: each situation (the same previous choices mean the same hand)
    with how many players chose each option so far, and their shares."""
    stream_length = CardRecord.objects.filter(round=round, target=CardTarget.STREAM).count()
    step = list(
        Decision.objects.filter(round=round, kind=DecisionKind.ACTION, stream_length=stream_length)
        .values_list("spot_id", "sequence", "action")
    )
    spot_ids = {spot_id for spot_id, _seq, _action in step}
    previous: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for spot_id, sequence, effective in Decision.objects.filter(
        round=round, kind=DecisionKind.ACTION, spot_id__in=spot_ids, stream_length__lt=stream_length
    ).values_list("spot_id", "sequence", "effective"):
        previous[spot_id].append((sequence, effective))
    situations: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    for spot_id, sequence, action in step:
        history = tuple(effective for seq, effective in sorted(previous[spot_id]) if seq < sequence)
        situations[history][action] += 1
    deciding = Spot.objects.filter(
        round=round, voided_at__isnull=True, behind=False, status=SpotStatus.DECIDING
    ).count()
    rows = []
    for history, counts in sorted(situations.items()):
        total = sum(counts.values())
        rows.append({
            "history": list(history),
            "players": total,
            "counts": dict(sorted(counts.items())),
            "shares": {action: round_share(n, total) for action, n in sorted(counts.items())},
        })
    return {"game_number": round.game_number, "step": stream_length, "still_deciding": deciding,
            "situations": rows}


def round_share(count: int, total: int) -> float:
    """A share for display (statistics, not money), to four decimals."""
    return round(count / total, 4) if total else 0.0


def spot_statuses(*, round: Round) -> dict[str, int]:
    rows = Spot.objects.filter(round=round, voided_at__isnull=True, behind=False).values_list("status", flat=True)
    return dict(Counter(rows))


def rounds_list(*, table=None, state: str | None = None):
    rounds = Round.objects.select_related("table")
    if table is not None:
        rounds = rounds.filter(table=table)
    if state:
        rounds = rounds.filter(state=state)
    return rounds


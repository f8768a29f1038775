"""Everything about one round for the staff API: cards, spots, bets with their wallet outcome, decisions,
transactions and audit events."""

from __future__ import annotations

from typing import Any

from rounds.models import CardRecord, Decision, Round, RoundBet, RoundEvent, Spot


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

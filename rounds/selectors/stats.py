"""Live statistics of a round: a common draw's decisions so far, the spots' statuses."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from django.db import connection

from rounds.models import CardRecord, CardTarget, Decision, DecisionKind, Round, Spot, SpotStatus


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


# SQL written once: every decision and every card of the decisions step reads it (services.play._progress).
_SPOT_PLAY_SQL = "SELECT seat, status FROM rounds_spot WHERE round_id = %s AND voided_at IS NULL AND NOT behind"


def spot_play_rows(*, round: Round, in_seat_order: bool = False) -> list[tuple[int | None, str]]:
    """(seat, status) of each live position that plays (not voided, not Bet Behind); in turn order (seat, then
    id) when asked."""
    with connection.cursor() as cursor:
        cursor.execute(_SPOT_PLAY_SQL + (" ORDER BY seat, id" if in_seat_order else ""), [round.pk])
        return cursor.fetchall()


def spot_statuses(*, round: Round, rows: list[tuple[int | None, str]] | None = None) -> dict[str, int]:
    """How many live playing positions are in each play status (from `rows` of spot_play_rows if read)."""
    if rows is None:
        rows = spot_play_rows(round=round)
    return dict(Counter(status for _seat, status in rows))

"""Live statistics of a round: a common draw's decisions so far, the spots' statuses."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

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


def spot_statuses(*, round: Round) -> dict[str, int]:
    rows = Spot.objects.filter(round=round, voided_at__isnull=True, behind=False).values_list("status", flat=True)
    return dict(Counter(rows))

"""A round found: by game number, the one in play at a table, the latest, the rules it froze, lists,
and the player's last bets (for Repeat)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db import connection
from django.db.models import Prefetch

from rounds import snapshots
from rounds.engine.rules import Rules
from rounds.models import ACTIVE_STATES, Round, RoundBet, Spot


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



def rounds_list(*, table=None, state: str | None = None):
    rounds = Round.objects.select_related("table")
    if table is not None:
        rounds = rounds.filter(table=table)
    if state:
        rounds = rounds.filter(state=state)
    return rounds

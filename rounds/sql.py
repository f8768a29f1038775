"""The round bets insert of the bet path, one statement for every bet of a placement."""

from __future__ import annotations

from datetime import datetime

from django.db import connection

from rounds.models import Round

_BET_COLUMNS = "round_id, spot_id, kind, hand_index, amount, currency, funding, wallet_bet_id, created_at"


def round_bets_insert(round: Round, spot_id: int, currency: str, now: datetime,
                      bets: list[tuple[str, int, str, int]]) -> list[int]:
    """Insert the round's bets (kind, amount, funding, wallet bet) in one statement; their ids in that order."""
    at = connection.ops.adapt_datetimefield_value(now)
    values = ", ".join(["(%s, %s, %s, 0, %s, %s, %s, %s, %s)"] * len(bets))
    params = [p for kind, amount, funding, wallet_bet in bets
              for p in (round.pk, spot_id, kind, amount, currency, funding, wallet_bet, at)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO rounds_roundbet ({_BET_COLUMNS}) VALUES {values} RETURNING id", params)
        return [row[0] for row in cursor.fetchall()]

"""The round's audit trail: one row per fact, appended and never changed.

A plain payload goes in as raw SQL (every bet and decision writes one, so the ORM's compilation would be paid on
the hot path); a payload computed by the database (the settlement copied from the round row) goes through the
ORM.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.db.models import Expression
from django.utils import timezone

from rounds.models import Round, RoundEvent


def actor_user(actor):
    return actor if getattr(actor, "pk", None) else None


def event_add(round: Round, kind: str, *, actor_kind: str, actor=None, payload: dict | Expression | None = None,
              at: datetime | None = None) -> None:
    """Append to the round's audit trail: raw SQL for a plain payload (every bet and decision writes one),
    the ORM for one computed by the database."""
    at = at or timezone.now()
    if isinstance(payload, Expression):
        RoundEvent.objects.create(round=round, kind=kind, actor_kind=actor_kind, actor=actor_user(actor),
                                  payload=payload, at=at)
        return
    ops = connection.ops
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO rounds_roundevent (round_id, at, kind, actor_kind, actor_id, payload) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [round.pk, ops.adapt_datetimefield_value(at), kind, actor_kind, getattr(actor_user(actor), "pk", None),
             ops.adapt_json_value(payload or {}, None)],
        )

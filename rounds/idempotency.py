"""Per-user request idempotency for the round services players call (bets, decisions, insurance).

A request row is inserted before the write, keyed by (user, key): a concurrent twin waits on the unique index
and then replays the first result; the same key with other content is a conflict.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from casino.checks import idempotency_key_check
from casino.idempotency import IdempotencyConflict
from rounds.errors import InvalidRoundRequest
from rounds.models import RoundRequest

KEY_MAX_LENGTH = 120


def key_check(key) -> str:
    return idempotency_key_check(key, max_length=KEY_MAX_LENGTH, error=InvalidRoundRequest)


def request_fingerprint(*, operation: str, round_id: int, payload: dict) -> str:
    """What a request row stores to tell a repeat (the same content) from a reused key."""
    return hashlib.sha256(
        json.dumps([operation, round_id, payload], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def request_once(*, user, key, operation: str, round_id: int, payload: dict, write) -> dict[str, Any]:
    """Run write() once per (user, key): a repeat returns the first result; other content is a conflict."""
    key = key_check(key)
    fingerprint = request_fingerprint(operation=operation, round_id=round_id, payload=payload)
    ops = connection.ops
    try:
        with transaction.atomic(durable=True), connection.cursor() as cursor:
            # Inserted first: a concurrent twin with the same key waits here and then replays.
            cursor.execute(
                "INSERT INTO rounds_roundrequest (user_id, key, operation, fingerprint, round_id, result, "
                "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
                [user.pk, key, operation, fingerprint, round_id, ops.adapt_json_value({}, None),
                 ops.adapt_datetimefield_value(timezone.now())],
            )
            request_id = cursor.fetchone()[0]
            result = write()
            cursor.execute("UPDATE rounds_roundrequest SET result = %s WHERE id = %s",
                           [ops.adapt_json_value(result, None), request_id])
            return result
    except IntegrityError:
        first = RoundRequest.objects.filter(user=user, operation=operation, key=key).first()
        if first is None:
            raise
    if first.fingerprint != fingerprint:
        raise IdempotencyConflict(
            f"The idempotency key {key!r} was already used for a different request ({first.operation}); "
            "use a new key for a new request."
        ) from None
    return {**first.result, "replayed": True}

"""Which limit is in force at a moment, from the append-only history of a player's limit changes.

A change takes effect at its `effective_at`; among the changes in effect the latest requested wins. A change
still waiting (a raise in its cooling-off period) is dropped by any later request made before it took effect:
asking for a lower limit cancels a pending raise, and a second raise starts its own cooling-off period.
Pure Python over rows (anything with id, value, requested_at, effective_at), so it is tested without a database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class LimitState:
    value: int | None                    # in force now (None: no limit)
    pending_value: int | None = None     # waiting to take effect (only meaningful when pending_at is set)
    pending_at: datetime | None = None   # when the pending change takes effect


def _live(changes: list[Any], at: datetime) -> list[Any]:
    """The changes not dropped by a later request made by `at` before they took effect."""
    ordered = sorted(changes, key=lambda c: c.id)
    live = []
    for i, change in enumerate(ordered):
        dropped = any(later.requested_at <= at and later.requested_at < change.effective_at
                      for later in ordered[i + 1:])
        if not dropped:
            live.append(change)
    return live


def limit_state(changes: list[Any], now: datetime) -> LimitState:
    live = _live(changes, now)
    in_force = [c for c in live if c.effective_at <= now]
    current = max(in_force, key=lambda c: c.id) if in_force else None
    waiting = [c for c in live if c.effective_at > now and (current is None or c.id > current.id)]
    pending = max(waiting, key=lambda c: c.id) if waiting else None
    return LimitState(value=current.value if current else None,
                      pending_value=pending.value if pending else None,
                      pending_at=pending.effective_at if pending else None)


def tightens(current: int | None, new: int | None) -> bool:
    """Whether a new value is no looser than the one in force (so it takes effect at once)."""
    if new is None:
        return current is None
    return current is None or new <= current

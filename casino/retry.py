"""Transient database failures, and retrying a whole transaction after one with jittered exponential backoff.

PostgreSQL aborts a transaction it could not order (a deadlock, a serialization failure) or whose lock wait ran
out; a connection can also drop mid-way. Each time the whole transaction rolled back, so running it again from
the top is safe: every service that moves money is idempotent by its key.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")

# deadlock_detected, serialization_failure, lock_not_available (lock_timeout), query_canceled by
# statement_timeout or a cancel, admin_shutdown / crash_shutdown / cannot_connect_now (a restart)
CONTENTION_SQLSTATES = frozenset({"40P01", "40001", "55P03"})
TRANSIENT_SQLSTATES = CONTENTION_SQLSTATES | {"57014", "57P01", "57P02", "57P03"}


def sqlstate(error: BaseException) -> str | None:
    cause = error.__cause__ or error.__context__
    return getattr(cause, "sqlstate", None) or getattr(error, "sqlstate", None)


def is_contention(error: BaseException) -> bool:
    """Two transactions collided (deadlock, serialization failure, lock wait ran out): running again succeeds."""
    return isinstance(error, OperationalError) and sqlstate(error) in CONTENTION_SQLSTATES


def is_transient(error: BaseException) -> bool:
    """A failure that passes by itself: contention, a cancelled statement, a lost or refused connection."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    state = sqlstate(error)
    # No SQLSTATE: the server never answered (connection refused or lost).
    return state is None or state in TRANSIENT_SQLSTATES or state.startswith("08")


def backoff_delay(attempt: int, *, base: float, cap: float) -> float:
    """The wait before retry `attempt` (0 first): exponential, capped, half of it random so that the
    transactions that collided do not collide again at the same moment."""
    ceiling = min(cap, base * 2**attempt)
    return ceiling / 2 + random.uniform(0, ceiling / 2)  # noqa: S311 - jitter, not a secret


def contention_retry(write: Callable[[], T], *, attempts: int = 4, base: float = 0.02, cap: float = 0.4) -> T:
    """Run write() (a durable transaction) again when it lost a collision, up to `attempts` times in all.

    Only outside a transaction: inside one, the failed statement aborted the caller's transaction as well."""
    for attempt in range(attempts):
        try:
            return write()
        except OperationalError as error:
            if not is_contention(error) or attempt == attempts - 1 or transaction.get_connection().in_atomic_block:
                raise
            logger.info("transaction lost a collision (%s); retry %d", sqlstate(error), attempt + 1)
            time.sleep(backoff_delay(attempt, base=base, cap=cap))
    raise AssertionError("unreachable")  # pragma: no cover


def retried_on_contention(view_method: Callable[..., T]) -> Callable[..., T]:
    """An API view method run again when its transaction lost a collision (the services are idempotent)."""

    @functools.wraps(view_method)
    def run(*args, **kwargs) -> T:
        return contention_retry(lambda: view_method(*args, **kwargs))

    return run

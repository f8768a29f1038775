"""The cyclic garbage collector paused for one big unit of work.

Settling a 10,000-player round allocates some 300,000 small objects (records, engine results, returns, the
settlement's JSON) that live until the task ends. Each time allocations pass the collector's threshold it walks
every live object again, so the bigger the round, the more often it walks the more objects: half the worker's
CPU of such a settlement went to the collector (docs/benchmarks.md). These objects hold no reference cycles
(they are freed by reference counting alone), so nothing waits for the collector; it resumes after the work,
which the threshold makes run soon.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

"""Work shared out over threads, each with its own database connection (a common-draw table's players, the
tables of a run or a benchmark)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.db import connections


def parallel(items: Iterable, work: Callable[[Any], Any], *, threads: int) -> list:
    """Run work(item) for every item on `threads` threads, each with its own database connection (closed at
    the end); results in the order of the items. One thread: in the calling thread."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    results: list[Any] = [None] * len(items)
    errors: list[BaseException] = []

    def run(offset: int) -> None:
        try:
            for index in range(offset, len(items), threads):
                results[index] = work(items[index])
        except BaseException as error:  # re-raised in the caller
            errors.append(error)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=run, args=(offset,)) for offset in range(min(threads, len(items)))]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]
    return results


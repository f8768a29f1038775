"""A round's frozen configuration and rules, parsed once per process.

The configuration is copied into the round when it opens and never changes, but it is a few kilobytes of JSON
and every bet and decision needs it: reading and parsing it again on each request was a fifth of a bet's cost.
Entries are keyed by round id and checked against the game number and opening time the locking query reads
anyway, so an entry can never serve another row (a re-created test database reuses ids). Callers must treat
the configuration as read-only: it is shared by every request of the process.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from threading import Lock
from typing import NamedTuple

from rounds.engine.rules import Rules

MEMO_SIZE = 4096


class Snapshot(NamedTuple):
    game_number: str
    opened_at: datetime
    config: dict
    rules: Rules


_memo: OrderedDict[int, Snapshot] = OrderedDict()
_lock = Lock()


def _get(round_id: int, game_number: str, opened_at: datetime) -> Snapshot | None:
    with _lock:
        found = _memo.get(round_id)
        if found is None or found.game_number != game_number or found.opened_at != opened_at:
            return None
        _memo.move_to_end(round_id)
        return found


def _put(round_id: int, snapshot: Snapshot) -> Snapshot:
    with _lock:
        _memo[round_id] = snapshot
        _memo.move_to_end(round_id)
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return snapshot


def peek(round_id: int) -> Snapshot | None:
    """The entry for this round id as it is, unchecked: the caller must compare its game number and opening time
    with the round's row under a lock before trusting it (rounds.placement_sql does, in the database)."""
    with _lock:
        return _memo.get(round_id)


def snapshot(round) -> Snapshot:
    """The round's configuration and rules; a round loaded without its config gets it from here."""
    found = _get(round.pk, round.game_number, round.opened_at)
    if found is not None:
        if "config" in round.get_deferred_fields():
            round.config = found.config
        return found
    config = round.config  # loads a deferred config with one query
    return _put(round.pk, Snapshot(round.game_number, round.opened_at, config, Rules.from_dict(config["rules"])))


def clear() -> None:
    with _lock:
        _memo.clear()

"""The national self-exclusion register (Spelpaus in Sweden, GAMSTOP in the UK), behind a small adapter.

settings.RESPONSIBLE_EXCLUSION_REGISTER names the adapter class. The default, DatabaseRegister, is a register
kept in our own database (responsible.models.RegisterEntry; support adds and removes entries), so that
`make run` and the tests consult a real one. An adapter for a national service implements `lookup` and raises
RegisterUnavailable when the service does not answer: the callers then refuse (fail closed), because a deposit
or a session may not start unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Protocol

from django.conf import settings
from django.db import connection
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class RegisterAnswer:
    excluded: bool
    until: datetime | None = None  # None with excluded: indefinitely


class ExclusionRegister(Protocol):
    def lookup(self, *, identity: str, now: datetime) -> RegisterAnswer: ...


def register_identity(player) -> str:
    """What the register knows a player by. A national register uses the identity number checked at
    registration; this project has none, so the user name stands in for it."""
    return player.get_username()


# At most one live entry per identity (a database constraint). Written once: every deposit asks.
_LOOKUP_SQL = ("SELECT ends_at FROM responsible_registerentry WHERE identity = %s AND removed_at IS NULL "
               "AND (ends_at IS NULL OR ends_at > %s)")


class DatabaseRegister:
    def lookup(self, *, identity: str, now: datetime) -> RegisterAnswer:
        from responsible.selectors import _when

        with connection.cursor() as cursor:
            cursor.execute(_LOOKUP_SQL, [identity, connection.ops.adapt_datetimefield_value(now)])
            entry = cursor.fetchone()
        return RegisterAnswer(excluded=True, until=_when(entry[0])) if entry else RegisterAnswer(excluded=False)


@cache
def _register_class(path: str):
    return import_string(path)


def register() -> ExclusionRegister:
    return _register_class(settings.RESPONSIBLE_EXCLUSION_REGISTER)()


def register_lookup(player, now: datetime) -> RegisterAnswer:
    return register().lookup(identity=register_identity(player), now=now)

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
from django.db.models import Q
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


class DatabaseRegister:
    def lookup(self, *, identity: str, now: datetime) -> RegisterAnswer:
        from responsible.models import RegisterEntry

        entry = (RegisterEntry.objects.filter(identity=identity, removed_at__isnull=True)
                 .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now)).only("ends_at").first())
        return RegisterAnswer(excluded=True, until=entry.ends_at) if entry else RegisterAnswer(excluded=False)


@cache
def _register_class(path: str):
    return import_string(path)


def register() -> ExclusionRegister:
    return _register_class(settings.RESPONSIBLE_EXCLUSION_REGISTER)()


def register_lookup(player, now: datetime) -> RegisterAnswer:
    return register().lookup(identity=register_identity(player), now=now)

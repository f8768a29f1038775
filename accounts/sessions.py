"""Django's database sessions, read with one plain statement, which also reads the session's user.

Every API request loads its session; the ORM's query building cost more than the read itself (0.84 ms of CPU
against 0.29 ms on the benchmark machine), and reading from Redis through the cache framework 0.44 ms.
Writes (login, logout, a changed session) stay Django's own.

A session key belongs to one user for its whole life: Django gives the session a new key at every login, and
logging out deletes it. So once this process has decoded a session, it knows whose it is, and its next read of
that session also reads that user with all their permissions in the same statement (accounts.backends): the
request's authentication then costs no statement of its own. Nothing is cached but the key's owner: the user,
their permissions and the session itself are read fresh on every request, so a revoked session, a deactivated
user or a removed permission counts from the next request, as before. The decoded session must still name the
user read with it, or that read is dropped.

The session read is a request's first statement, and a plain read: when it finds its persistent connection
dead (the database restarted since the last request), it runs once more on a new connection. That is what
lets the bet path do without Django's `SELECT 1` health check (casino.hot_path).
"""

from __future__ import annotations

from collections import OrderedDict
from contextvars import ContextVar
from threading import Lock

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends import db
from django.core.signals import request_finished
from django.db import InterfaceError, OperationalError, connections, router
from django.utils import timezone

from casino.retry import is_transient

OWNERS_SIZE = 20_000

# The user read with this request's session, (user id, user or None): taken once by RoleBackend.get_user.
session_user: ContextVar[tuple[int, object] | None] = ContextVar("accounts_session_user", default=None)

_owners: OrderedDict[str, int] = OrderedDict()
_owners_lock = Lock()


def _owner(session_key: str) -> int | None:
    with _owners_lock:
        owner = _owners.get(session_key)
        if owner is not None:
            _owners.move_to_end(session_key)
        return owner


def _owner_learn(session_key: str, user_id: int) -> None:
    with _owners_lock:
        _owners[session_key] = user_id
        _owners.move_to_end(session_key)
        while len(_owners) > OWNERS_SIZE:
            _owners.popitem(last=False)


def _user_id_of(data: dict) -> int | None:
    try:
        return int(data[SESSION_KEY])
    except (KeyError, TypeError, ValueError):
        return None


def _request_done(**kwargs) -> None:
    session_user.set(None)


request_finished.connect(_request_done, dispatch_uid="accounts.sessions.request_done")


def _read(connection, sql: str, params: list) -> list:
    """The statement's rows; run again once on a new connection when the connection failed under it outside a
    transaction (nothing is written, so nothing can happen twice)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    except (InterfaceError, OperationalError) as error:
        if connection.in_atomic_block or not is_transient(error):
            raise
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


class SessionStore(db.SessionStore):
    def load(self):
        session_user.set(None)
        model = self.model
        alias = router.db_for_read(model)
        connection = connections[alias]
        table = model._meta.db_table
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        owner = _owner(self.session_key) if self.session_key and connection.vendor == "postgresql" else None
        if owner is None:
            rows = _read(connection, f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                         [self.session_key, now])
        else:
            from accounts.backends import user_sql

            rows = _read(connection, f"SELECT s.session_data, x.* FROM {table} s LEFT JOIN ({user_sql()}) x ON true "
                         "WHERE s.session_key = %s AND s.expire_date > %s", [owner, self.session_key, now])
        if not rows:
            self._session_key = None
            return {}
        data = self.decode(rows[0][0])
        user_id = _user_id_of(data)
        if user_id is not None and user_id == owner:
            from accounts.backends import RoleBackend

            session_user.set((user_id, RoleBackend().user_from_rows([row[1:] for row in rows])))
        elif user_id is not None and self.session_key:
            _owner_learn(self.session_key, user_id)
        return data

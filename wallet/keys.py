"""Idempotency keys that come with a request: the one place they become ledger keys.

The ledger keeps one table of keys for every movement. The keys the system derives for itself
(`round12:settle`, `round12:insurance:7`, `round12:void`) and the keys a client sends (an `Idempotency-Key`
header, a form's hidden field) must never meet: a player who could deposit with the key `round12:settle` would
stop that round from settling for ever, and a refusal saying the key was taken would tell them about another
user's request. So every client key is stored as `client:<user id>:<operation>:<key>`, scoped to its user and
operation; neither the user id nor the operation holds a colon, so two different requests never give the same
string. The wallet refuses a plain key that begins with `client:`, so the system's keys cannot enter that
namespace either.
"""

import re

from casino.checks import idempotency_key_check
from wallet.errors import InvalidIdempotencyKey

CLIENT_PREFIX = "client:"
CLIENT_KEY_MAX_LENGTH = 200
_OPERATION = re.compile(r"[a-z][a-z0-9_]{0,31}")
# The longest key client_key can make (a bigint user id): the ledger's column has room for it.
LEDGER_KEY_MAX_LENGTH = len(CLIENT_PREFIX) + 20 + 1 + 32 + 1 + CLIENT_KEY_MAX_LENGTH


class ClientKey(str):
    """A ledger key made by client_key; `raw` is the key the client sent."""

    raw: str


def client_key(*, user, operation: str, key) -> ClientKey:
    """The ledger key of a request's idempotency key: `key` as `user` sent it for `operation`."""
    user_id = getattr(user, "pk", None)
    if isinstance(user_id, bool) or not isinstance(user_id, int):
        raise TypeError(f"client_key needs a saved user, not {user!r}")
    if not isinstance(operation, str) or not _OPERATION.fullmatch(operation):
        raise ValueError(f"an operation name is lower-case letters, digits and _, not {operation!r}")
    idempotency_key_check(key, max_length=CLIENT_KEY_MAX_LENGTH, error=InvalidIdempotencyKey)
    made = ClientKey(f"{CLIENT_PREFIX}{user_id}:{operation}:{key}")
    made.raw = key
    return made


def is_client_key(key: str) -> bool:
    return key.startswith(CLIENT_PREFIX)

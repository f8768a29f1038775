"""What a review showed, carried to its confirmation: a signed digest of the reviewed change (who reviews it,
which action, the values and the state of the thing they change), put in the confirm form as `review`.

A confirmation moves money or changes a configuration only when it is the change that was reviewed: the posted
values and the thing's state now must give the same digest. Hidden inputs edited in between, a second tab, or a
table reconfigured by someone else since the review all fail the check, and the view shows the review again
(from the values and state now) instead of doing something nobody read. Every review -> confirm flow calls this
one owner: table limits and paytables, closing a table, voiding or reversing a round, granting Golden Chips,
and the cashier."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.core import signing
from django.utils.translation import gettext_lazy

SALT = "casino.review_token"
# A review left open longer than this is read again before it counts.
MAX_AGE_SECONDS = 30 * 60

# Lazy: the cashier's review is a player's page, in their language.
CHANGED = gettext_lazy("This is not what you reviewed: the values sent differ from the review, or what they change "
                       "has changed since (someone else may have acted first). Nothing was done: read the review "
                       "again below.")


def _digest(reviewed: dict[str, Any]) -> str:
    text = json.dumps(reviewed, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def review_token(*, user, action: str, reviewed: dict[str, Any]) -> str:
    """The token a review page puts in its confirm form."""
    return signing.dumps({"user": user.pk, "action": action, "digest": _digest(reviewed)}, salt=SALT)


def review_matches(*, token: str | None, user, action: str, reviewed: dict[str, Any]) -> bool:
    """Whether `token` was made by review_token for this user, action and these very values; False for a missing,
    forged, expired or different one."""
    if not token:
        return False
    try:
        data = signing.loads(token, salt=SALT, max_age=MAX_AGE_SECONDS)
    except signing.BadSignature:  # SignatureExpired included
        return False
    return data == {"user": user.pk, "action": action, "digest": _digest(reviewed)}

"""The one writer of the staff-activity record (accounts.models.StaffAction): every action of a person on staff,
with who, when, what, on which object, from which address and browser, and why.

The services of each app call `staff_action_record` inside the transaction of the action itself, so an action
and its record commit together or not at all, and a refused action writes none. The services never see an
HttpRequest: the doors (pages, admin, API views) turn the request into an `Origin` with `origin_from_request`
and pass it down; a service called from a shell or a command gets no origin and its row says so.

Actions of the system (actor None: timers, sweeps, data loads) are not staff actions and are not recorded here;
the rounds' audit trail and the tables' history keep them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection

from accounts.models import StaffAction, StaffActionKind, StaffObjectKind
from accounts.selectors import user_role
from casino.client_address import client_address

USER_AGENT_MAX_LENGTH = StaffAction._meta.get_field("user_agent").max_length


@dataclass(frozen=True)
class Origin:
    """Where a staff action came from: the client's address (None when unknown) and its user agent."""

    address: str | None = None
    user_agent: str = ""


@dataclass(frozen=True)
class StaffObject:
    """What a staff action was done to; build it with `for_table`, `for_round` or `for_user`."""

    kind: str
    ref: str
    label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def for_table(table) -> StaffObject:
    return StaffObject(kind=StaffObjectKind.TABLE, ref=table.code, label=table.code)


def for_round(round) -> StaffObject:
    return StaffObject(kind=StaffObjectKind.ROUND, ref=round.game_number, label=round.game_number)


def for_user(user) -> StaffObject:
    """A player (linked to the player page) or another user (a staff member whose password was reset)."""
    kind = StaffObjectKind.PLAYER if user_role(user) == "player" else StaffObjectKind.USER
    return StaffObject(kind=kind, ref=str(user.pk), label=user.get_username())


def origin_from_request(request) -> Origin:
    """The doors' half: a page, admin or API view passes this to the service it calls."""
    return Origin(address=client_address(request.META),
                  user_agent=(request.META.get("HTTP_USER_AGENT") or "")[:USER_AGENT_MAX_LENGTH])


def _role(actor) -> str:
    return user_role(actor) or ("superuser" if actor.is_superuser else "")


def staff_action_record(*, actor, action: str, target: StaffObject | None = None, origin: Origin | None = None,
                        reason: str = "", details: dict[str, Any] | None = None,
                        at: datetime | None = None) -> StaffAction | None:
    """Record one staff action, inside the caller's transaction. None for the system (actor None).

    The caller has already checked the actor's permission and the action's input: this runs after the
    action's own writes, so a refused action never reaches it."""
    if actor is None:
        return None
    if action not in StaffActionKind.values:
        raise ValueError(f"Unknown staff action {action!r}")
    if not connection.in_atomic_block:
        # Outside a transaction the action could commit while its record fails, or the reverse.
        raise RuntimeError("staff_action_record runs inside the transaction of the action it records")
    origin = origin or Origin()
    target = target or StaffObject(kind=StaffObjectKind.NONE, ref="")
    values: dict[str, Any] = {
        "actor": actor, "actor_role": _role(actor), "action": action, "object_kind": target.kind,
        "object_ref": target.ref, "object_label": target.label, "reason": (reason or "").strip(),
        "address": origin.address, "user_agent": origin.user_agent[:USER_AGENT_MAX_LENGTH],
        "details": {**target.extra, **(details or {})},
    }
    if at is not None:
        values["at"] = at
    return StaffAction.objects.create(**values)


def password_reset_record(*, actor, user, origin: Origin | None, reason: str = "") -> StaffAction | None:
    """For the password-reset service: call it inside the reset's own transaction, after the new password is
    set, with the staff member who reset it (None when the user reset their own: not a staff action)."""
    return staff_action_record(actor=actor, action=StaffActionKind.PASSWORD_RESET, target=for_user(user),
                               origin=origin, reason=reason)

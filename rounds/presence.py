"""The one gate of play: a player's move at a table needs their current presence there, in this session.

Joining a table from another device or browser ends the first session's presence (players.services.table_join,
"replaced"); this gate is what makes that mean something. Every player move of the game client calls it before
the move's service (bets, repeat, double, confirm, leave, insurance, decisions, continuations, tips, and the
moves added beside them), so a replaced session is told so and changes nothing.

Why here, at the doors, and not inside rounds.services: the services know the player, not the device. A session
is a door's notion (the browser's session cookie, or the game client's API key), and the simulator and the
studio's in-process calls have none. The gate reads players' presence record through players.selectors: like
the table pages calling rounds.services, the doors sit on top; rounds' models, services and selectors import
nothing of players.

A session's identity (`request_session`): the browser's session key, or `key:<digest>` for a game client signed
in with an API key, so each API key is a device of its own. Refusals are 409s with a stable code:
`session_replaced` (this session was taken over by another) or `not_at_table` (never joined, or left).
"""

from __future__ import annotations

from rest_framework import status

from casino.api_errors import DomainError

SESSION_MAX_LENGTH = 64
API_KEY_SESSION_PREFIX = "key:"


class NotAtTable(DomainError):
    code = "not_at_table"
    http_status = status.HTTP_409_CONFLICT


class SessionReplaced(NotAtTable):
    code = "session_replaced"


class NoSession(NotAtTable):
    """A request with neither a browser session nor an API key cannot be present anywhere."""


def request_session(request) -> str:
    """This request's session identity: the browser session's key, or the API key's (one device per key)."""
    from accounts.tokens import ApiTokenAuthentication

    if isinstance(getattr(request, "successful_authenticator", None), ApiTokenAuthentication) \
            and isinstance(request.auth, str):
        return (API_KEY_SESSION_PREFIX + request.auth)[:SESSION_MAX_LENGTH]
    session = getattr(request, "session", None)
    if session is None:
        return ""
    if not session.session_key:
        session.save()  # a signed-in browser always has one; an anonymous page view gets one here
    return session.session_key or ""


def presence_refusal(*, player, table_id: int | None = None, round_id: int | None = None, session: str,
                     closed_table_ok: bool = False) -> NotAtTable | None:
    """Why this session may not play at the table (the table's id, or the round's), or None when it may.

    One statement when the session is present (the bet path's cost); a refusal reads the table for its message.
    `closed_table_ok`: a move that outlives the table (a non-live continuation) is allowed at a closed table,
    where nobody can be present, unless another session of the player took it over.
    """
    from players.selectors import presence_latest_for_session

    if (table_id is None) == (round_id is None):
        raise TypeError("presence_refusal takes a table id or a round id")
    latest = presence_latest_for_session(player=player, table_id=table_id, round_id=round_id,
                                         session_key=session) if session else None
    if latest is not None and latest.ended_at is None:
        return None
    table = _table_of(table_id=table_id, round_id=round_id)
    code = table.code if table is not None else "?"
    if latest is not None and latest.end_reason == "replaced":
        return SessionReplaced(f"You joined table {code} from another device or browser, so play at it moved "
                               "there and this window can only watch. Join the table again here to play here.")
    if closed_table_ok and table is not None and table.state == "closed":
        return None
    if not session:
        return NoSession(f"This request has no session: sign in, or use an API key, and join table {code} "
                         "before you play.")
    return NotAtTable(f"Join table {code} before you play at it (POST /api/players/me/tables/{code}/join/, "
                      "or Join on your tables page).")


def require_presence(request, table=None, *, round_id: int | None = None, closed_table_ok: bool = False) -> None:
    """Refuse the request's move unless its session is present at the table (a Table or its id) or at the
    round's table (`round_id=`). Raises NotAtTable or SessionReplaced (409, the API's error body)."""
    table_id = getattr(table, "pk", table)
    refusal = presence_refusal(player=request.user, table_id=table_id, round_id=round_id,
                               session=request_session(request), closed_table_ok=closed_table_ok)
    if refusal is not None:
        raise refusal


def round_id_where_present(request, game_number: str) -> int | None:
    """The id of the round with this game number (None: there is none), once the request's session is found
    present at its table, both read in one statement (the bet path's cost). Refuses as require_presence does."""
    from players.selectors import round_id_and_presence

    round_id, present = round_id_and_presence(player=request.user, session_key=request_session(request),
                                              game_number=game_number)
    if round_id is not None and not present:
        require_presence(request, round_id=round_id)  # reads again to explain the refusal, and raises it
    return round_id


def _table_of(*, table_id: int | None, round_id: int | None):
    from tables.models import Table

    if table_id is not None:
        return Table.objects.filter(pk=table_id).only("code", "state").first()
    return Table.objects.filter(rounds__pk=round_id).only("code", "state").first()

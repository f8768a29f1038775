"""Every write of the chat app: a player's message, the host's message, and support disabling a player's chat
from one of their messages.

Each service checks its input first (bad input writes nothing), then writes in one durable transaction.
Decisions where the issue is silent:
- A player reads and writes only at a table where this session is present: the play gate,
  rounds.presence.require_presence, which the doors (chat.api, chat.views) call, since a session is theirs to
  know; writing also needs the table open. The host (the studio, `configure_tables`) writes at an open or
  paused table, so it can tell the players what is going on.
- A message is one line of at most BODY_MAX_LENGTH characters, surrounding blanks removed; control characters
  and the characters that reorder text (bidirectional overrides, which can make a message read as something
  else) are refused rather than silently dropped. Everything else is stored as written and escaped when shown.
- How often a player may write is the API's limit (casino.ratelimit.ChatRateThrottle), before any query.
- Disabling chat from a message is players.services.player_chat_disable (the one owner of chat moderation: the
  flag, the reason, the staff note and the staff action), with the message named in the staff action.
"""

from __future__ import annotations

import re
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.permissions import require_permission
from accounts.staffaudit import Origin
from casino.checks import text_check
from chat.errors import ChatDisabled, ChatMessageNotFound, ChatRequestError
from chat.models import BODY_MAX_LENGTH, ChatAuthor, ChatMessage
from players import selectors as player_selectors
from players import services as player_services
from players.errors import TableNotOpen
from tables.models import Table, TableState

# C0 and C1 controls (line breaks too: a message is one line) and the bidirectional embeddings, overrides and
# isolates (U+202A-U+202E, U+2066-U+2069).
_REFUSED = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def chat_body_check(body) -> str:
    text = text_check(body, what="chat message", max_length=BODY_MAX_LENGTH, error=ChatRequestError)
    if _REFUSED.search(text):
        raise ChatRequestError("A chat message is one line of plain text: it may not hold line breaks, control "
                               "characters or characters that reverse the direction of text.")
    return text


def _table_state(table: Table) -> str | None:
    return Table.objects.filter(pk=table.pk).values_list("state", flat=True).first()


def chat_post(*, player, table: Table, body, now: datetime | None = None) -> ChatMessage:
    """A player's message at a table they sit at; refused with support's reason when their chat is disabled.

    Presence is the doors' check (rounds.presence.require_presence: this session's, not any of the player's):
    the in-process callers, the simulator among them, have no session to give."""
    require_permission(player, "play")
    text = chat_body_check(body)
    profile = player_selectors.player_profile(player=player)
    if profile.chat_disabled:
        reason = profile.chat_disabled_reason.rstrip(". ")
        raise ChatDisabled(f"Your chat is disabled: {reason}. Contact support if you think this is a mistake.")
    state = _table_state(table)
    if state != TableState.OPEN:
        raise TableNotOpen(f"Table {table.code} is {state or 'gone'}: its chat opens with the table.")
    with transaction.atomic(durable=True):
        return ChatMessage.objects.create(table=table, author=player, author_kind=ChatAuthor.PLAYER, body=text,
                                          posted_at=now or timezone.now())


def chat_host_post(*, actor, table: Table, body, now: datetime | None = None) -> ChatMessage:
    """The host's (the studio's) message to everyone at the table, shown to every player."""
    require_permission(actor, "configure_tables")
    text = chat_body_check(body)
    state = _table_state(table)
    if state not in (TableState.OPEN, TableState.PAUSED):
        raise TableNotOpen(f"Table {table.code} is {state or 'gone'}: the host writes while it is open or paused.")
    with transaction.atomic(durable=True):
        return ChatMessage.objects.create(table=table, author=actor, author_kind=ChatAuthor.HOST, body=text,
                                          posted_at=now or timezone.now())


def chat_disable_from_message(*, message_id: int, staff, reason: str, origin: Origin | None = None) -> ChatMessage:
    """Support disables the chat of the player who wrote this message, saying why (a staff action)."""
    require_permission(staff, "lookup_players")
    message = ChatMessage.objects.select_related("author", "table").filter(pk=message_id).first()
    if message is None:
        raise ChatMessageNotFound(f"No chat message {message_id}.")
    if message.author_kind != ChatAuthor.PLAYER:
        raise ChatRequestError("That message is the host's: only a player's chat can be disabled.")
    player_services.player_chat_disable(
        player=message.author, staff=staff, reason=reason, origin=origin,
        details={"chat_message": message.pk, "table": message.table.code})
    return message

"""Reads of the chat app: a table's chat as a player or the studio sees it, and support's log (a table's or a
player's messages, around a game number)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from chat.models import ChatAuthor, ChatMessage
from players import selectors as player_selectors
from tables.models import Table

SHOWN = 50
LOG_PAGE = 100
WINDOW_MAX_MINUTES = 24 * 60


def _shown(messages, *, after: int | None, limit: int) -> list[ChatMessage]:
    """Oldest first: the newest `limit` messages, or the first `limit` after the one the client last read."""
    messages = messages.select_related("author")
    if after is not None:
        return list(messages.filter(id__gt=after).order_by("id")[:limit])
    return list(reversed(messages.order_by("-id")[:limit]))


def chat_for_player(*, player, table: Table, after: int | None = None, limit: int = SHOWN) -> list[ChatMessage]:
    """The table's chat as this player reads it: with "hide other players' chat" on, their own messages and the
    host's only."""
    messages = ChatMessage.objects.filter(table=table)
    if player_selectors.player_profile(player=player).hide_others_chat:
        messages = messages.filter(Q(author=player) | Q(author_kind=ChatAuthor.HOST))
    return _shown(messages, after=after, limit=limit)


def chat_for_studio(*, table: Table, after: int | None = None, limit: int = SHOWN) -> list[ChatMessage]:
    return _shown(ChatMessage.objects.filter(table=table), after=after, limit=limit)


@dataclass(frozen=True)
class RoundWindow:
    """A game number's stretch of time: from its opening to its settlement (or void, or now while it plays),
    widened by the window on both sides."""

    game_number: str
    table: Table
    opened_at: datetime
    ended_at: datetime | None
    ended_how: str
    since: datetime
    until: datetime


def round_window(*, round, window: timedelta, now: datetime | None = None) -> RoundWindow:
    ended_at = round.settled_at or round.voided_at
    ended_how = "settled" if round.settled_at else "voided" if round.voided_at else "still in play"
    return RoundWindow(game_number=round.game_number, table=round.table, opened_at=round.opened_at,
                       ended_at=ended_at, ended_how=ended_how, since=round.opened_at - window,
                       until=(ended_at or now or timezone.now()) + window)


@dataclass(frozen=True)
class ChatLogPage:
    messages: list[ChatMessage]  # newest first
    next_before: int | None  # the cursor of the next, older page


def chat_log(*, table: Table | None = None, player=None, since: datetime | None = None,
             until: datetime | None = None, before: int | None = None, limit: int = LOG_PAGE) -> ChatLogPage:
    """Support's log: every message (nothing hidden), newest first, of a table, a player or both, in a time
    range; paged by keyset (`before` a message id)."""
    messages = ChatMessage.objects.select_related("author", "table")
    if table is not None:
        messages = messages.filter(table=table)
    if player is not None:
        messages = messages.filter(author=player)
    if since is not None:
        messages = messages.filter(posted_at__gte=since)
    if until is not None:
        messages = messages.filter(posted_at__lte=until)
    if before is not None:
        messages = messages.filter(id__lt=before)
    rows = list(messages.order_by("-id")[:limit + 1])
    return ChatLogPage(messages=rows[:limit], next_before=rows[limit - 1].pk if len(rows) > limit else None)

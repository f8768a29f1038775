"""Reads of the players app."""

from __future__ import annotations

from players.models import PlayerNote, PlayerProfile, TablePresence

NOTES_SHOWN = 50


def player_profile(*, player) -> PlayerProfile:
    """The player's stored profile, or an unsaved one with the defaults (reading never writes)."""
    return PlayerProfile.objects.filter(player=player).select_related("chat_disabled_by").first() or \
        PlayerProfile(player=player)


def player_notes(*, player, limit: int = NOTES_SHOWN) -> list[PlayerNote]:
    return list(PlayerNote.objects.filter(player=player).select_related("author").order_by("-id")[:limit])


def player_presences_live(*, player) -> list[TablePresence]:
    return list(TablePresence.objects.filter(player=player, ended_at__isnull=True)
                .select_related("table").order_by("table__code"))


def presence_for_session(*, player, table, session_key: str) -> TablePresence | None:
    """This session's latest presence at the table (live or ended), to tell the page what happened to it."""
    if not session_key:
        return None
    return (TablePresence.objects.filter(player=player, table=table, session_key=session_key)
            .order_by("-id").first())


def players_chat_disabled(*, player_ids) -> set[int]:
    """Which of these players' chat support has disabled (the chat log shows it beside their messages)."""
    return set(PlayerProfile.objects.filter(player_id__in=set(player_ids), chat_disabled=True)
               .values_list("player_id", flat=True))

"""Reads of the players app."""

from __future__ import annotations

from django.db import connection

from players.models import PlayerNote, PlayerProfile, TablePresence
from rounds.models import Round

NOTES_SHOWN = 50


def player_profile(*, player) -> PlayerProfile:
    """The player's stored profile, or an unsaved one with the defaults (reading never writes)."""
    return PlayerProfile.objects.filter(player=player).select_related("chat_disabled_by").first() or \
        PlayerProfile(player=player)


def player_language(*, player) -> str:
    """The language the player chose ("en", "sv"), or "" when they chose none (their browser's then decides)."""
    if not getattr(player, "is_authenticated", False):
        return ""
    return PlayerProfile.objects.filter(player=player).values_list("language", flat=True).first() or ""


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


def presence_latest_for_session(*, player, session_key: str, table_id: int | None = None,
                                round_id: int | None = None) -> TablePresence | None:
    """This session's latest presence at a table (by its id, or the table of a round), live or ended: the play
    gate (rounds.presence) reads it in one statement."""
    rows = TablePresence.objects.filter(player=player, session_key=session_key)
    if table_id is not None:
        rows = rows.filter(table_id=table_id)
    else:
        rows = rows.filter(table_id=Round.objects.filter(pk=round_id).values("table_id")[:1])
    return rows.only("ended_at", "end_reason").order_by("-id").first()


_ROUND_AND_PRESENCE_SQL = (
    f"SELECT r.id, p.id IS NOT NULL AND p.ended_at IS NULL FROM {Round._meta.db_table} r "
    f"LEFT JOIN LATERAL (SELECT id, ended_at FROM {TablePresence._meta.db_table} "
    "                   WHERE player_id = %s AND session_key = %s AND table_id = r.table_id "
    "                   ORDER BY id DESC LIMIT 1) p ON true "
    "WHERE r.game_number = %s"
)


def round_id_and_presence(*, player, session_key: str, game_number: str) -> tuple[int | None, bool]:
    """The id of the round with this game number (None: no such round), and whether this session's latest
    presence at its table is live: the bet's round lookup and play gate (rounds.presence) in one statement."""
    if not isinstance(game_number, str) or len(game_number) > Round._meta.get_field("game_number").max_length:
        return None, False
    with connection.cursor() as cursor:
        cursor.execute(_ROUND_AND_PRESENCE_SQL, [player.pk, session_key, game_number])
        row = cursor.fetchone()
    if row is None:
        return None, False
    return row[0], bool(row[1]) and bool(session_key)

"""Every write of the players app: settings, chat moderation, staff notes, joining and leaving tables, tips.

Each service checks its input first (bad input writes nothing), then runs in one durable transaction.
Decisions where the issue is silent:
- Settings are one row per player, created on the first save; reading never writes (defaults are shown).
  Following a `?lang=` link on a player page is a choice too: it stores the language (player_language_remember).
- Disabling or enabling a player's chat also writes a staff note saying who did it and why, so the notes are
  the moderation history too.
- Presence is per (player, table, browser session): joining a table the player already sits at from another
  session ends that presence ("replaced"), and the other session's table page says so on its next poll.
  Joining again from the same session changes nothing.
- A tip goes to the dealer of a table the player sits at in this session, at an open table, in one of its
  currencies and within the table's tip limits; it moves money through wallet.services.tip (idempotent).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.permissions import require_permission
from accounts.staffaudit import Origin, for_user, staff_action_record
from casino.checks import text_check
from players.errors import NotAlongsideOthers, NotAtTable, PlayerRequestError, TableNotOpen
from players.models import (
    NOTE_MAX_LENGTH,
    REASON_MAX_LENGTH,
    PlayerNote,
    PlayerProfile,
    PresenceEnd,
    TablePresence,
    VideoQuality,
)
from rounds import selectors as round_selectors
from rounds import services as round_services
from rounds.presence import presence_refusal
from tables.models import BetType, Table, TableState
from tables.selectors import bet_limit_get
from wallet import services as wallet
from wallet.currencies import money_format
from wallet.keys import client_key
from wallet.models import LedgerTransaction

LANGUAGES_KNOWN = frozenset(["", *dict(settings.LANGUAGES)])


def _flag(value, *, what: str) -> bool:
    if not isinstance(value, bool):
        raise PlayerRequestError(f"{what} is yes or no, not {value!r}.")
    return value


def _text(value, *, what: str, max_length: int, required: bool = True) -> str:
    return text_check(value, what=what, max_length=max_length, error=PlayerRequestError, required=required)


def _session_key(value) -> str:
    if not isinstance(value, str) or not value or len(value) > 64:
        raise PlayerRequestError("This browser session has no key; sign in again.")
    return value


# --- settings ----------------------------------------------------------------------------------------------

def _volume(value, *, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise PlayerRequestError(f"{what} is a whole number from 0 to 100, not {value!r}.")
    return value


def player_settings_update(*, player, sound_on: bool, sound_volume: int, dealer_voice: bool, video_quality: str,
                           hide_others_chat: bool, voice_volume: int | None = None,
                           auto_confirm_bets: bool | None = None, language: str | None = None) -> PlayerProfile:
    """Store the player's sound, video, chat and bet-confirmation preferences; every device reads them from here.

    `voice_volume` (the dealer's voice, beside the game sound's `sound_volume`) and `auto_confirm_bets`: None keeps
    the stored choice, so a client that does not know the setting yet leaves it alone; so does `language` ("en",
    "sv", or "" for the browser's)."""
    require_permission(player, "play")
    values: dict[str, Any] = {
        "sound_on": _flag(sound_on, what="Sound"),
        "dealer_voice": _flag(dealer_voice, what="The dealer's voice"),
        "hide_others_chat": _flag(hide_others_chat, what="Hiding other players' chat"),
        "sound_volume": _volume(sound_volume, what="The volume"),
    }
    if voice_volume is not None:
        values["voice_volume"] = _volume(voice_volume, what="The dealer's voice volume")
    if auto_confirm_bets is not None:
        values["auto_confirm_bets"] = _flag(auto_confirm_bets, what="Confirming bets automatically")
    if language is not None:
        values["language"] = _language(language)
    if video_quality not in VideoQuality.values:
        raise PlayerRequestError(f"Video quality is one of {', '.join(VideoQuality.values)}, not {video_quality!r}.")
    values |= {"video_quality": video_quality, "updated_at": timezone.now()}
    with transaction.atomic(durable=True):
        profile, _ = PlayerProfile.objects.update_or_create(player=player, defaults=values)
    return profile


def _language(language: str) -> str:
    if not isinstance(language, str) or language not in LANGUAGES_KNOWN:
        raise PlayerRequestError(f"Language is one of {', '.join(dict(settings.LANGUAGES))} or blank (the "
                                 f"browser's), not {str(language)[:20]!r}.")
    return language


def player_language_remember(*, player, language: str) -> PlayerProfile:
    """Store the language the player asked a page for (?lang=), so the pages after it, the statement and the
    game-client API's help keep it; the other settings stay as they are."""
    require_permission(player, "play")
    language = _language(language)
    with transaction.atomic(durable=True):
        profile, _ = PlayerProfile.objects.update_or_create(
            player=player, defaults={"language": language, "updated_at": timezone.now()})
    return profile


# --- moderation and notes ----------------------------------------------------------------------------------

def _note(player, author, body: str) -> PlayerNote:
    return PlayerNote.objects.create(player=player, author=author, body=body)


def player_chat_disable(*, player, staff, reason: str, origin: Origin | None = None,
                        details: dict[str, Any] | None = None) -> PlayerProfile:
    """Disable the player's chat with a reason they are told; `details` names what led to it (a chat message)."""
    require_permission(staff, "lookup_players")
    reason = _text(reason, what="reason", max_length=REASON_MAX_LENGTH)
    now = timezone.now()
    with transaction.atomic(durable=True):
        profile, _ = PlayerProfile.objects.select_for_update().get_or_create(player=player)
        profile.chat_disabled, profile.chat_disabled_reason = True, reason
        profile.chat_disabled_at, profile.chat_disabled_by, profile.updated_at = now, staff, now
        profile.save()
        _note(player, staff, f"Chat disabled: {reason}")
        staff_action_record(actor=staff, action=StaffActionKind.CHAT_DISABLED, target=for_user(player),
                            origin=origin, reason=reason, at=now, details=details)
    return profile


def player_chat_enable(*, player, staff, reason: str = "", origin: Origin | None = None) -> PlayerProfile:
    require_permission(staff, "lookup_players")
    reason = _text(reason, what="reason", max_length=REASON_MAX_LENGTH, required=False)
    now = timezone.now()
    with transaction.atomic(durable=True):
        profile, _ = PlayerProfile.objects.select_for_update().get_or_create(player=player)
        if not profile.chat_disabled:
            return profile
        profile.chat_disabled, profile.chat_disabled_reason = False, ""
        profile.chat_disabled_at, profile.chat_disabled_by, profile.updated_at = None, None, now
        profile.save()
        _note(player, staff, "Chat enabled again" + (f": {reason}" if reason else "."))
        staff_action_record(actor=staff, action=StaffActionKind.CHAT_ENABLED, target=for_user(player),
                            origin=origin, reason=reason, at=now)
    return profile


def player_note_add(*, player, author, body: str, origin: Origin | None = None) -> PlayerNote:
    require_permission(author, "lookup_players")
    body = _text(body, what="note", max_length=NOTE_MAX_LENGTH)
    with transaction.atomic(durable=True):
        note = _note(player, author, body)
        # The note is its own why; the record keeps it so the staff-activity page reads without the notes.
        staff_action_record(actor=author, action=StaffActionKind.PLAYER_NOTE_ADDED, target=for_user(player),
                            origin=origin, reason=body, at=note.created_at, details={"note": note.pk})
    return note


# --- presence at tables ------------------------------------------------------------------------------------

def table_join(*, player, table: Table, session_key: str, now: datetime | None = None) -> TablePresence:
    """Sit the player at an open table in this session (add a table); a presence of theirs there in another
    session ends ("replaced"). A table not played alongside others (`multi_game` off) refuses while the player
    sits elsewhere, and sitting at one refuses other tables: switching (table_switch) works either way."""
    require_permission(player, "play")
    session_key = _session_key(session_key)
    now = now or timezone.now()
    for _attempt in range(2):
        try:
            with transaction.atomic(durable=True):
                return _join(player=player, table=table, session_key=session_key, now=now)
        except IntegrityError:
            # A join from another session committed between our read and insert: take it over on the retry.
            continue
    raise PlayerRequestError(f"Table {table.code} is being joined from another session at this moment; try again.")


def _join(*, player, table: Table, session_key: str, now: datetime, leaving: Table | None = None) -> TablePresence:
    # One join of the player at a time (whatever the session): the multi-game check reads their other tables.
    get_user_model().objects.select_for_update().filter(pk=player.pk).values_list("pk", flat=True).first()
    fresh = Table.objects.filter(pk=table.pk).only("code", "state", "multi_game").first()
    if fresh is None or fresh.state != TableState.OPEN:
        state = fresh.state if fresh is not None else "gone"
        raise TableNotOpen(f"Table {table.code} is {state}: you can join it once it opens.")
    current = (TablePresence.objects.select_for_update()
               .filter(player=player, table=table, ended_at__isnull=True).first())
    if current is not None and current.session_key == session_key:
        return current
    _multi_game_check(player=player, table=fresh, leaving=leaving)
    if current is not None:
        TablePresence.objects.filter(pk=current.pk, ended_at__isnull=True).update(
            ended_at=now, end_reason=PresenceEnd.REPLACED)
    return TablePresence.objects.create(player=player, table=table, session_key=session_key, joined_at=now)


def _multi_game_check(*, player, table: Table, leaving: Table | None) -> None:
    others = [p.table for p in TablePresence.objects.filter(player=player, ended_at__isnull=True)
              .exclude(table=table).exclude(table=leaving).select_related("table").order_by("table__code")]
    if not others:
        return
    if not table.multi_game:
        codes = ", ".join(t.code for t in others)
        raise NotAlongsideOthers(
            f"Table {table.code} is played on its own, and you are at {codes}. Leave "
            f"{'that table' if len(others) == 1 else 'those tables'} first, or switch to {table.code}.")
    alone = next((t for t in others if not t.multi_game), None)
    if alone is not None:
        raise NotAlongsideOthers(
            f"You are at table {alone.code}, which is played on its own: leave it first, or switch from it to "
            f"{table.code}.")


def table_switch(*, player, leave: Table, join: Table, session_key: str,
                 now: datetime | None = None) -> TablePresence:
    """Leave one table and join another in one step (the multi-game rule counts the table being left as gone).

    A refused switch changes nothing: the join is checked before anything happens. Bets in a round in play at
    the table left are a disconnection, as with table_leave (its own transaction, first); then the presence
    moves in one transaction.
    """
    require_permission(player, "play")
    session_key = _session_key(session_key)
    now = now or timezone.now()
    if leave.pk == join.pk:
        raise PlayerRequestError(f"You are switching from table {leave.code} to itself; choose another table.")
    here = TablePresence.objects.filter(player=player, table=leave, session_key=session_key, ended_at__isnull=True)
    refusal = presence_refusal(player=player, table_id=leave.pk, session=session_key)
    if refusal is not None:
        raise refusal
    try:
        with transaction.atomic(durable=True):  # the check, before the disconnection: a refusal changes nothing
            _join(player=player, table=join, session_key=session_key, now=now, leaving=leave)
            transaction.set_rollback(True)
        _round_disconnect(player=player, table=leave, now=now)
        with transaction.atomic(durable=True):
            if not here.update(ended_at=now, end_reason=PresenceEnd.LEFT):
                raise NotAtTable(f"You left table {leave.code} from another request meanwhile; join {join.code} "
                                 "instead.")
            return _join(player=player, table=join, session_key=session_key, now=now, leaving=leave)
    except IntegrityError:
        raise PlayerRequestError(f"Table {join.code} is being joined from another session at this moment; "
                                 "try again.") from None


@dataclass(frozen=True)
class TableLeft:
    left: bool  # False: this session had no presence there (never joined, left, or replaced); nothing changed
    # The round's answer when the player had bets in a round in play there: leaving during a round is the
    # disconnection of rules.md (the table's disconnect_policy decides whether the bets are refunded).
    disconnection: dict[str, Any] | None = None


def table_leave(*, player, table: Table, session_key: str, now: datetime | None = None) -> TableLeft:
    """End this session's presence at the table; leaving with bets in a round in play disconnects from it.

    Only the session that is present may leave: a replaced session cannot disconnect the bets the player's
    other session is playing. The disconnection commits first (its own transaction), so a leave that failed
    half way leaves the presence in place and the player can simply leave again.
    """
    session_key = _session_key(session_key)
    now = now or timezone.now()
    here = TablePresence.objects.filter(player=player, table=table, session_key=session_key,
                                        ended_at__isnull=True)
    if not here.exists():
        return TableLeft(left=False)
    disconnection = _round_disconnect(player=player, table=table, now=now)
    with transaction.atomic(durable=True):
        ended = here.update(ended_at=now, end_reason=PresenceEnd.LEFT)
    return TableLeft(left=bool(ended), disconnection=disconnection)


def _round_disconnect(*, player, table: Table, now: datetime) -> dict[str, Any] | None:
    round = round_selectors.round_active_for_table(table=table)
    if round is None or not round_selectors.player_in_round(round=round, player=player):
        return None
    return round_services.player_disconnect(round_id=round.pk, player=player, now=now)


def presences_end_for_session(*, player, session_key: str, now: datetime | None = None) -> int:
    """Logging out ends the player's presence at every table they sat at in that session (not in others)."""
    session_key = _session_key(session_key)
    with transaction.atomic(durable=True):
        return TablePresence.objects.filter(player=player, session_key=session_key, ended_at__isnull=True).update(
            ended_at=now or timezone.now(), end_reason=PresenceEnd.LOGGED_OUT)


def presences_end_at_table(*, table: Table, now: datetime | None = None) -> int:
    """A table that closes has nobody left at it (called inside the closing transaction)."""
    return TablePresence.objects.filter(table=table, ended_at__isnull=True).update(
        ended_at=now or timezone.now(), end_reason=PresenceEnd.TABLE_CLOSED)


def dealer_tip(*, player, table: Table, session_key: str, currency: str, amount: int,
               idempotency_key: str) -> LedgerTransaction:
    """Tip the dealer of a table the player sits at in this session (player cash -> house tips)."""
    require_permission(player, "play")
    session_key = _session_key(session_key)
    table = Table.objects.get(pk=table.pk)
    if table.state != TableState.OPEN:
        raise TableNotOpen(f"Table {table.code} is {table.state}: its dealer takes tips while it is open.")
    if currency not in table.currencies:
        raise PlayerRequestError(f"Table {table.code} plays in {', '.join(table.currencies)}, not {currency}.")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise PlayerRequestError("A tip is a positive amount.")
    limit = bet_limit_get(table=table, bet_type=BetType.TIP, currency=currency)
    if limit is None:
        raise PlayerRequestError(f"The dealer of table {table.code} takes no tips in {currency}.")
    if not limit.min <= amount <= limit.max:
        raise PlayerRequestError(f"A tip at table {table.code} is from {money_format(limit.min, currency)} to "
                                 f"{money_format(limit.max, currency)}.")
    refusal = presence_refusal(player=player, table_id=table.pk, session=session_key)
    if refusal is not None:
        raise refusal
    return wallet.tip(player=player, currency=currency, amount=amount, table_ref=table.code, actor=player,
                      idempotency_key=client_key(user=player, operation="dealer_tip", key=idempotency_key),
                      meta={"table": table.code})

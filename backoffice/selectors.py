"""Reads of the back office: the support search, the round page's config, transactions and voids, and a player's
staff page (a player's game history is rounds.game_history; a round as pages show it, rounds.round_page).

Everything here reads through the indexes of migration 0001 (see there) by keyset, never by offset, so the first
page of anything costs the same with a thousand rounds or a million. The dashboard's and the RTP report's reads
live in backoffice.reports.

Decisions where the issue is silent:
- A bare number in the search box may be a player id or a transaction id: when both exist the search lists both,
  otherwise it goes to the one that exists.
- A partial game number is the table code with a date and (part of) a time: `FB01 2026-11-30 14:22`,
  `FB01-20261130-1422`, or `FB01 14:22` (today, UTC). It matches every round of that table that began in that
  minute (or hour, or day), newest first; one match opens the round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Min, Q, Sum
from django.utils import timezone

from rounds.models import (
    ACTIVE_STATES,
    Round,
    RoundBet,
    RoundEvent,
    RoundState,
    Spot,
    VoidKind,
)
from rounds.reversal import reversal_totals, round_reversal_moves
from rounds.selectors import round_rules
from tables.models import Table
from wallet.models import Account, AccountKind, Entry, LedgerTransaction, TransactionKind

ROUND_EVENTS_PAGE = 100
SEARCH_LIMIT = 50
TRANSACTION_ENTRIES_SHOWN = 200

# --- search -------------------------------------------------------------------------------------------------

@dataclass
class SearchResult:
    query: str
    # Where to go at once, when the query names exactly one thing.
    redirect_to: tuple[str, tuple] | None = None
    rounds: list[Round] = field(default_factory=list)
    players: list[Any] = field(default_factory=list)
    transactions: list[LedgerTransaction] = field(default_factory=list)
    hint: str = ""

    @property
    def empty(self) -> bool:
        return not (self.rounds or self.players or self.transactions)


GAME_NUMBER = re.compile(r"^[A-Z0-9]{2,8}-\d{8}-\d{6}(-\d+)?$", re.ASCII)
GAME_NUMBER_PREFIX = re.compile(r"^(?P<code>[A-Z0-9]{2,8})-(?P<digits>\d{8}(-\d{0,6})?)$", re.ASCII)
PARTIAL = re.compile(
    r"^(?P<code>[A-Z0-9]{2,8})[\s,]+(?:(?P<date>\d{4}-\d{2}-\d{2}|\d{8})[\sT,]*)?"
    r"(?P<time>\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?$", re.ASCII
)
ID_QUERY = re.compile(r"^(?:(?P<kind>player|user|p|u|transaction|txn|tx|t)\s*)?#?\s*(?P<id>\d{1,18})$",
                      re.I | re.ASCII)


def _prefix_rounds(prefix: str, *, limit: int = SEARCH_LIMIT) -> list[Round]:
    """Rounds whose game number starts with prefix (index rounds_round_game_number_prefix), newest first by the
    order they were opened in: the game numbers of one second end -2 ... -10, -11, which sort wrongly as text."""
    return list(Round.objects.filter(game_number__startswith=prefix).select_related("table")
                .order_by("-opened_at", "-id")[:limit])


def _partial_prefix(code: str, day: date | None, clock: str | None, today: date) -> str | None:
    digits = re.sub(r"\D", "", clock or "")
    if clock and ":" not in clock and len(digits) in (3, 5):
        return None  # "142" is neither an hour nor an hour and minutes
    if clock and ":" in clock:
        parts = clock.split(":")
        digits = parts[0].zfill(2) + "".join(parts[1:])
    elif len(digits) in (1,):
        digits = digits.zfill(2)
    if digits and (int(digits[:2]) > 23 or (len(digits) >= 4 and int(digits[2:4]) > 59)):
        return None
    day = day or today
    return f"{code}-{day:%Y%m%d}-{digits}"


def _parse_day(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return datetime.strptime(text.replace("-", ""), "%Y%m%d").date()
    except ValueError:
        return None


def search(*, query: str, today: date | None = None) -> SearchResult:
    """What the support search box means by `query`: a game number (whole or partial), a player (id,
    username, e-mail) or a transaction id."""
    query = " ".join(str(query or "").split())[:120]
    result = SearchResult(query=query)
    if not query:
        return result
    today = today or timezone.now().astimezone(UTC).date()
    upper = query.upper()

    if GAME_NUMBER.match(upper):
        round = Round.objects.filter(game_number=upper).only("game_number").first()
        if round is not None:
            result.redirect_to = ("backoffice_round", (round.game_number,))
            return result
        result.hint = f"No round has the game number {upper}."
        return result
    prefix_match = GAME_NUMBER_PREFIX.match(upper)
    partial = PARTIAL.match(upper)
    if prefix_match or partial:
        if prefix_match:
            prefix = upper
        else:
            day = _parse_day(partial["date"])
            if partial["date"] and day is None:
                prefix = None
            else:
                prefix = _partial_prefix(partial["code"], day, partial["time"], today)
        if prefix and Table.objects.filter(code=prefix.split("-")[0]).exists():
            result.rounds = _prefix_rounds(prefix)
            if len(result.rounds) == 1:
                result.redirect_to = ("backoffice_round", (result.rounds[0].game_number,))
            elif not result.rounds:
                result.hint = f"No round of table {prefix.split('-')[0]} began at {prefix.split('-', 1)[1]}…"
            return result

    # Staff accounts are not players: the search finds people who play.
    users = get_user_model().objects.filter(groups__name="player")
    id_match = ID_QUERY.match(query)
    if id_match:
        kind = (id_match["kind"] or "").lower()
        number = int(id_match["id"])
        if kind in ("", "player", "user", "p", "u"):
            result.players = list(users.filter(pk=number))
        if kind in ("", "transaction", "txn", "tx", "t"):
            result.transactions = list(LedgerTransaction.objects.filter(pk=number))
        if len(result.players) + len(result.transactions) == 1:
            target = result.players[0] if result.players else result.transactions[0]
            name = "backoffice_player" if result.players else "backoffice_transaction"
            result.redirect_to = (name, (target.pk,))
        if not result.empty:
            return result
        if not kind or query.isascii() and query.isdigit():
            result.hint = f"No player and no transaction has the id {number}."
            return result
        # "p123" may as well be a username: look for one below.

    if "@" in query:
        result.players = list(users.filter(email__iexact=query).order_by("pk")[:SEARCH_LIMIT])
    else:
        exact = users.filter(username__iexact=query).first()
        if exact is not None:
            result.redirect_to = ("backoffice_player", (exact.pk,))
            result.players = [exact]
            return result
        result.players = list(users.filter(username__istartswith=query).order_by("username")[:SEARCH_LIMIT])
    if len(result.players) == 1:
        result.redirect_to = ("backoffice_player", (result.players[0].pk,))
    if result.empty:
        result.hint = (f"Nothing matches “{query}”. Try a game number (FB01-20261130-142205, or FB01 2026-11-30 "
                       "14:22), a username, an e-mail address, a player id or a transaction id.")
    return result


# --- the round page -------------------------------------------------------------------------------------------

def round_events_page(*, round: Round, after: int | None = None,
                      limit: int = ROUND_EVENTS_PAGE) -> tuple[list[RoundEvent], int | None]:
    events = RoundEvent.objects.filter(round=round).select_related("actor").order_by("id")
    if after is not None:
        events = events.filter(id__gt=after)
    page = list(events[: limit + 1])
    shown = page[:limit]
    return shown, (shown[-1].pk if len(page) > limit else None)


def round_transactions(*, round: Round) -> list[dict[str, Any]]:
    """Every ledger transaction of the round: bet holds, doubles, payouts, refunds and reversal adjustments
    (all carry the game number as their reference), with how many entries and the money moved to players."""
    rows = (LedgerTransaction.objects.filter(reference=round.game_number).select_related("actor")
            .annotate(entries_count=Count("entries"),
                      to_players=Sum("entries__amount", filter=Q(entries__account__player__isnull=False)),
                      currency=Min("entries__account__currency"))
            .order_by("id"))
    return [{"txn": txn, "entries": txn.entries_count, "to_players": txn.to_players or 0,
             "currency": txn.currency} for txn in rows]


def round_config_summary(round: Round) -> dict[str, Any]:
    config = round.config
    rules = round_rules(round)
    return {
        "name": config.get("name", ""), "code": config.get("code", ""), "profile": config.get("profile", ""),
        "version": round.config_version, "rules": rules, "rules_name": rules.name, "decks": rules.decks,
        "dealing": rules.dealing, "seats": config.get("seats"), "common_draw": config.get("common_draw"),
        "side_bets": config.get("side_bets", []), "paytables": config.get("paytables", {}),
        "limits": config.get("limits", {}),
        "limit_rows": [{"bet": bet, "currency": currency, **limit}
                       for bet, by_currency in config.get("limits", {}).items()
                       for currency, limit in sorted(by_currency.items())],
        "features": [k for k, v in config.get("features", {}).items() if v],
        "timers": config.get("timers", {}), "currencies": config.get("currencies", []),
    }


def round_void_progress(*, round: Round) -> dict[str, Any]:
    """How far the money of a voided round has gone back: bets refunded out of those held (a void), or players
    adjusted out of those in the round (a reversal: the settled bets stay resolved, compensating adjustments
    move the money, so counting refunded bets would say 0)."""
    if round.void_kind == VoidKind.REVERSAL:
        total = Spot.objects.filter(round=round).values("player_id").distinct().count()
        done_players = (Spot.objects.filter(round=round, player_id__lte=round.refunds_cursor)
                        .values("player_id").distinct().count())
        done = round.refunds_done_at is not None
        moves = round_reversal_moves(round=round)
        return {"reversal": True, "total": total, "refunded": total if done else done_players, "done": done,
                "percent": int(100 * done_players / total) if total and not done else 100,
                "moves": moves[:REVERSAL_PLAYERS_SHOWN], "more_players": max(0, len(moves) - REVERSAL_PLAYERS_SHOWN),
                "totals": reversal_totals(moves)}
    total = RoundBet.objects.filter(round=round).count()
    refunded = RoundBet.objects.filter(round=round, wallet_bet__resolution__outcome="voided").count()
    return {"total": total, "refunded": refunded, "done": round.refunds_done_at is not None,
            "percent": int(100 * refunded / total) if total else 100}


# Players named one by one in a reversal's confirmation and void box; the rest are counted in the totals.
REVERSAL_PLAYERS_SHOWN = 50


def round_void_preview(*, round: Round) -> dict[str, Any]:
    """What voiding the round would give back, per currency, and to how many players; for a settled round, what
    reversing it moves, player by player: who gives money back (a payout taken back), who gets a stake back."""
    stakes = (RoundBet.objects.filter(round=round).values("currency")
              .annotate(total=Sum("amount"), players=Count("spot__player", distinct=True)).order_by("currency"))
    preview: dict[str, Any] = {"stakes": list(stakes), "bets": RoundBet.objects.filter(round=round).count()}
    if round.state == RoundState.SETTLED:
        moves = round_reversal_moves(round=round)
        preview |= {"moves": moves[:REVERSAL_PLAYERS_SHOWN],
                    "more_players": max(0, len(moves) - REVERSAL_PLAYERS_SHOWN),
                    "unchanged": sum(1 for entry in moves if not entry.moves), "totals": reversal_totals(moves)}
    return preview


# --- one player ------------------------------------------------------------------------------------------

def player_get(*, user_id) -> Any | None:
    """A user who plays (holds the play role); staff accounts are not players and are not found here."""
    try:
        user_id = int(user_id)
    except (TypeError, ValueError):
        return None
    return get_user_model().objects.filter(pk=user_id, groups__name="player").first()


def player_open_rounds(*, player) -> list[Round]:
    """Rounds the player holds a live spot in that are not yet settled or voided."""
    round_ids = Spot.objects.filter(player=player, voided_at__isnull=True).values("round_id")
    return list(Round.objects.filter(pk__in=round_ids, state__in=(*ACTIVE_STATES, RoundState.SETTLING))
                .select_related("table").order_by("-id")[:50])


def player_golden_chip_grants(*, player, limit: int = 50) -> list[dict[str, Any]]:
    accounts = Account.objects.filter(player=player, kind=AccountKind.PLAYER_GOLDEN_CHIPS)
    entries = (Entry.objects.filter(account__in=accounts, transaction__kind=TransactionKind.GOLDEN_CHIP_GRANT)
               .select_related("transaction__actor", "account").order_by("-id")[:limit])
    return [{"txn": e.transaction, "amount": e.amount, "currency": e.account.currency, "at": e.created_at,
             "by": e.transaction.actor, "reason": e.transaction.reason} for e in entries]


def transaction_detail(*, transaction_id) -> dict[str, Any] | None:
    try:
        transaction_id = int(transaction_id)
    except (TypeError, ValueError):
        return None
    txn = LedgerTransaction.objects.select_related("actor").filter(pk=transaction_id).first()
    if txn is None:
        return None
    entries = list(Entry.objects.filter(transaction=txn).select_related("account__player")
                   .order_by("id")[: TRANSACTION_ENTRIES_SHOWN + 1])
    round = Round.objects.filter(game_number=txn.reference).only("game_number").first() if txn.reference else None
    return {"txn": txn, "entries": entries[:TRANSACTION_ENTRIES_SHOWN],
            "more_entries": len(entries) > TRANSACTION_ENTRIES_SHOWN, "round": round}

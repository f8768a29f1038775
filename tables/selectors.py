from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rounds.engine.errors import EngineError
from rounds.engine.rules import Rules, rules_for
from tables import rtp
from tables.errors import TableConfigError, TableConflictError
from tables.models import (
    FLAG_FIELDS,
    BetLimit,
    BetType,
    Profile,
    SideBet,
    Table,
    TableChange,
    TablePaytable,
    TableRtpRun,
    TableState,
)

HISTORY_PAGE_SIZE = 25


def tables_list(*, state: str | None = None) -> list[Table]:
    tables = Table.objects.all()
    if state is not None:
        tables = tables.filter(state=state)
    return list(tables.order_by("code"))


def tables_open() -> list[Table]:
    return tables_list(state=TableState.OPEN)


def tables_in_lobby() -> list[Table]:
    """The tables players may see in the lobby: open ones, and paused ones (shown as paused, not hidden)."""
    return list(Table.objects.filter(state__in=(TableState.OPEN, TableState.PAUSED)).order_by("code"))


def limits_of_tables(*, tables: Iterable[Table], bet_type: str) -> dict[int, list[BetLimit]]:
    """One bet type's limits of several tables in one query: {table id: [limit per currency, by currency]}."""
    found: dict[int, list[BetLimit]] = {}
    for limit in BetLimit.objects.filter(table__in=list(tables), bet_type=bet_type).order_by("table", "currency"):
        found.setdefault(limit.table_id, []).append(limit)
    return found


def table_detail(*, code: str) -> Table:
    """The table with this code; raises Table.DoesNotExist."""
    return Table.objects.get(code=code)


def table_bet_limits(*, table: Table) -> list[BetLimit]:
    """By currency, then in the order of BetType (main first, tip last)."""
    order = {bet_type: index for index, bet_type in enumerate(BetType.values)}
    limits = BetLimit.objects.filter(table=table)
    return sorted(limits, key=lambda limit: (limit.currency, order[limit.bet_type]))


def bet_limit_get(*, table: Table, bet_type: str, currency: str) -> BetLimit | None:
    return BetLimit.objects.filter(table=table, bet_type=bet_type, currency=currency).first()


def table_paytables(*, table: Table, offered_only: bool = False) -> list[TablePaytable]:
    rows = TablePaytable.objects.filter(table=table)
    if offered_only:
        rows = rows.filter(offered=True)
    order = {bet: index for index, bet in enumerate(SideBet.values)}
    return sorted(rows, key=lambda row: order[row.side_bet])


def table_paytable_get(*, table: Table, side_bet: str) -> TablePaytable:
    """Raises TablePaytable.DoesNotExist."""
    return TablePaytable.objects.get(table=table, side_bet=side_bet)


def table_history(*, table: Table, before_version: int | None = None,
                  limit: int = HISTORY_PAGE_SIZE) -> list[TableChange]:
    """Newest first, paged by version (keyset): pass the last version shown to get the next page."""
    changes = TableChange.objects.filter(table=table).select_related("actor").order_by("-version")
    if before_version is not None:
        changes = changes.filter(version__lt=before_version)
    return list(changes[:limit])


def rtp_run_get(*, table: Table, run_id: int) -> TableRtpRun:
    """Raises TableRtpRun.DoesNotExist."""
    return TableRtpRun.objects.get(table=table, pk=run_id)


def rtp_runs_recent(*, table: Table, limit: int = 5) -> list[TableRtpRun]:
    return list(TableRtpRun.objects.filter(table=table).order_by("-id")[:limit])


@dataclass(frozen=True)
class PaytableRtp:
    paytable: TablePaytable
    rtp: Fraction

    @property
    def percent(self) -> str:
        return rtp.percent(self.rtp)


def table_paytable_rtps(*, table: Table) -> list[PaytableRtp]:
    """Each side bet's paytable with its exact RTP at the table's deck count."""
    return [
        PaytableRtp(paytable=row, rtp=rtp.side_bet_rtp(row.side_bet, row.paytable, table.decks))
        for row in table_paytables(table=table)
    ]


def table_document(table: Table) -> dict[str, Any]:
    """The whole configuration of a table as JSON data; history stores it before and after every change."""
    return document_of_rows(table, paytables=TablePaytable.objects.filter(table=table),
                            limits=BetLimit.objects.filter(table=table))


def document_of_rows(table: Table, *, paytables: Iterable[TablePaytable],
                     limits: Iterable[BetLimit]) -> dict[str, Any]:
    """table_document from rows in hand: table_create has just written them, and need not read them back."""
    by_bet = {row.side_bet: row for row in paytables}
    limits_of: dict[str, dict[str, dict[str, Any]]] = {}
    for limit in sorted(limits, key=lambda limit: (limit.bet_type, limit.currency)):
        limits_of.setdefault(limit.bet_type, {})[limit.currency] = {
            "min": limit.min, "max": limit.max, "chips": list(limit.chips),
        }
    document = {
        "code": table.code,
        "name": table.name,
        "profile": table.profile,
        "state": table.state,
        "config_version": table.config_version,
    }
    for field in (*FLAG_FIELDS, "betting_seconds", "decision_seconds"):
        document[field] = getattr(table, field)
    document["currencies"] = list(table.currencies)
    document["side_bets"] = [bet for bet in SideBet.values if bet in by_bet and by_bet[bet].offered]
    document["limits"] = limits_of
    document["paytables"] = {bet: dict(by_bet[bet].paytable) for bet in SideBet.values if bet in by_bet}
    return document


def bet_types_offered(*, side_bets: Iterable[str], bet_behind: bool) -> list[str]:
    offered = [BetType.MAIN.value, *side_bets]
    if bet_behind:
        offered.append(BetType.BET_BEHIND.value)
    offered.append(BetType.TIP.value)
    return offered


def table_bet_types(table: Table) -> list[str]:
    """Bet types the table offers now: main, offered side bets, Bet Behind when on, tip."""
    offered = TablePaytable.objects.filter(table=table, offered=True).values_list("side_bet", flat=True)
    return bet_types_offered(side_bets=[bet for bet in SideBet.values if bet in set(offered)],
                              bet_behind=table.bet_behind)


def document_rules(document: Mapping[str, Any]) -> Rules:
    name = f"classic_{document['dealing']}" if document["profile"] == Profile.CLASSIC else document["profile"]
    overrides = {
        "decks": document["decks"],
        "charlie": document["charlie_cards"],
        "dealer_22_push": document["dealer_22_push"],
        "double_after_split": document["double_after_split"],
        "timeout": document["timeout_rule"],
        "new_shoe_burn": document["new_shoe_burn"],
        "disconnect_policy": document["disconnect_policy"],
        "non_live_deadline": document["non_live_deadline"],
        "max_seats": document["seats"],
        "bet_behind": document["bet_behind"],
        "multi_seat": document["multi_seat"],
        "deal_now": document["deal_now"],
        "auto_confirm": document["auto_confirm"],
        "golden_chips": document["golden_chips"],
        "side_bets": list(document["side_bets"]),
        "paytables": {bet: dict(lines) for bet, lines in document["paytables"].items()},
    }
    try:
        return rules_for(name, overrides)
    except EngineError as exc:
        raise TableConfigError(f"The rules engine refuses this table's settings: {exc}") from exc


def table_rules(table: Table) -> Rules:
    """The engine's Rules for the table as it is now."""
    return document_rules(table_document(table))


SNAPSHOT_FORMAT = 1


def table_config_snapshot(table: Table) -> dict[str, Any]:
    """Everything a round needs, as JSON data, consistent with one config_version.

    {"format": 1, "code", "name", "profile", "version", "rules": Rules.to_dict(), "currencies": [...],
     "seats": int | None, "common_draw": bool, "side_bets": [...],
     "limits": {bet_type: {currency: {"min", "max", "chips"}}}  (minor units; offered bet types only),
     "paytables": {side_bet: {line: pay}}  (offered side bets only, pays "to 1"),
     "features": {"bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips", "multiple_bets",
                  "deal_now_players", "multi_game"},
     "timers": {"betting_seconds", "decision_seconds"}}
    """
    # Several statements read the configuration; retry if a change commits between them.
    for _ in range(5):
        fresh = Table.objects.get(pk=table.pk)
        document = table_document(fresh)
        if Table.objects.filter(pk=table.pk, config_version=fresh.config_version).exists():
            break
    else:
        raise TableConflictError(f"Table {table.code} keeps changing; try again")
    rules = document_rules(document)
    return {
        "format": SNAPSHOT_FORMAT,
        "code": document["code"],
        "name": document["name"],
        "profile": document["profile"],
        "version": document["config_version"],
        "rules": rules.to_dict(),
        "currencies": document["currencies"],
        "seats": document["seats"],
        "common_draw": document["profile"] == Profile.FREE_BET,
        "side_bets": document["side_bets"],
        "limits": document["limits"],
        "paytables": {bet: document["paytables"][bet] for bet in document["side_bets"]},
        "features": {name: document[name] for name in
                     ("bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips", "multiple_bets",
                      "deal_now_players", "multi_game")},
        "timers": {"betting_seconds": document["betting_seconds"],
                   "decision_seconds": document["decision_seconds"]},
    }

"""Reads for finance: gross gaming revenue (GGR) and hold per table, UTC day and currency, per bet type, with totals.

The figures are the RTP report's settled-round totals (backoffice.reports: the daily rows rolled up by the beat
task, today and days not rolled up computed live by the same SQL), plus the two things those rows cannot give:
rounds across bet types and distinct players. Both are kept per day by the same rollup (RtpDailyRounds,
RtpDailyPlayer) and computed live here for the rest of a period.

Decisions where the issue is silent:
- GGR is cash GGR, as a licensed operator reports it: cash staked − cash returned. A stake paid with Golden
  Chips is promotional (the player's money was never at risk) and is not a stake; the cash a Golden Chip bet
  wins is paid from the house's cash and is a return. Golden Chips staked and given back (pushes) are shown
  apart, never in GGR or hold. Hold % = GGR ÷ cash staked, to two decimals (half up); none without cash staked.
- Days are UTC days: the rollup keeps UTC days, and a day in another zone would straddle two of them.
- A round counts on the day it settled; a reversal makes it void, so it leaves that day's totals (the rollup
  recomputes the day) - the report then shows the day as it now stands, not as first reported.
- Rounds of a bet type count the rounds with such a bet; a table's rounds count each round once. Active players
  are distinct players with a settled bet: of a day, of a table over the period, of the period.
- Money is per currency and never converted; a totals row is per currency.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import connection
from django.db.models import Count

from backoffice import reports
from backoffice.models import RtpDailyPlayer, RtpDailyRounds
from tables.models import Table

# Kept in the order the RTP report shows them; Golden Chips is the promotional main bet.
BET_TYPES = reports.BET_TYPES


def _where(*, since: datetime, until: datetime, table_id: int | None, currency: str | None) -> tuple[str, list]:
    # As reports._aggregate: settled rounds, bets not taken back while betting was open, each resolved.
    where = ["r.state = 'settled'", "r.settled_at >= %s", "r.settled_at < %s",
             "NOT EXISTS (SELECT 1 FROM rounds_betreturn x WHERE x.bet_id = b.id)"]
    params: list[Any] = [since, until]
    if table_id is not None:
        where.append("r.table_id = %s")
        params.append(table_id)
    if currency is not None:
        where.append("b.currency = %s")
        params.append(currency)
    return " AND ".join(where), params


def _fetch(sql: str, params: list) -> list[dict[str, Any]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c[0] for c in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:
        bucket = row.pop("bucket")
        if isinstance(bucket, str):
            bucket = datetime.fromisoformat(bucket).replace(tzinfo=UTC)
        row["day"] = bucket.astimezone(UTC).date()
    return rows


def activity_aggregate(*, since: datetime, until: datetime, table_id: int | None = None,
                       currency: str | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per UTC day of [since, until): (rounds per table and currency, players per table, currency and bet type)."""
    where, params = _where(since=since, until=until, table_id=table_id, currency=currency)
    source = f"""
        FROM rounds_roundbet b
        JOIN rounds_round r ON r.id = b.round_id
        JOIN rounds_spot s ON s.id = b.spot_id
        JOIN wallet_betresolution res ON res.bet_id = b.wallet_bet_id
        WHERE {where}"""
    bucket = reports._bucket_sql("day")
    rounds = _fetch(f"""
        SELECT {bucket} AS bucket, r.table_id AS table_id, b.currency AS currency, COUNT(DISTINCT r.id) AS rounds
        {source}
        GROUP BY {bucket}, r.table_id, b.currency""", params)
    players = _fetch(f"""
        SELECT DISTINCT {bucket} AS bucket, r.table_id AS table_id, b.currency AS currency,
               {reports.BET_TYPE_SQL} AS bet_type, s.player_id AS player_id
        {source}""", params)
    return rounds, players


# --- the report ------------------------------------------------------------------------------------------

def hold_percent(ggr: int, staked: int) -> Decimal | None:
    """GGR as a percentage of cash staked, two decimals, half up; None when nothing was staked in cash."""
    if not staked:
        return None
    return (Decimal(ggr) * 100 / Decimal(staked)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@dataclass
class GgrLine:
    """One row of the report: a day, or a period total (day None); one table, or all (table None); all bet
    types, or one."""

    currency: str
    day: date | None = None
    table: Table | None = None
    bet_type: str | None = None
    rounds: int = 0
    active_players: int = 0  # distinct players with a settled bet in this line's scope
    staked: int = 0  # cash, minor units
    returned: int = 0
    chips_staked: int = 0  # Golden Chips, minor units
    chips_returned: int = 0

    @property
    def ggr(self) -> int:
        return self.staked - self.returned

    @property
    def hold(self) -> Decimal | None:
        return hold_percent(self.ggr, self.staked)

    @property
    def label(self) -> str:
        return BET_TYPES.get(self.bet_type or "", self.bet_type or "")

    def add_money(self, row: dict[str, Any]) -> None:
        self.staked += row["staked"] - row["chips_staked"]
        self.returned += row["returned"] - row["chips_returned"]
        self.chips_staked += row["chips_staked"]
        self.chips_returned += row["chips_returned"]


@dataclass
class GgrReport:
    start: date
    end: date
    days: list[GgrLine]  # per day, table and currency
    tables: list[GgrLine]  # per table and currency over the period
    totals: list[GgrLine]  # per currency over the period
    bet_types: list[GgrLine]  # per bet type and currency over the period

    @property
    def empty(self) -> bool:
        return not self.days


def period_bounds(*, start: date, end: date) -> tuple[datetime, datetime]:
    """[start 00:00 UTC, the day after end 00:00 UTC): `end` is inclusive."""
    return (datetime.combine(start, time.min, tzinfo=UTC),
            datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC))


SCOPES = ("day", "table", "total", "bet_type")


def _scope_keys(row: dict[str, Any]) -> dict[str, tuple]:
    return {"day": (row["day"], row["table_id"], row["currency"]), "table": (row["table_id"], row["currency"]),
            "total": (row["currency"],), "bet_type": (row["bet_type"], row["currency"])}


def _rounds(*, done: list[date], spans: list, table_id: int | None,
            currency: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rounds per day, table and currency (rolled-up days from their rows, the rest live), and the live players."""
    rounds = RtpDailyRounds.objects.filter(day__in=done)
    if table_id is not None:
        rounds = rounds.filter(table_id=table_id)
    if currency is not None:
        rounds = rounds.filter(currency=currency)
    round_rows = list(rounds.values("day", "table_id", "currency", "rounds"))
    live_players: list[dict[str, Any]] = []
    for start, end in spans:
        live_rounds, players = activity_aggregate(since=start, until=end, table_id=table_id, currency=currency)
        round_rows += live_rounds
        live_players += players
    return round_rows, live_players


def _players(*, done: list[date], live: list[dict[str, Any]], table_id: int | None,
             currency: str | None) -> dict[str, dict[tuple, int]]:
    """Distinct players per scope: counted by the database over the rolled-up days, plus the players of the live
    part (today, mostly) not already among them. Only the live part is held in memory."""
    rolled = RtpDailyPlayer.objects.filter(day__in=done).order_by()
    if table_id is not None:
        rolled = rolled.filter(table_id=table_id)
    if currency is not None:
        rolled = rolled.filter(currency=currency)
    groups = {"day": ("day", "table_id", "currency"), "table": ("table_id", "currency"), "total": ("currency",),
              "bet_type": ("bet_type", "currency")}
    counts: dict[str, dict[tuple, int]] = {
        scope: {tuple(row[c] for c in columns): row["n"]
                for row in rolled.values(*columns).annotate(n=Count("player_id", distinct=True))}
        for scope, columns in groups.items()}
    fresh: dict[str, dict[tuple, set[int]]] = {scope: defaultdict(set) for scope in SCOPES}
    for row in live:
        for scope, key in _scope_keys(row).items():
            fresh[scope][key].add(row["player_id"])
    seen: dict[str, dict[tuple, set[int]]] = {scope: defaultdict(set) for scope in SCOPES}
    ids = sorted({row["player_id"] for row in live})
    if ids and done:
        # A live day is never a rolled-up one, so only the period-wide scopes can meet a player twice.
        for row in (rolled.filter(player_id__in=ids).values("table_id", "currency", "bet_type", "player_id")
                    .distinct()):
            for scope, key in _scope_keys({**row, "day": None}).items():
                seen[scope][key].add(row["player_id"])
    for scope in SCOPES:
        for key, players in fresh[scope].items():
            counts[scope][key] = counts[scope].get(key, 0) + len(players - seen[scope][key])
    return counts


def _bet_type_order(bet_type: str | None) -> int:
    return list(BET_TYPES).index(bet_type) if bet_type in BET_TYPES else len(BET_TYPES)


def ggr_report(*, start: date, end: date, table: Table | None = None, currency: str | None = None) -> GgrReport:
    """GGR and hold of the UTC days start..end (inclusive), of one table or all, one currency or all."""
    since, until = period_bounds(start=start, end=end)
    table_id = table.pk if table else None
    done, spans = reports.rolled_up_split(since=since, until=until)
    round_rows, live_players = _rounds(done=done, spans=spans, table_id=table_id, currency=currency)
    players = _players(done=done, live=live_players, table_id=table_id, currency=currency)
    money_rows = reports._totals(since=since, until=until, table_id=table_id, currency=currency, by_day=True,
                                 split=(done, spans))
    tables = {t.pk: t for t in Table.objects.filter(pk__in={r["table_id"] for r in round_rows + money_rows})}

    days: dict[tuple, GgrLine] = {}
    per_table: dict[tuple, GgrLine] = {}
    totals: dict[str, GgrLine] = {}
    bet_types: dict[tuple, GgrLine] = {}

    def lines(day: date, table_id: int, cur: str) -> list[GgrLine]:
        t = tables[table_id]
        return [days.setdefault((day, table_id, cur), GgrLine(currency=cur, day=day, table=t)),
                per_table.setdefault((table_id, cur), GgrLine(currency=cur, table=t)),
                totals.setdefault(cur, GgrLine(currency=cur))]

    for row in round_rows:
        for line in lines(row["day"], row["table_id"], row["currency"]):
            line.rounds += row["rounds"]
    for row in money_rows:
        for line in lines(row["bucket"].astimezone(UTC).date(), row["table_id"], row["currency"]):
            line.add_money(row)
        by_type = bet_types.setdefault((row["bet_type"], row["currency"]),
                                       GgrLine(currency=row["currency"], bet_type=row["bet_type"]))
        by_type.add_money(row)
        by_type.rounds += row["rounds"]  # rounds of one bet type, day, table and version: disjoint sets
    for scope, found in (("day", days), ("table", per_table), ("bet_type", bet_types)):
        for key, line in found.items():
            line.active_players = players[scope].get(key, 0)
    for cur, line in totals.items():
        line.active_players = players["total"].get((cur,), 0)
    order = {pk: t.code for pk, t in tables.items()}
    return GgrReport(
        start=start, end=end,
        days=sorted(days.values(), key=lambda line: (line.day, order[line.table.pk], line.currency)),
        tables=sorted(per_table.values(), key=lambda line: (order[line.table.pk], line.currency)),
        totals=[totals[k] for k in sorted(totals)],
        bet_types=sorted(bet_types.values(), key=lambda line: (line.currency, _bet_type_order(line.bet_type))),
    )

"""Reads for operators: the dashboard, and the return actually paid (observed RTP) beside the theoretical one.

The RTP figures come from settled rounds only: every held bet of a settled round has exactly one wallet
resolution, whose cash (and, for Golden Chips, chips) returned is what the player got back.

Decisions where the issue is silent:
- Bet types: the main game is the main bet with its paid doubles and splits; a Bet Behind likewise; each side
  bet and insurance on its own; Golden Chip main bets apart (promotional chips: no theoretical figure).
- The main game's observed RTP is per initial bet, 1 + (returned - everything staked on the hands) / initial
  bets, because that is what the theoretical figure (tables.rtp, the engine's infinite-deck optimal-strategy
  EV per unit of main bet) measures; "total staked" beside it includes the doubles and splits. For side bets
  and insurance the two are the same: returned / staked.
- The theoretical RTP of a period is the stake-weighted mean over the table configurations its rounds played
  with (each round carries its own snapshot), so a paytable changed mid-period is accounted for. A Bet Behind
  follows its seat's decisions; its theoretical figure is the main game's (optimal play assumed).
- The expected band is the theoretical RTP ± 1.96 standard errors (95 %): σ per unit staked is exact for side
  bets and insurance (from the paytable and the shoe), and estimated from the period's own results for the
  main game and Bet Behind; the standard error is σ·√(Σ stake²)/Σ stake, so unequal stakes count correctly.
- Money is summed per currency and never converted: each row is one table, bet type and currency.
- Whole UTC days before today are read from the daily totals (backoffice.models.RtpDaily) once rolled up; the
  rest of a period (today, a partial first day, a day not rolled up yet) is computed live by the same SQL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from backoffice.models import RtpDaily, RtpDay
from rounds.engine.rtp import side_bets as side_bet_math
from rounds.engine.rules import Rules
from rounds.models import ACTIVE_STATES, SIDE_KINDS, Round, RoundState
from tables import rtp as table_rtp
from tables import rtp_exact
from tables.models import Table, TableState
from wallet.audit import STRANDED_MONEY, Discrepancy, ledger_audit_run
from wallet.models import Funding

Z_95 = 1.96
Z_997 = 3.0
MIN_BETS = 100
# One unit of main bet returns at least 1 - 4 (one split, both hands doubled, all lost) and at most 1 + 4.
MAIN_RANGE = (-3.0, 5.0)
PERIODS = {"1h": ("last hour", timedelta(hours=1)), "24h": ("last 24 hours", timedelta(hours=24)),
           "7d": ("last 7 days", timedelta(days=7)), "30d": ("last 30 days", timedelta(days=30)),
           "90d": ("last 90 days", timedelta(days=90))}
BET_TYPES = {"main": "Main game", "bet_behind": "Bet Behind", "golden_chip": "Golden Chips", "insurance": "Insurance",
             "any_pair": "Any Pair", "21+3": "21+3", "hot3": "Hot 3", "perfect_pairs": "Perfect Pairs"}
STUCK_SETTLING = timedelta(seconds=30)
# Kinds whose stake is the initial bet of their bet type (a double or split adds to a hand already staked).
INITIAL_KINDS = ("main", "bet_behind", "golden_chip", "insurance", *SIDE_KINDS)


# --- the SQL shared by the report, the chart and the dashboard --------------------------------------------

def _kinds(values) -> str:
    return ", ".join(f"'{value}'" for value in values)  # constants of this module, never user input


BET_TYPE_SQL = f"""
    CASE WHEN b.kind IN ({_kinds(SIDE_KINDS)}) THEN b.kind
         WHEN b.kind = 'insurance' THEN 'insurance'
         WHEN b.kind = 'golden_chip' THEN 'golden_chip'
         WHEN s.behind THEN 'bet_behind'
         ELSE 'main' END"""


def _bucket_sql(bucket: str) -> str:
    if connection.vendor == "postgresql":
        return f"date_trunc('{bucket}', r.settled_at)"
    return "strftime('%%Y-%%m-%%d %%H:00:00', r.settled_at)" if bucket == "hour" else \
        "strftime('%%Y-%%m-%%d 00:00:00', r.settled_at)"


def _aggregate(*, since: datetime, until: datetime, table_id: int | None = None, bet_type: str | None = None,
               currency: str | None = None, bucket: str | None = None) -> list[dict[str, Any]]:
    """Per (bucket,) table, configuration version, bet type and currency: rounds, bets (spots), initial stakes,
    total staked, total returned, and the sums of squares the standard error needs. One statement: per spot
    first (a hand's doubles and splits belong to its initial bet), then per group."""
    # A bet the player took back while betting was open (undo, unconfirmed) was never played.
    where = ["r.state = 'settled'", "r.settled_at >= %s", "r.settled_at < %s",
             "NOT EXISTS (SELECT 1 FROM rounds_betreturn x WHERE x.bet_id = b.id)"]
    params: list[Any] = [since, until]
    if table_id is not None:
        where.append("r.table_id = %s")
        params.append(table_id)
    if currency is not None:
        where.append("b.currency = %s")
        params.append(currency)
    having = ""
    if bet_type is not None:
        having = "WHERE bet_type = %s"
        params.append(bet_type)
    bucket_column = f"{_bucket_sql(bucket)} AS bucket," if bucket else ""
    inner_group = "bucket, " if bucket else ""
    outer_select = "bucket, " if bucket else "NULL AS bucket, "
    sql = f"""
        SELECT {outer_select}table_id, config_version, bet_type, currency, COUNT(DISTINCT round_id) AS rounds,
               COUNT(*) AS bets, SUM(initial) AS initial, SUM(staked) AS staked, SUM(returned) AS returned,
               SUM(chips_staked) AS chips_staked, SUM(chips_returned) AS chips_returned,
               SUM(CAST(initial AS DOUBLE PRECISION) * initial) AS initial_sq,
               SUM(CAST(returned - staked AS DOUBLE PRECISION) * (returned - staked)) AS net_sq
        FROM (
            SELECT {bucket_column} r.table_id AS table_id, r.config_version AS config_version,
                   {BET_TYPE_SQL} AS bet_type, b.currency AS currency, b.spot_id AS spot_id, r.id AS round_id,
                   SUM(CASE WHEN b.kind IN ({_kinds(INITIAL_KINDS)}) THEN b.amount ELSE 0 END) AS initial,
                   SUM(b.amount) AS staked, SUM(res.cash_return + res.chips_return) AS returned,
                   SUM(CASE WHEN b.funding = '{Funding.GOLDEN_CHIPS.value}' THEN b.amount ELSE 0 END) AS chips_staked,
                   SUM(res.chips_return) AS chips_returned
            FROM rounds_roundbet b
            JOIN rounds_round r ON r.id = b.round_id
            JOIN rounds_spot s ON s.id = b.spot_id
            JOIN wallet_betresolution res ON res.bet_id = b.wallet_bet_id
            WHERE {' AND '.join(where)}
            GROUP BY {inner_group}r.table_id, r.config_version, bet_type, b.currency, b.spot_id, r.id
        ) per_spot
        {having}
        GROUP BY {inner_group}table_id, config_version, bet_type, currency
        ORDER BY {inner_group}table_id, bet_type, currency
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c[0] for c in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:
        for name in ("initial", "staked", "returned", "chips_staked", "chips_returned", "rounds", "bets"):
            row[name] = int(row[name] or 0)
        row["initial_sq"] = float(row["initial_sq"] or 0.0)
        row["net_sq"] = float(row["net_sq"] or 0.0)
        if isinstance(row["bucket"], str):
            row["bucket"] = datetime.fromisoformat(row["bucket"]).replace(tzinfo=UTC)
    return rows


def _midnight(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def rolled_up_split(*, since: datetime, until: datetime) -> tuple[list[date], list[tuple[datetime, datetime]]]:
    """[since, until) as the whole UTC days before today whose daily totals are rolled up, and the spans left to
    compute live (the partial first day, days not rolled up, consecutive ones merged, and the rest to `until`).
    Every read of the daily totals (this report, the GGR report) splits a period here."""
    if until <= since:
        return [], []
    first_full = _midnight(since) if _midnight(since) == since else _midnight(since) + timedelta(days=1)
    full_end = min(_midnight(until), _midnight(timezone.now()))
    days = []
    day = first_full
    while day + timedelta(days=1) <= full_end:
        days.append(day)
        day += timedelta(days=1)
    done = set(RtpDay.objects.filter(day__in=[d.date() for d in days]).values_list("day", flat=True))
    spans: list[list[datetime]] = []
    edges = [(since, min(first_full, until))] if since < first_full else []
    edges += [(d, d + timedelta(days=1)) for d in days if d.date() not in done]
    last = days[-1] + timedelta(days=1) if days else max(first_full, since)
    if last < until:
        edges.append((last, until))
    for start, end in edges:
        if start >= end:
            continue
        if spans and spans[-1][1] == start:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return sorted(done), [(start, end) for start, end in spans]


def _totals(*, since: datetime, until: datetime, table_id: int | None = None, bet_type: str | None = None,
            currency: str | None = None, by_day: bool = False,
            split: tuple[list[date], list[tuple[datetime, datetime]]] | None = None) -> list[dict[str, Any]]:
    """The rows of _aggregate for [since, until): whole days before today from the daily totals where they are
    rolled up, everything else live. With `by_day`, each row carries its UTC day as `bucket`. `split`: the
    period's rolled_up_split when the caller read it already (its other reads then see the same days)."""
    done, spans = split if split is not None else rolled_up_split(since=since, until=until)
    rows: list[dict[str, Any]] = []
    if done:
        daily = RtpDaily.objects.filter(day__in=done)
        if table_id is not None:
            daily = daily.filter(table_id=table_id)
        if bet_type is not None:
            daily = daily.filter(bet_type=bet_type)
        if currency is not None:
            daily = daily.filter(currency=currency)
        for row in daily.values("day", "table_id", "config_version", "bet_type", "currency", "rounds", "bets",
                                "initial", "staked", "returned", "chips_staked", "chips_returned", "initial_sq",
                                "net_sq"):
            row["bucket"] = datetime.combine(row.pop("day"), datetime.min.time(), tzinfo=UTC) if by_day else None
            rows.append(row)
    for start, end in spans:
        rows += _aggregate(since=start, until=end, table_id=table_id, bet_type=bet_type, currency=currency,
                           bucket="day" if by_day else None)
    return rows


# --- theoretical figures ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Theory:
    rtp: float | None
    sigma: float | None  # per unit staked; None: estimate it from the results
    low: float = MAIN_RANGE[0]  # the least and most one unit can return in a round
    high: float = MAIN_RANGE[1]
    min_bets: int = MIN_BETS  # below this effective number of bets the bands mean nothing
    exact: bool = False


def _side_bet_theory(bet: str, paytable: dict[str, int], decks: int) -> Theory:
    """Mean, σ, range and the sample size the normal band needs, from the bet's exact outcome distribution."""
    breakdown = side_bet_math.side_bet_breakdown(bet, decks)
    nets = {line: (-1 if line == "lose" else paytable.get(line, 0)) for line in breakdown}
    mean = sum((p * nets[line] for line, p in breakdown.items()), Fraction(0))
    var = sum((p * (nets[line] - mean) ** 2 for line, p in breakdown.items()), Fraction(0))
    third = sum((p * (nets[line] - mean) ** 3 for line, p in breakdown.items()), Fraction(0))
    sigma = math.sqrt(float(var))
    skew = float(third) / sigma**3 if sigma else 0.0
    # Cochran's rule (n > 25 γ²): below it the mean of so skewed a bet is far from normal, a rare top line
    # decides the figure, and a band drawn from σ alone would mislead.
    return Theory(rtp=float(1 + mean), sigma=sigma, low=float(1 + min(nets.values())),
                  high=float(1 + max(nets.values())), min_bets=max(MIN_BETS, math.ceil(25 * skew * skew)),
                  exact=True)


@lru_cache(maxsize=512)
def _theory_cached(table_id: int, version: int, bet_type: str) -> Theory:
    config = (Round.objects.filter(table_id=table_id, config_version=version)
              .values_list("config", flat=True).first())
    if not config:
        return Theory(None, None)
    rules = Rules.from_dict(config["rules"])
    if bet_type in ("main", "bet_behind"):
        rtp_rules = rtp_exact.rtp_rules_from_engine(rules)
        figures = rtp_exact.main_game_cached(rtp_rules)
        if figures is None:
            # Seconds of work: a worker does it; until then the infinite-deck figure, σ from the period.
            rtp_exact.main_game_queue(rtp_rules)
            return _Uncached(table_rtp.main_game_infinite_rtp(rules), None)
        return Theory(figures["rtp"], math.sqrt(figures["variance"]), exact=True)
    if bet_type == "insurance":
        return _side_bet_theory(side_bet_math.INSURANCE, side_bet_math.INSURANCE_PAYTABLE, rules.decks)
    paytable = (config.get("paytables") or {}).get(bet_type)
    if not paytable:
        return Theory(None, None)
    return _side_bet_theory(bet_type, paytable, rules.decks)


class _Uncached(Theory):
    """A provisional figure (the exact one is being computed): never kept in the memo."""


def theory_for(*, table_id: int, version: int, bet_type: str) -> Theory:
    """The theoretical RTP and σ of a bet type under one table configuration (from a round that played it);
    configurations never change once played, so the answer is cached."""
    theory = _theory_cached(table_id, version, bet_type)
    if isinstance(theory, _Uncached):
        _theory_cached.cache_clear()
    return theory


# --- the report ------------------------------------------------------------------------------------------

@dataclass
class RtpRow:
    table: Table
    bet_type: str
    currency: str
    rounds: int = 0
    bets: int = 0
    initial: int = 0
    staked: int = 0
    returned: int = 0
    initial_sq: float = 0.0
    net_sq: float = 0.0
    theory_weighted: float = 0.0  # Σ initial·rtp over versions with a figure
    theory_weight: int = 0
    sigma_weighted: float = 0.0
    sigma_weight: int = 0
    low: float = MAIN_RANGE[1]  # the range of the versions played (min of lows, max of highs)
    high: float = MAIN_RANGE[0]
    min_bets: int = MIN_BETS
    versions: set[int] = field(default_factory=set)

    @property
    def label(self) -> str:
        return BET_TYPES.get(self.bet_type, self.bet_type)

    @property
    def observed(self) -> float | None:
        if not self.initial:
            return None
        return 1.0 + (self.returned - self.staked) / self.initial

    @property
    def theoretical(self) -> float | None:
        return self.theory_weighted / self.theory_weight if self.theory_weight else None

    @property
    def sigma(self) -> float | None:
        if self.sigma_weight:
            return self.sigma_weighted / self.sigma_weight
        if self.initial_sq > 0 and self.bets > 1:
            # Estimated from the period: σ² ≈ Σ net² / Σ stake² (the mean per unit is a few percent at most).
            return math.sqrt(self.net_sq / self.initial_sq)
        return None

    @property
    def standard_error(self) -> float | None:
        if self.sigma is None or not self.initial:
            return None
        return self.sigma * math.sqrt(self.initial_sq) / self.initial

    @property
    def effective_bets(self) -> float:
        """(Σ stake)² / Σ stake²: the number of equal bets that would be as informative."""
        return self.initial * self.initial / self.initial_sq if self.initial_sq else 0.0

    @property
    def enough(self) -> bool:
        return self.effective_bets >= self.min_bets

    def band_at(self, z: float) -> tuple[float, float] | None:
        """theoretical ± z standard errors, clamped to what the bets could possibly have returned."""
        if self.theoretical is None or self.standard_error is None:
            return None
        half = z * self.standard_error
        return max(self.theoretical - half, self.low), min(self.theoretical + half, self.high)

    @property
    def band(self) -> tuple[float, float] | None:
        return self.band_at(Z_95)

    @property
    def band_997(self) -> tuple[float, float] | None:
        return self.band_at(Z_997)

    @property
    def verdict(self) -> str:
        band, wide, observed = self.band, self.band_997, self.observed
        if band is None or wide is None or observed is None:
            return "no reference"
        if not self.enough:
            return "not enough bets to judge yet"
        if not wide[0] <= observed <= wide[1]:
            return "outside the 99.7 % band"
        if not band[0] <= observed <= band[1]:
            return "outside the 95 % band"
        return "within the band"

    @property
    def alarm(self) -> bool:
        return self.verdict == "outside the 99.7 % band"

    def add(self, row: dict[str, Any]) -> None:
        for name in ("rounds", "bets", "initial", "staked", "returned", "initial_sq", "net_sq"):
            setattr(self, name, getattr(self, name) + row[name])
        self.versions.add(row["config_version"])
        theory = theory_for(table_id=row["table_id"], version=row["config_version"], bet_type=row["bet_type"])
        if theory.rtp is not None:
            self.theory_weighted += theory.rtp * row["initial"]
            self.theory_weight += row["initial"]
        if theory.sigma is not None:
            self.sigma_weighted += theory.sigma * row["initial"]
            self.sigma_weight += row["initial"]
        self.low, self.high = min(self.low, theory.low), max(self.high, theory.high)
        self.min_bets = max(self.min_bets, theory.min_bets)


def _bet_type_order(bet_type: str) -> int:
    return list(BET_TYPES).index(bet_type) if bet_type in BET_TYPES else len(BET_TYPES)


def rtp_report(*, since: datetime, until: datetime, table: Table | None = None) -> list[RtpRow]:
    """Per table, bet type and currency over [since, until): rounds, stakes, returns, observed and theoretical
    RTP with the expected band."""
    rows: dict[tuple[int, str, str], RtpRow] = {}
    tables = {t.pk: t for t in Table.objects.all()}
    for raw in _totals(since=since, until=until, table_id=table.pk if table else None):
        key = (raw["table_id"], raw["bet_type"], raw["currency"])
        if key not in rows:
            rows[key] = RtpRow(table=tables[raw["table_id"]], bet_type=raw["bet_type"], currency=raw["currency"])
        rows[key].add(raw)
    return sorted(rows.values(), key=lambda r: (r.table.code, _bet_type_order(r.bet_type), r.currency))


@dataclass
class SeriesPoint:
    at: datetime
    rounds: int
    observed: float | None  # over the whole period up to the end of this bucket
    bucket_observed: float | None
    low: float | None  # the 95 % band so far
    high: float | None
    bets: float = 0.0  # effective number of bets so far
    low_997: float | None = None
    high_997: float | None = None
    enough: bool = False
    theoretical: float | None = None


def rtp_series(*, table: Table, bet_type: str, currency: str, since: datetime,
               until: datetime) -> tuple[list[SeriesPoint], RtpRow | None]:
    """Observed RTP over time (cumulative, per hour up to two days, else per UTC day) with its bands, which
    narrow as bets accumulate; and the period's totals."""
    if until - since <= timedelta(days=2):
        raws = _aggregate(since=since, until=until, table_id=table.pk, bet_type=bet_type, currency=currency,
                          bucket="hour")
    else:
        raws = _totals(since=since, until=until, table_id=table.pk, bet_type=bet_type, currency=currency,
                       by_day=True)
    if not raws:
        return [], None
    total = RtpRow(table=table, bet_type=bet_type, currency=currency)
    by_bucket: dict[datetime, list[dict[str, Any]]] = {}
    for raw in raws:
        total.add(raw)
        by_bucket.setdefault(raw["bucket"], []).append(raw)
    running = RtpRow(table=table, bet_type=bet_type, currency=currency)
    points = []
    for at in sorted(by_bucket):
        row = RtpRow(table=table, bet_type=bet_type, currency=currency)
        for raw in by_bucket[at]:
            row.add(raw)
            running.add(raw)
        band, wide = running.band, running.band_997
        points.append(SeriesPoint(at=at, rounds=row.rounds, observed=running.observed,
                                  bucket_observed=row.observed, low=band[0] if band else None,
                                  high=band[1] if band else None, bets=running.effective_bets,
                                  low_997=wide[0] if wide else None, high_997=wide[1] if wide else None,
                                  enough=running.enough, theoretical=running.theoretical))
    return points, total


# --- the dashboard ---------------------------------------------------------------------------------------

def open_tables(*, now: datetime) -> list[dict[str, Any]]:
    """Tables open or paused, each with its round in play and its rounds of the last hour."""
    tables = list(Table.objects.filter(state__in=(TableState.OPEN, TableState.PAUSED)).order_by("code"))
    active = {r.table_id: r for r in Round.objects.filter(table__in=tables, state__in=ACTIVE_STATES)}
    hour = dict(Round.objects.filter(table__in=tables, opened_at__gte=now - timedelta(hours=1))
                .values_list("table_id").annotate(n=Count("id")).values_list("table_id", "n"))
    from players.models import TablePresence

    seated = dict(TablePresence.objects.filter(table__in=tables, ended_at__isnull=True)
                  .values_list("table_id").annotate(n=Count("id")).values_list("table_id", "n"))
    return [{"table": t, "round": active.get(t.pk), "rounds_last_hour": hour.get(t.pk, 0),
             "players_present": seated.get(t.pk, 0)} for t in tables]


def rounds_last_hour(*, now: datetime) -> dict[str, Any]:
    """Rounds opened in the last hour, per table and in total, by how they stand now."""
    counts = (Round.objects.filter(opened_at__gte=now - timedelta(hours=1))
              .values("table__code")
              .annotate(total=Count("id"), settled=Count("id", filter=Q(state=RoundState.SETTLED)),
                        voided=Count("id", filter=Q(state=RoundState.VOIDED)),
                        playing=Count("id", filter=Q(state__in=(*ACTIVE_STATES, RoundState.SETTLING))))
              .order_by("table__code"))
    rows = list(counts)
    return {"tables": rows, "total": sum(r["total"] for r in rows)}


def money_by_table(*, rows: list[RtpRow]) -> list[dict[str, Any]]:
    """Stakes and returns per table and currency, from the period's RTP report rows (read once per page)."""
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        key = (row.table.code, row.currency)
        entry = totals.setdefault(key, {"table": row.table, "currency": row.currency, "staked": 0, "returned": 0,
                                        "rounds": 0})
        entry["staked"] += row.staked
        entry["returned"] += row.returned
        entry["rounds"] = max(entry["rounds"], row.rounds)  # every settled round with a bet has a main-type bet
    result = sorted(totals.values(), key=lambda e: (e["table"].code, e["currency"]))
    for entry in result:
        entry["house"] = entry["staked"] - entry["returned"]
        entry["paid_out"] = entry["returned"] / entry["staked"] if entry["staked"] else None
    return result


def rounds_waiting_settlement(*, now: datetime, limit: int = 50) -> list[dict[str, Any]]:
    rounds = list(Round.objects.filter(state=RoundState.SETTLING).select_related("table")
                  .order_by("settling_at", "id")[:limit])
    return [{"round": r, "waiting": now - r.settling_at if r.settling_at else None,
             "stuck": r.settling_at is not None and now - r.settling_at > STUCK_SETTLING} for r in rounds]


def stranded_money(*, now: datetime) -> list[Discrepancy]:
    """What the ledger audit finds held that should not be (stuck rounds, stakes never resolved), oldest first."""
    found = ledger_audit_run(now=now, groups=[STRANDED_MONEY])
    return sorted(found, key=lambda d: (d.since is None, d.since or now, d.message))


def rounds_needing_attention(*, limit: int = 50) -> list[Round]:
    """Rounds the worker gave up settling or refunding; they wait for staff (rounds.services.attention)."""
    return list(Round.objects.filter(attention_at__isnull=False).select_related("table")
                .order_by("attention_at", "id")[:limit])


def rtp_alerts_open() -> list[Any]:
    """The RTP alerts the beat check keeps open, oldest first, each with its bet type's label."""
    from backoffice.models import RtpAlert

    alerts = list(RtpAlert.objects.filter(cleared_at__isnull=True).select_related("table").order_by("raised_at"))
    for alert in alerts:
        alert.label = BET_TYPES.get(alert.bet_type, alert.bet_type)
    return alerts


def rounds_voided(*, since: datetime, limit: int = 50) -> list[Round]:
    return list(Round.objects.filter(state=RoundState.VOIDED, voided_at__gte=since)
                .select_related("table", "voided_by").order_by("-voided_at", "-id")[:limit])


def period_bounds(key: str | None, *, now: datetime | None = None) -> tuple[str, datetime, datetime]:
    now = now or timezone.now()
    key = key if key in PERIODS else "1h"
    return key, now - PERIODS[key][1], now

"""The daily reconciliation: per UTC day and currency, each account kind's opening and closing balance, the
movements between the kinds by transaction kind, and the checks that tie those figures to the ledger.

The figures are computed from the entries, not kept: a fixed number of set-based statements for any range
(migration 0004 indexes wallet_entry.created_at). A day's figures are what the entries say now, so a day that
gains an entry after it was read (a backdated write, a bug) shows the new truth rather than a stale snapshot.

Opening + movements = closing holds by construction; the checks are the independent ties:
- zero_sum: each transaction kind's movements sum to zero over the account kinds, and no transaction of the
  day has entries that do not sum to zero (the PostgreSQL trigger of migration 0002 should make both impossible);
- ledger_total: the closing balances of all kinds sum to zero (every unit is somewhere);
- running_balance: each player kind's closing equals what its accounts' running balances (balance_after of the
  last entry of each account by the day's end) say;
- in_play: the bets-in-play accounts hold exactly the stakes of bets placed and not resolved by the day's end;
- held_balance (today only): each player kind's closing equals the balances its accounts hold now.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Case, CharField, Count, F, Max, Min, Subquery, Sum, Value, When
from django.db.models.functions import TruncDate
from django.utils import timezone

from wallet.currencies import money_format
from wallet.models import (
    IN_PLAY_ACCOUNT,
    PLAYER_KINDS,
    Account,
    AccountKind,
    Bet,
    BetResolution,
    Entry,
    Funding,
    TransactionKind,
)

# A reversal is written as an adjustment marked in its meta (rounds.services.voids): finance reads it apart.
REVERSAL = "reversal"
MOVEMENT_KINDS = [kind for kind in TransactionKind.values if kind != TransactionKind.REVERSAL] + [REVERSAL]
MOVEMENT_LABELS = {**dict(TransactionKind.choices), REVERSAL: "Reversal of a settled round"}
ACCOUNT_KINDS = list(AccountKind.values)
MAX_DAYS = 366


@dataclass(frozen=True)
class Mismatch:
    check: str
    message: str


@dataclass(frozen=True)
class KindDay:
    """One account kind's day in one currency."""

    kind: str
    opening: int
    movements: dict[str, int]  # movement kind -> net amount on this account kind
    closing: int

    @property
    def label(self) -> str:
        return AccountKind(self.kind).label


@dataclass(frozen=True)
class ReconciliationDay:
    day: date
    currency: str
    kinds: list[KindDay]
    entries: int
    transactions: int
    problems: list[Mismatch] = field(default_factory=list)

    @property
    def ties(self) -> bool:
        return not self.problems

    @property
    def movement_totals(self) -> dict[str, int]:
        """Movement kind -> its sum over the account kinds (0 for every kind on a day that ties)."""
        return {kind: sum(k.movements.get(kind, 0) for k in self.kinds) for kind in MOVEMENT_KINDS}

    @property
    def opening_total(self) -> int:
        return sum(k.opening for k in self.kinds)

    @property
    def closing_total(self) -> int:
        return sum(k.closing for k in self.kinds)

    @property
    def movement_kinds(self) -> list[str]:
        """The movement kinds that moved anything this day, in MOVEMENT_KINDS order."""
        return [kind for kind in MOVEMENT_KINDS if any(k.movements.get(kind) for k in self.kinds)]

    def kind(self, kind: str) -> KindDay:
        return next(k for k in self.kinds if k.kind == kind)


def _moment(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _movement_kind():
    return Case(When(transaction__kind=TransactionKind.ADJUSTMENT, transaction__meta__reversal=True,
                     then=Value(REVERSAL)), default=F("transaction__kind"), output_field=CharField())


def _day():
    return TruncDate("created_at", tzinfo=UTC)


def reconciliation_days(*, start: date, end: date, currency: str | None = None,
                        now: datetime | None = None) -> list[ReconciliationDay]:
    """Every day from start to end (both included, UTC) for each currency the ledger has by then, oldest first.
    ValueError for a period that runs backwards, is longer than MAX_DAYS or ends after today."""
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    if start > end:
        raise ValueError("The period starts after it ends.")
    if end > today:
        raise ValueError(f"The period ends after today ({today.isoformat()}).")
    if (end - start).days + 1 > MAX_DAYS:
        raise ValueError(f"A reconciliation covers at most {MAX_DAYS} days at once.")
    since, until = _moment(start), _moment(end + timedelta(days=1))
    entries = Entry.objects.all()
    accounts = Account.objects.all()
    if currency:
        entries, accounts = entries.filter(account__currency=currency), accounts.filter(currency=currency)
    in_range = entries.filter(created_at__gte=since, created_at__lt=until)

    opening: dict[tuple[str, str], int] = defaultdict(int)
    for kind, cur, total in (entries.filter(created_at__lt=since).values_list("account__kind", "account__currency")
                             .annotate(total=Sum("amount")).values_list("account__kind", "account__currency",
                                                                        "total")):
        opening[(cur, kind)] = total
    moved: dict[tuple[date, str, str], dict[str, int]] = defaultdict(dict)
    for day, kind, cur, movement, total in (
        in_range.annotate(day=_day(), movement=_movement_kind())
        .values_list("day", "account__kind", "account__currency", "movement")
        .annotate(total=Sum("amount")).values_list("day", "account__kind", "account__currency", "movement", "total")
    ):
        moved[(day, cur, kind)][movement] = total
    counts = {(day, cur): (n, t) for day, cur, n, t in (
        in_range.annotate(day=_day()).values_list("day", "account__currency")
        .annotate(n=Count("id"), t=Count("transaction_id", distinct=True))
        .values_list("day", "account__currency", "n", "t"))}
    unbalanced: dict[tuple[date, str], list[tuple[int, int]]] = defaultdict(list)
    for txn, cur, total, first in (
        in_range.values("transaction_id", "account__currency").annotate(total=Sum("amount"), first=Min("created_at"))
        .exclude(total=0).values_list("transaction_id", "account__currency", "total", "first").order_by("transaction_id")
    ):
        unbalanced[(first.astimezone(UTC).date(), cur)].append((txn, total))

    currencies = sorted(set(accounts.filter(created_at__lt=until).values_list("currency", flat=True))
                        | {cur for cur, _ in opening} | {cur for _, cur, _ in moved})
    running = _running_balances(entries=entries, since=since, until=until)
    in_play = _bets_in_play(currency=currency, start=start, end=end)
    held = ({(cur, kind): total for kind, cur, total in accounts.filter(player__isnull=False)
             .values_list("kind", "currency").annotate(total=Sum("balance")).values_list("kind", "currency", "total")}
            if end == today else {})

    days = []
    balance = dict(opening)
    day = start
    while day <= end:
        for cur in currencies:
            kinds = []
            for kind in ACCOUNT_KINDS:
                movements = moved.get((day, cur, kind), {})
                before = balance.get((cur, kind), 0)
                after = before + sum(movements.values())
                balance[(cur, kind)] = after
                kinds.append(KindDay(kind=kind, opening=before, movements=movements, closing=after))
            n, t = counts.get((day, cur), (0, 0))
            result = ReconciliationDay(day=day, currency=cur, kinds=kinds, entries=n, transactions=t)
            result.problems.extend(reconciliation_problems(
                result, unbalanced=unbalanced.get((day, cur), []),
                running={kind: running.get((day, cur, kind), 0) for kind in PLAYER_KINDS},
                in_play={kind: in_play.get((day, cur, kind), 0) for kind in IN_PLAY_ACCOUNT.values()},
                held={kind: held.get((cur, kind), 0) for kind in PLAYER_KINDS} if day == today else None))
            days.append(result)
        day += timedelta(days=1)
    return days


def reconciliation_problems(day: ReconciliationDay, *, unbalanced: list[tuple[int, int]], running: dict[str, int],
                            in_play: dict[str, int], held: dict[str, int] | None) -> list[Mismatch]:
    """What does not tie on one day: the detector, apart from the reads, so crafted figures can be checked."""
    cur = day.currency

    def amount(value: int) -> str:
        return money_format(value, cur)

    problems = []
    for kind, total in day.movement_totals.items():
        if total:
            problems.append(Mismatch("zero_sum", f"{MOVEMENT_LABELS[kind]} movements sum to {amount(total)} "
                                                 "over the account kinds, not 0"))
    for txn, total in unbalanced:
        problems.append(Mismatch("zero_sum", f"transaction {txn}'s entries sum to {amount(total)}, not 0"))
    total = day.closing_total
    if total:
        problems.append(Mismatch("ledger_total", f"the closing balances sum to {amount(total)}, not 0"))
    for kind, expected in running.items():
        closing = day.kind(kind).closing
        if closing != expected:
            problems.append(Mismatch("running_balance", f"{AccountKind(kind).label} closes at {amount(closing)} "
                                     f"by its entries but at {amount(expected)} by its accounts' running balances"))
    for kind, expected in in_play.items():
        closing = day.kind(kind).closing
        if closing != expected:
            problems.append(Mismatch("in_play", f"{AccountKind(kind).label} holds {amount(closing)} but the bets "
                                     f"not resolved by the day's end stake {amount(expected)}"))
    for kind, expected in (held or {}).items():
        closing = day.kind(kind).closing
        if closing != expected:
            problems.append(Mismatch("held_balance", f"{AccountKind(kind).label} closes at {amount(closing)} but "
                                     f"its accounts hold {amount(expected)} now"))
    return problems


def _running_balances(*, entries, since: datetime, until: datetime) -> dict[tuple[date, str, str], int]:
    """(day, currency, player kind) -> the sum over its accounts of each one's running balance at the day's end:
    the balance_after of its last entry (by id, the order running balances are kept in) up to then."""
    players = entries.filter(account__player__isnull=False)
    last: dict[int, tuple[str, str, int]] = {}
    for account, kind, cur, after in Entry.objects.filter(id__in=Subquery(
        players.filter(created_at__lt=since).values("account_id").annotate(last=Max("id")).values("last"))
    ).values_list("account_id", "account__kind", "account__currency", "balance_after"):
        last[account] = (kind, cur, after or 0)
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for kind, cur, after in last.values():
        totals[(cur, kind)] += after
    by_day: dict[date, list[tuple[int, str, str, int]]] = defaultdict(list)
    for account, kind, cur, after, day in Entry.objects.filter(id__in=Subquery(
        players.filter(created_at__gte=since, created_at__lt=until).annotate(day=_day())
        .values("account_id", "day").annotate(last=Max("id")).values("last"))
    ).annotate(day=_day()).values_list("account_id", "account__kind", "account__currency", "balance_after", "day"):
        by_day[day].append((account, kind, cur, after or 0))
    result: dict[tuple[date, str, str], int] = {}
    day = since.date()
    while day < until.date():
        for account, kind, cur, after in by_day.get(day, []):
            totals[(cur, kind)] += after - last.get(account, (kind, cur, 0))[2]
            last[account] = (kind, cur, after)
        result.update({(day, cur, kind): total for (cur, kind), total in totals.items()})
        day += timedelta(days=1)
    return result


def _bets_in_play(*, currency: str | None, start: date, end: date) -> dict[tuple[date, str, str], int]:
    """(day, currency, in-play kind) -> the stakes of bets placed and not resolved by the day's end."""
    since, until = _moment(start), _moment(end + timedelta(days=1))
    bets, resolutions = Bet.objects.all(), BetResolution.objects.all()
    if currency:
        bets, resolutions = bets.filter(account__currency=currency), resolutions.filter(bet__account__currency=currency)
    kind_of = {AccountKind.PLAYER_CASH: IN_PLAY_ACCOUNT[Funding.CASH],
               AccountKind.PLAYER_GOLDEN_CHIPS: IN_PLAY_ACCOUNT[Funding.GOLDEN_CHIPS]}
    held: dict[tuple[str, str], int] = defaultdict(int)
    for kind, cur, total in (bets.filter(created_at__lt=since).values_list("account__kind", "account__currency")
                             .annotate(total=Sum("amount")).values_list("account__kind", "account__currency", "total")):
        held[(cur, kind_of[kind])] += total
    for kind, cur, total in (resolutions.filter(created_at__lt=since)
                             .values_list("bet__account__kind", "bet__account__currency")
                             .annotate(total=Sum("bet__amount"))
                             .values_list("bet__account__kind", "bet__account__currency", "total")):
        held[(cur, kind_of[kind])] -= total
    change: dict[date, list[tuple[str, str, int]]] = defaultdict(list)
    for day, kind, cur, total in (bets.filter(created_at__gte=since, created_at__lt=until).annotate(day=_day())
                                  .values_list("day", "account__kind", "account__currency")
                                  .annotate(total=Sum("amount"))
                                  .values_list("day", "account__kind", "account__currency", "total")):
        change[day].append((cur, kind_of[kind], total))
    for day, kind, cur, total in (resolutions.filter(created_at__gte=since, created_at__lt=until)
                                  .annotate(day=_day()).values_list("day", "bet__account__kind",
                                                                    "bet__account__currency")
                                  .annotate(total=Sum("bet__amount"))
                                  .values_list("day", "bet__account__kind", "bet__account__currency", "total")):
        change[day].append((cur, kind_of[kind], -total))
    result: dict[tuple[date, str, str], int] = {}
    day = start
    while day <= end:
        for cur, kind, amount in change.get(day, []):
            held[(cur, kind)] += amount
        result.update({(day, cur, kind): total for (cur, kind), total in held.items()})
        day += timedelta(days=1)
    return result

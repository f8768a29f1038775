"""The ledger audit: recompute everything the running figures claim, and name each row that disagrees.

One audit, one command (`manage.py ledger_audit`), one result. The wallet's own checks live here; an app that
holds money in the wallet adds the checks only it can make (rounds: stakes stranded in a round that has ended
or stopped) with audit_check_register from its AppConfig.ready, so the wallet imports none of them.
"""

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, F, Q, Sum, Window
from django.db.models.functions import Coalesce
from django.utils import timezone

from wallet.compiled_query import BoundQuery, CompiledQuery, queries_run
from wallet.models import (
    IN_PLAY_ACCOUNT,
    Account,
    AccountKind,
    Bet,
    BetResolution,
    Entry,
    Funding,
    LedgerTransaction,
)

# A check that asks for its rows: yields the queries it needs, is sent their rows, returns its discrepancies.
AuditQueries = Generator[list[BoundQuery], list[list], list["Discrepancy"]]


@dataclass(frozen=True)
class Discrepancy:
    check: str
    message: str
    ids: dict = field(default_factory=dict)
    # When the problem began, where a check knows (money held since, a round stuck since).
    since: datetime | None = None

    def __str__(self) -> str:
        ids = ", ".join(f"{name}={value}" for name, value in self.ids.items())
        return f"[{self.check}] {self.message}" + (f" ({ids})" if ids else "")


_PLAYER_BALANCES = CompiledQuery(lambda: (
    Account.objects.filter(player__isnull=False)
    .annotate(total=Coalesce(Sum("entries__amount"), 0))
    .filter(~Q(total=F("balance")) | Q(balance__lt=0))
    .values_list("id", "player_id", "balance", "total")
))
# Every entry's balance_after must be the running sum of its account's entries up to it.
_RUNNING_BALANCES = CompiledQuery(lambda: (
    Entry.objects.filter(account__player__isnull=False)
    .annotate(running=Window(Sum("amount"), partition_by=[F("account_id")], order_by=F("id").asc()))
    .filter(~Q(running=F("balance_after")) | Q(balance_after__isnull=True))
    .values_list("id", "account_id", "balance_after", "running")
))
_HOUSE_RUNNING_BALANCES = CompiledQuery(lambda: (
    Entry.objects.filter(account__player__isnull=True, balance_after__isnull=False).values_list("id", "account_id")
))


def _player_balances() -> AuditQueries:
    accounts, running, house = yield [_PLAYER_BALANCES(), _RUNNING_BALANCES(), _HOUSE_RUNNING_BALANCES()]
    found = []
    for account_id, player_id, balance, total in accounts:
        found.append(Discrepancy(
            "player_balance", f"running balance {balance} but its entries sum to {total}",
            {"account": account_id, "player": player_id},
        ))
    for entry_id, account_id, balance_after, total in running:
        found.append(Discrepancy(
            "balance_after", f"entry says balance after {balance_after} but the entries sum to {total}",
            {"entry": entry_id, "account": account_id},
        ))
    for entry_id, account_id in house:
        found.append(Discrepancy("balance_after", "a house account entry carries a running balance",
                                 {"entry": entry_id, "account": account_id}))
    return found


_UNBALANCED = CompiledQuery(lambda: (
    Entry.objects.values("transaction_id", "account__currency")
    .annotate(total=Sum("amount"))
    .exclude(total=0)
    .order_by("transaction_id")
))
_ONE_LEGGED = CompiledQuery(lambda: (
    LedgerTransaction.objects.annotate(legs=Count("entries")).filter(legs__lt=2).values_list("id", "legs")
))


def _transactions() -> AuditQueries:
    unbalanced, one_legged = yield [_UNBALANCED(), _ONE_LEGGED()]
    found = []
    for row in unbalanced:
        found.append(Discrepancy(
            "zero_sum", f"entries in {row['account__currency']} sum to {row['total']}, not 0",
            {"transaction": row["transaction_id"]},
        ))
    for txn_id, count in one_legged:
        found.append(Discrepancy("zero_sum", f"a transaction with {count} entries moves nothing",
                                 {"transaction": txn_id}))
    return found


_RESOLVED_TWICE = CompiledQuery(lambda: (
    BetResolution.objects.values("bet_id").annotate(n=Count("*")).filter(n__gt=1).values_list("bet_id", "n")
))
_UNRESOLVED_STAKES = CompiledQuery(lambda: (
    Bet.objects.filter(resolution__isnull=True)
    .values_list("account__kind", "account__currency")
    .annotate(total=Sum("amount"))
    .values_list("account__kind", "account__currency", "total")
))
_IN_PLAY = CompiledQuery(lambda: (
    Entry.objects.filter(account__player__isnull=True, account__kind__in=list(IN_PLAY_ACCOUNT.values()))
    .values_list("account__kind", "account__currency").annotate(total=Sum("amount"))
    .values_list("account__kind", "account__currency", "total")
))


def _bets() -> AuditQueries:
    resolved_twice, unresolved_stakes, in_play_rows = yield [_RESOLVED_TWICE(), _UNRESOLVED_STAKES(), _IN_PLAY()]
    found = []
    for bet_id, count in resolved_twice:
        found.append(Discrepancy("resolved_once", f"resolved {count} times", {"bet": bet_id}))
    unresolved: dict[tuple[str, str], int] = {}
    for kind, currency, total in unresolved_stakes:
        funding = Funding.GOLDEN_CHIPS if kind == AccountKind.PLAYER_GOLDEN_CHIPS else Funding.CASH
        unresolved[(IN_PLAY_ACCOUNT[funding], currency)] = total
    in_play: dict[tuple[str, str], int] = {(kind, currency): total for kind, currency, total in in_play_rows}
    for kind, currency in sorted(unresolved.keys() | in_play.keys()):
        held, stakes = in_play.get((kind, currency), 0), unresolved.get((kind, currency), 0)
        if held != stakes:
            found.append(Discrepancy(
                "in_play", f"{AccountKind(kind).label} {currency} holds {held} but unresolved stakes total {stakes}",
                {"kind": kind, "currency": currency},
            ))
    return found


# The groups of checks: the ledger's own sums, and money held that should not be (stranded).
LEDGER = "ledger"
STRANDED_MONEY = "stranded_money"

AuditCheck = Callable[..., "list[Discrepancy] | AuditQueries"]
_checks: dict[str, tuple[str, AuditCheck]] = {}


def audit_check_register(*, name: str, group: str, check: AuditCheck) -> None:
    """Add a check to the audit: check(now=...) -> its discrepancies; or a generator (AuditQueries) that yields the
    queries it needs (wallet.compiled_query), is sent their rows, and returns its discrepancies, so that the audit
    sends every check's queries together. Registering a name again replaces it."""
    if group not in (LEDGER, STRANDED_MONEY):
        raise ValueError(f"an audit check belongs to {LEDGER!r} or {STRANDED_MONEY!r}, not {group!r}")
    _checks[name] = (group, check)


audit_check_register(name="player_balances", group=LEDGER, check=lambda *, now: _player_balances())
audit_check_register(name="transactions", group=LEDGER, check=lambda *, now: _transactions())
audit_check_register(name="bets", group=LEDGER, check=lambda *, now: _bets())


def audit_check_modules() -> set[str]:
    """The modules whose registered checks the audit runs (the test suite watches those apps' tables, to run the
    audit after a test only when it wrote to them)."""
    return {check.__module__ for _group, check in _checks.values()}


def ledger_audit_run(*, now: datetime | None = None, groups: Iterable[str] | None = None) -> list[Discrepancy]:
    """Every discrepancy the registered checks find (of these groups, default all); empty means sound.

    The checks that yield their queries have them run together (one round trip on PostgreSQL), step by step
    until each returns; the discrepancies come in the order the checks were registered, as each check found them."""
    now = now or timezone.now()
    wanted = set(groups) if groups is not None else {LEDGER, STRANDED_MONEY}
    found: list[list[Discrepancy]] = []
    waiting: list[tuple[list[Discrepancy], AuditQueries, list[list] | None]] = []
    for group, check in _checks.values():
        if group not in wanted:
            continue
        outcome = check(now=now)
        found.append([])
        if isinstance(outcome, Generator):
            waiting.append((found[-1], outcome, None))
        else:
            found[-1].extend(outcome)
    while waiting:
        asking = []
        for into, steps, rows in waiting:
            try:
                asking.append((into, steps, steps.send(rows)))  # type: ignore[arg-type]
            except StopIteration as done:
                into.extend(done.value)
        answers = iter(queries_run([query for _into, _steps, queries in asking for query in queries]))
        waiting = [(into, steps, [next(answers) for _query in queries]) for into, steps, queries in asking]
    return [discrepancy for discrepancies in found for discrepancy in discrepancies]

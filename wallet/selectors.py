"""Reads of the wallet: balances, account history by keyset, house balances, bets by reference."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, Sum
from django.utils.translation import gettext as _

from casino.formatting import money as money_text
from casino.untrusted import InputError, whole_number_parse
from wallet.models import Account, AccountKind, Bet, Entry, TransactionKind

HISTORY_PAGE_SIZE = 50
HISTORY_MAX_PAGE_SIZE = 200


def player_accounts(*, player) -> list[Account]:
    """The player's cash and Golden Chips accounts, cash first, by currency."""
    accounts = list(Account.objects.filter(player=player))
    return sorted(accounts, key=lambda a: (a.kind != AccountKind.PLAYER_CASH, a.currency))


def player_account_get(*, player, account_id) -> Account | None:
    """One of this player's accounts, or None: an id that belongs to someone else is simply not found."""
    try:
        account_id = whole_number_parse(account_id, field="account")
    except InputError:
        return None
    return Account.objects.filter(player=player, pk=account_id).first()


def player_balance(*, player, currency: str, kind: str = AccountKind.PLAYER_CASH) -> int:
    account = Account.objects.filter(player=player, currency=currency, kind=kind).only("balance").first()
    return account.balance if account else 0


def player_get(*, user_id) -> object | None:
    """A user who holds (or may hold) a wallet; staff pages look players up by id."""
    return get_user_model().objects.filter(pk=user_id).first()


def players_search(*, query: str, limit: int = 50) -> list:
    """Users who hold a wallet account, by username."""
    users = get_user_model().objects.filter(wallet_accounts__isnull=False).distinct().order_by("username")
    if query:
        users = users.filter(username__icontains=query)
    return list(users[:limit])


@dataclass(frozen=True)
class HistoryRow:
    entry_id: int
    created_at: datetime
    kind: str
    kind_label: str
    game: str
    game_number: str
    currency: str
    amount: int
    bet_amount: int | None
    payout: int | None
    balance_after: int | None
    transaction_id: int = 0
    explanation: str = ""  # why the money moved, in words (an adjustment's reason, a reversal's arithmetic)
    # The reference is a game number only for a round's money (ROUND_KINDS); a tip's reference is
    # the table's code, a deposit's the cashier's reference: those must not link to a game.
    round_number: str = ""
    table_code: str = ""


@dataclass(frozen=True)
class HistoryPage:
    rows: list[HistoryRow]
    # Pass as `before` to get the next (older) page; None when this is the oldest.
    next_before: int | None


# A round's money: its reference is the game number (a reversal's adjustment says so in its meta).
ROUND_KINDS = frozenset({TransactionKind.BET, TransactionKind.PAYOUT, TransactionKind.REFUND, TransactionKind.REVERSAL})


def _history_row(entry: Entry, currency: str) -> HistoryRow:
    txn = entry.transaction
    kind = txn.kind
    return HistoryRow(
        entry_id=entry.pk,
        created_at=entry.created_at,
        kind=kind,
        kind_label=txn.get_kind_display(),
        game=str(txn.meta.get("game", "")) if isinstance(txn.meta, dict) else "",
        game_number=txn.reference,
        currency=currency,
        amount=entry.amount,
        bet_amount=-entry.amount if kind == TransactionKind.BET and entry.amount < 0 else None,
        payout=entry.amount if kind in (TransactionKind.PAYOUT, TransactionKind.REFUND) and entry.amount > 0 else None,
        balance_after=entry.balance_after,
        transaction_id=txn.pk,
        explanation=_explanation(txn, entry, currency),
        round_number=txn.reference if kind in ROUND_KINDS or (isinstance(txn.meta, dict) and txn.meta.get("round"))
        else "",
        table_code=txn.reference if kind == TransactionKind.TIP else "",
    )


def _explanation(txn, entry: Entry, currency: str) -> str:
    """Why this line moved money, for the lines whose type alone does not say it; in the page's language (the
    player's own history may be Swedish; staff pages and the CSV are English)."""
    meta = txn.meta if isinstance(txn.meta, dict) else {}
    reason = {"reason": txn.reason}
    if kind_is_reversal(txn):
        staked, paid = meta.get("staked"), meta.get("paid")
        what = (_("staked %(staked)s and was paid %(paid)s; ") % {
            "staked": money_text(staked, currency), "paid": money_text(paid, currency)}
            if isinstance(staked, int) and isinstance(paid, int) else "")
        direction = _("the payout taken back") if entry.amount < 0 else _("the stake given back")
        return _("Reversal of round %(game)s: %(what)s%(direction)s, so the round ends as if voided. "
                 "Reason: %(reason)s") % {"game": txn.reference, "what": what, "direction": direction,
                                          "reason": txn.reason}
    if txn.kind == TransactionKind.ADJUSTMENT:
        return _("Correction by staff. Reason: %(reason)s") % reason if txn.reason else _("Correction by staff.")
    if txn.kind == TransactionKind.REFUND:
        return _("Stake refunded: %(reason)s") % reason if txn.reason else _("Stake refunded.")
    if txn.kind == TransactionKind.GOLDEN_CHIP_GRANT:
        return (_("Golden Chips granted. Reason: %(reason)s") % reason if txn.reason
                else _("Golden Chips granted."))
    return ""


def kind_is_reversal(txn) -> bool:
    return (txn.kind == TransactionKind.ADJUSTMENT and isinstance(txn.meta, dict)
            and bool(txn.meta.get("reversal")))


def _history_queryset(account: Account):
    return Entry.objects.filter(account=account).select_related("transaction").order_by("-id")


@dataclass(frozen=True)
class HistoryFilter:
    """What a reader narrowed a history to: UTC days from and to (both included) and transaction kinds."""

    since: date | None = None
    until: date | None = None
    kinds: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.since or self.until or self.kinds)

    def apply(self, entries):
        if self.since:
            entries = entries.filter(created_at__gte=datetime.combine(self.since, time.min, tzinfo=UTC))
        if self.until:
            entries = entries.filter(created_at__lt=datetime.combine(self.until + timedelta(days=1), time.min,
                                                                     tzinfo=UTC))
        if self.kinds:
            entries = entries.filter(transaction__kind__in=self.kinds)
        return entries


NO_FILTER = HistoryFilter()


def account_history_totals(*, account: Account, filter: HistoryFilter = NO_FILTER) -> dict[str, Any]:
    """The period's totals of what is shown: entries, money in, money out and the net, and the same per type."""
    entries = filter.apply(Entry.objects.filter(account=account))
    by_kind = list(entries.values("transaction__kind").annotate(count=Count("id"), total=Sum("amount"))
                   .order_by("transaction__kind"))
    labels = dict(TransactionKind.choices)
    sums = entries.aggregate(money_in=Sum("amount", filter=Q(amount__gt=0)),
                             money_out=Sum("amount", filter=Q(amount__lt=0)))  # one pass, not one per sign
    money_in, money_out = sums["money_in"] or 0, sums["money_out"] or 0
    return {"count": sum(row["count"] for row in by_kind), "in": money_in, "out": money_out,
            "net": money_in + money_out, "currency": account.currency,
            "kinds": [{"label": str(labels.get(row["transaction__kind"], row["transaction__kind"])),
                       "count": row["count"], "total": row["total"]} for row in by_kind]}


def account_history(*, account: Account, before: int | None = None, limit: int = HISTORY_PAGE_SIZE,
                    filter: HistoryFilter = NO_FILTER) -> HistoryPage:
    """Newest first, by keyset on the entry id (index wallet_entry_account_history), never by offset."""
    limit = max(1, min(int(limit), HISTORY_MAX_PAGE_SIZE))
    entries = filter.apply(_history_queryset(account))
    if before is not None:
        entries = entries.filter(id__lt=before)
    page = list(entries[: limit + 1])
    rows = [_history_row(entry, account.currency) for entry in page[:limit]]
    return HistoryPage(rows=rows, next_before=rows[-1].entry_id if len(page) > limit else None)


def account_history_iter(*, account: Account, chunk: int = 2000, filter: HistoryFilter = NO_FILTER,
                         oldest_first: bool = False) -> Iterator[HistoryRow]:
    """The whole history (or what the filter keeps), newest first (or oldest first, as a statement reads), one
    keyset page at a time, for streaming exports."""
    entries = filter.apply(_history_queryset(account))
    if oldest_first:
        entries = entries.order_by("id")
    after = None
    while True:
        page = list(entries.filter(**({"id__gt" if oldest_first else "id__lt": after} if after else {}))[:chunk])
        yield from (_history_row(entry, account.currency) for entry in page)
        if len(page) < chunk:
            return
        after = page[-1].pk


def account_balance_before(*, account: Account, day: date) -> int:
    """The account's balance at the start of a UTC day: the sum of its entries before it (a statement's
    opening balance)."""
    return (Entry.objects.filter(account=account, created_at__lt=datetime.combine(day, time.min, tzinfo=UTC))
            .aggregate(total=Sum("amount"))["total"] or 0)


def house_balances(*, currency: str | None = None) -> dict[tuple[str, str], int]:
    """(kind, currency) -> balance of each house account: the sum of its entries (they keep no running one)."""
    rows = Entry.objects.filter(account__player__isnull=True)
    if currency:
        rows = rows.filter(account__currency=currency)
    totals = rows.values("account__kind", "account__currency").annotate(total=Sum("amount"))
    return {(row["account__kind"], row["account__currency"]): row["total"] for row in totals}


def bets_by_reference(*, reference: str) -> list[Bet]:
    """The bets of one round (by game number), oldest first, with account and resolution (if any)."""
    return list(
        Bet.objects.filter(reference=reference).select_related("account", "resolution").order_by("id")
    )

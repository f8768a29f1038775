"""Reads of the wallet: balances, account history by keyset, house balances, bets by reference."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Sum

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


@dataclass(frozen=True)
class HistoryPage:
    rows: list[HistoryRow]
    # Pass as `before` to get the next (older) page; None when this is the oldest.
    next_before: int | None


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
    )


def _history_queryset(account: Account):
    return Entry.objects.filter(account=account).select_related("transaction").order_by("-id")


def account_history(*, account: Account, before: int | None = None, limit: int = HISTORY_PAGE_SIZE) -> HistoryPage:
    """Newest first, by keyset on the entry id (index wallet_entry_account_history), never by offset."""
    limit = max(1, min(int(limit), HISTORY_MAX_PAGE_SIZE))
    entries = _history_queryset(account)
    if before is not None:
        entries = entries.filter(id__lt=before)
    page = list(entries[: limit + 1])
    rows = [_history_row(entry, account.currency) for entry in page[:limit]]
    return HistoryPage(rows=rows, next_before=rows[-1].entry_id if len(page) > limit else None)


def account_history_iter(*, account: Account, chunk: int = 2000) -> Iterator[HistoryRow]:
    """The whole history, newest first, one keyset page at a time, for streaming exports."""
    before = None
    while True:
        page = list(_history_queryset(account).filter(**({"id__lt": before} if before else {}))[:chunk])
        yield from (_history_row(entry, account.currency) for entry in page)
        if len(page) < chunk:
            return
        before = page[-1].pk


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

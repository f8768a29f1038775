"""Row locks on player accounts, always taken in primary-key order, so two movements can never deadlock.

House accounts are never locked: they keep no running balance, so ten thousand bets on one round do not
queue on one row.
"""

from typing import NamedTuple

from wallet.models import Account
from wallet.sql import LedgerStatements


class AccountRow(NamedTuple):
    id: int
    player_id: int | None
    kind: str
    currency: str
    balance: int


def player_accounts_lock(db: LedgerStatements, *, player_ids=(), kinds=(), currencies=(),
                         account_ids=()) -> dict[int, AccountRow]:
    """Lock player accounts by id, and/or every account of the given players in the given kinds and currencies.

    Locking the cross product of players x kinds x currencies may take a few rows the caller does not move;
    that costs nothing in safety (the order is still by primary key) and keeps it one query for any batch.
    """
    rows = db.player_accounts_lock(account_ids=account_ids, player_ids=player_ids, kinds=kinds, currencies=currencies)
    return {row[0]: AccountRow._make(row) for row in rows}


def house_accounts(db: LedgerStatements, pairs, rows: list[tuple]) -> dict[tuple[str, str], AccountRow]:
    """The house accounts for (kind, currency) pairs, from `rows` already read, opening missing ones. No lock."""
    pairs = set(pairs)
    found = {(row[2], row[3]): AccountRow._make(row) for row in rows}
    missing = pairs - found.keys()
    if missing:
        # A concurrent first use may create the same row: ON CONFLICT DO NOTHING waits for it, then reads it.
        Account.objects.bulk_create(
            [Account(kind=kind, currency=currency) for kind, currency in sorted(missing)], ignore_conflicts=True
        )
        rows = db.house_accounts_select(kinds={kind for kind, _ in pairs}, currencies={c for _, c in pairs})
        found = {(row[2], row[3]): AccountRow._make(row) for row in rows}
    return {pair: found[pair] for pair in pairs}

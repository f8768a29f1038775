"""The ledger core every wallet service is built on: input checks, the idempotent transaction, the
transaction row with the house accounts it moves, the player account locks, and the balanced posting.

Nothing outside wallet.services calls these; the order they run in is in wallet/services/__init__.py.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Sequence

from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.checks import amount_check, idempotency_key_check
from casino.idempotency import IdempotencyConflict
from casino.untrusted import MAX_AMOUNT_MINOR
from wallet import locks
from wallet.currencies import currency_get, money_format
from wallet.errors import (
    CurrencyMismatch,
    InsufficientFunds,
    InvalidAmount,
    InvalidIdempotencyKey,
    InvalidRequest,
    LimitExceeded,
    UnknownAccount,
)
from wallet.keys import CLIENT_PREFIX, ClientKey, is_client_key
from wallet.locks import AccountRow
from wallet.models import Account, AccountKind, LedgerTransaction
from wallet.sql import LedgerStatements

# Far below PostgreSQL's bigint, so that even a batch of a million maximal amounts cannot overflow a sum.
MAX_AMOUNT = MAX_AMOUNT_MINOR
KEY_MAX_LENGTH = 200
REFERENCE_MAX_LENGTH = 64
BET_KIND_MAX_LENGTH = 32


# ---------------------------------------------------------------------------------------------- input checks


def _amount_check(amount, *, what: str = "amount", zero_ok: bool = False) -> int:
    return amount_check(amount, what=what, maximum=MAX_AMOUNT, error=InvalidAmount, zero_ok=zero_ok)


def _key_check(key) -> str:
    if isinstance(key, ClientKey):
        return str(key)  # checked by client_key, and longer than a plain key may be
    idempotency_key_check(key, max_length=KEY_MAX_LENGTH, error=InvalidIdempotencyKey)
    if is_client_key(key):
        # Only client_key makes these, so a key the system derives can never meet a client's.
        raise InvalidIdempotencyKey(f"A key beginning with {CLIENT_PREFIX!r} is made by wallet.keys.client_key.")
    return key


def _text_check(value, *, what: str, max_length: int, required: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidRequest(f"The {what} must be text, not {value!r}.")
    if required and not value.strip():
        raise InvalidRequest(f"A {what} is required.")
    if len(value) > max_length:
        raise InvalidRequest(f"The {what} has at most {max_length} characters.")
    return value


def _meta_check(meta) -> dict:
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise InvalidRequest("meta must be a JSON object.")
    try:
        json.dumps(meta)
    except (TypeError, ValueError):
        raise InvalidRequest("meta must hold only JSON values (text, numbers, lists, objects).") from None
    return meta


def _user_id(user, *, what: str) -> int:
    pk = getattr(user, "pk", None)
    if not isinstance(pk, int):
        raise UnknownAccount(f"The {what} must be a saved user, not {user!r}.")
    return pk


def _limits_check(amount: int, currency: str, *, what: str) -> None:
    limits = currency_get(currency)
    if not limits.cashier_min <= amount <= limits.cashier_max:
        raise LimitExceeded(
            f"A {what} must be between {money_format(limits.cashier_min, currency)} and "
            f"{money_format(limits.cashier_max, currency)}; {money_format(amount, currency)} is not."
        )


def _fingerprint_text(service: str, payload) -> str:
    return json.dumps([service, payload], sort_keys=True, separators=(",", ":"))


def _fingerprint(service: str, payload) -> str:
    return hashlib.sha256(_fingerprint_text(service, payload).encode()).hexdigest()


# ------------------------------------------------------------------------------------------- idempotent core


def _idempotent(
    *, key: str, fingerprint: str, durable: bool, write: Callable, replay: Callable,
    explain_integrity_error: Callable[[], None] | None = None,
):
    """Run write() in one transaction; a key already used turns into replay(first transaction) or a conflict."""
    try:
        with transaction.atomic(durable=durable):
            return write()
    except IntegrityError:
        # The transaction (or its savepoint) is rolled back; find out whether the key was the reason.
        first = LedgerTransaction.objects.filter(idempotency_key=key).first()
        if first is None:
            if explain_integrity_error:
                explain_integrity_error()
            raise
    if first.fingerprint != fingerprint:
        # About the caller's own request only: a client key is theirs alone, and no id of any row is named.
        named = "This idempotency key" if is_client_key(key) else f"The idempotency key {key!r}"
        raise IdempotencyConflict(
            f"{named} was already used for a different {first.get_kind_display().lower()}; "
            "use a new key for a new request."
        )
    first.replayed = True
    return replay(first)


def _transaction_create(db: LedgerStatements, *, house: set[tuple[str, str]], kind, key, fingerprint, now,
                        reference="", actor=None, reason="", meta=None):
    """The transaction row (first, see the module doc) and the house accounts (kind, currency) it moves."""
    meta = meta or {}
    actor_id = getattr(actor, "pk", None)
    pk, house_rows = db.transaction_insert(
        kind=kind, idempotency_key=key, fingerprint=fingerprint, created_at=now, reference=reference,
        actor_id=actor_id, reason=reason, meta=meta, house_kinds={k for k, _ in house},
        house_currencies={c for _, c in house},
    )
    txn = _loaded(LedgerTransaction, id=pk, kind=kind, idempotency_key=key, fingerprint=fingerprint, created_at=now,
                  reference=reference, actor_id=actor_id, reason=reason, meta=meta)
    return txn, locks.house_accounts(db, house, house_rows)


def _loaded(model, **values):
    """An instance of a row this module just wrote or read, as if loaded by the ORM (fields not given are
    deferred, read on first access); Model.from_db takes the fast positional path of Model.__init__."""
    names = [field.attname for field in model._meta.concrete_fields if field.attname in values]
    return model.from_db("default", names, [values[name] for name in names])


def _describe(row: AccountRow) -> str:
    return f"player {row.player_id}'s {AccountKind(row.kind).label} {row.currency} account"


def _refuse_short(row: AccountRow, amount: int, *, more: int = 0) -> None:
    """InsufficientFunds if `amount` (negative: taken) would take the account below zero."""
    if row.balance + amount >= 0:
        return
    others = f" (and {more} more accounts)" if more else ""
    raise InsufficientFunds(
        f"Insufficient funds: {_describe(row)} holds {money_format(row.balance, row.currency)} "
        f"but {money_format(-amount, row.currency)} is needed{others}."
    )


def _post(db: LedgerStatements, *, txn: LedgerTransaction, legs: dict[int, int], accounts: dict[int, AccountRow],
          now, bets: Sequence[tuple] = (), resolutions: Sequence[tuple] = ()) -> tuple[dict[int, int], list[int]]:
    """Write txn: its legs (one entry per account) once they balance and every player can pay, the new
    running balances, and its bets or resolutions. The player accounts must be locked.

    Returns the new balance of every player account moved, and the new bet ids.
    """
    legs = {account_id: amount for account_id, amount in legs.items() if amount}
    totals: dict[str, int] = defaultdict(int)
    for account_id, amount in legs.items():
        totals[accounts[account_id].currency] += amount
    if any(totals.values()):
        # A bug in this module, not bad input; PostgreSQL would refuse the commit anyway.
        raise RuntimeError(f"ledger transaction legs do not balance: {dict(totals)}")

    player_deltas = {account_id: amount for account_id, amount in legs.items() if accounts[account_id].player_id}
    short = [
        (accounts[account_id], amount) for account_id, amount in player_deltas.items()
        if accounts[account_id].balance + amount < 0
    ]
    if short:
        _refuse_short(*short[0], more=len(short) - 1)

    balances, bet_ids = db.ledger_write(transaction_id=txn.pk, created_at=now, deltas=player_deltas,
                                        entries=sorted(legs.items()), bets=bets, resolutions=resolutions)
    expected = {account_id: accounts[account_id].balance + delta for account_id, delta in player_deltas.items()}
    if balances != expected:
        raise RuntimeError("player balances moved under a lock that should have held them")
    return balances, bet_ids


def _account_instance(row: AccountRow, balance: int | None) -> Account:
    return _loaded(Account, id=row.id, player_id=row.player_id, kind=row.kind, currency=row.currency,
                   balance=row.balance if balance is None else balance)


def _player_accounts_lock(db: LedgerStatements, keys: set[tuple[int, str, str]], *, create: bool) -> dict[tuple[int, str, str], AccountRow]:
    """Lock the player accounts (player_id, kind, currency); create missing ones first if `create`."""

    def lock():
        rows = locks.player_accounts_lock(
            db, player_ids={k[0] for k in keys}, kinds={k[1] for k in keys}, currencies={k[2] for k in keys}
        )
        return {(row.player_id, row.kind, row.currency): row for row in rows.values()}

    found = lock()
    missing = keys - found.keys()
    if missing and create:
        # Lazily opened on first deposit or grant; a concurrent twin makes ON CONFLICT wait and skip.
        db.player_accounts_insert(keys=sorted(missing), created_at=timezone.now())
        found = lock()
        missing = keys - found.keys()
    if missing:
        player_id, kind, currency = sorted(missing)[0]
        held = sorted(Account.objects.filter(player_id=player_id, kind=kind).values_list("currency", flat=True))
        if held:
            raise CurrencyMismatch(
                f"Player {player_id}'s {AccountKind(kind).label} account is in {', '.join(held)}, not {currency}."
            )
        raise UnknownAccount(
            f"Player {player_id} has no {AccountKind(kind).label} {currency} account"
            + (f" (and {len(missing) - 1} more are missing)." if len(missing) > 1 else ".")
        )
    return found

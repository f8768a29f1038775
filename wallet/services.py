"""Every movement of money. Nothing else writes the ledger.

Each service is one database transaction (`durable=True` unless a caller such as `rounds` must put a round's
state change and its money into one transaction) and takes an idempotency key: repeating a call with the
same key and content returns the first result and moves nothing; the same key with other content is refused.

The order inside every service is the same, and it matters:
1. check the input (no database access), so bad input writes nothing;
2. insert the transaction row first: its unique idempotency key makes a concurrent twin wait here, before
   either holds an account lock, and turns a repeat into a replay;
3. read the house accounts (never locked; on PostgreSQL in the same statement as 2) and lock the player
   accounts in primary-key order (wallet.locks);
4. check that the legs balance and every player can pay, then write the running balances, the entries and
   the bets or resolutions (one statement on PostgreSQL, wallet.sql), whatever the number of bets.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.staffaudit import Origin, for_user, staff_action_record
from casino.checks import amount_check, idempotency_key_check
from casino.idempotency import IdempotencyConflict
from casino.untrusted import MAX_AMOUNT_MINOR
from wallet import locks
from wallet.currencies import currency_get, money_format
from wallet.errors import (
    BetAlreadyResolved,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidAmount,
    InvalidIdempotencyKey,
    InvalidRequest,
    InvalidResolution,
    LimitExceeded,
    UnknownAccount,
    UnknownBet,
)
from wallet.keys import CLIENT_PREFIX, ClientKey, is_client_key
from wallet.locks import AccountRow
from wallet.models import (
    FUNDING_ACCOUNT,
    IN_PLAY_ACCOUNT,
    PLAYER_KINDS,
    Account,
    AccountKind,
    Bet,
    BetResolution,
    Funding,
    LedgerTransaction,
    Outcome,
    TransactionKind,
)
from wallet.sql import LedgerStatements, ids_subquery

# Far below PostgreSQL's bigint, so that even a batch of a million maximal amounts cannot overflow a sum.
MAX_AMOUNT = MAX_AMOUNT_MINOR
KEY_MAX_LENGTH = 200
REFERENCE_MAX_LENGTH = 64
BET_KIND_MAX_LENGTH = 32


@dataclass(frozen=True)
class BetHoldSpec:
    amount: int
    currency: str
    funding: str = Funding.CASH
    kind: str = "main"
    reference: str = ""
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class BetResolutionSpec:
    """cash_return: all cash paid back for the bet (0 lost, == stake push, > stake won, between: part back).
    chips_return: for a Golden Chip bet only, 0 (chips spent) or the stake (push: chips back)."""

    bet_id: int
    cash_return: int
    chips_return: int = 0


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


def _fingerprint(service: str, payload) -> str:
    text = json.dumps([service, payload], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


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
        row, amount = short[0]
        more = f" (and {len(short) - 1} more accounts)" if len(short) > 1 else ""
        raise InsufficientFunds(
            f"Insufficient funds: {_describe(row)} holds {money_format(row.balance, row.currency)} "
            f"but {money_format(-amount, row.currency)} is needed{more}."
        )

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
        Account.objects.bulk_create(
            [Account(player_id=p, kind=k, currency=c) for p, k, c in sorted(missing)], ignore_conflicts=True
        )
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


# ------------------------------------------------------------------------------------------- simple transfers


def account_for_player(user, currency: str, kind: str = AccountKind.PLAYER_CASH) -> Account:
    """The player's account of this kind and currency, opened empty if it does not exist yet."""
    currency_get(currency)
    if kind not in PLAYER_KINDS:
        raise InvalidRequest(f"{kind!r} is not a player account kind ({', '.join(PLAYER_KINDS)}).")
    account, _ = Account.objects.get_or_create(
        player_id=_user_id(user, what="player"), kind=kind, currency=currency
    )
    return account


def _transfer(
    *, service: str, txn_kind: str, player, currency: str, amount: int, house_kind: str, key: str,
    player_kind: str = AccountKind.PLAYER_CASH, actor=None, reference: str = "", reason: str = "",
    meta: dict | None = None, durable: bool = True,
) -> LedgerTransaction:
    """Move `amount` (signed: > 0 credits the player) between one player account and one house account."""
    player_id = _user_id(player, what="player")
    meta = _meta_check(meta)
    fingerprint = _fingerprint(service, {
        "player": player_id, "currency": currency, "amount": amount, "player_kind": player_kind,
        "reference": reference, "reason": reason, "meta": meta, "actor": getattr(actor, "pk", None),
    })

    def write():
        now = timezone.now()
        with LedgerStatements() as db:
            txn, house = _transaction_create(db, house={(house_kind, currency)}, kind=txn_kind, key=key,
                                             fingerprint=fingerprint, now=now, reference=reference, actor=actor,
                                             reason=reason, meta=meta)
            house = house[(house_kind, currency)]
            player_row = _player_accounts_lock(db, {(player_id, player_kind, currency)}, create=amount > 0)[
                (player_id, player_kind, currency)
            ]
            _post(db, txn=txn, legs={player_row.id: amount, house.id: -amount},
                  accounts={player_row.id: player_row, house.id: house}, now=now)
        return txn

    return _idempotent(key=key, fingerprint=fingerprint, durable=durable, write=write, replay=lambda txn: txn)


def deposit(*, player, currency: str, amount: int, idempotency_key: str, actor=None, reference: str = "",
            meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """Cash in through the cashier: house cashier -> player cash, within the per-transaction limits."""
    currency_get(currency)
    _amount_check(amount)
    _limits_check(amount, currency, what="deposit")
    return _transfer(
        service="deposit", txn_kind=TransactionKind.DEPOSIT, player=player, currency=currency, amount=amount,
        house_kind=AccountKind.HOUSE_CASHIER, key=_key_check(idempotency_key), actor=actor,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH), meta=meta,
        durable=durable,
    )


def withdraw(*, player, currency: str, amount: int, idempotency_key: str, actor=None, reference: str = "",
             meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """Cash out through the cashier: player cash -> house cashier, within the per-transaction limits."""
    currency_get(currency)
    _amount_check(amount)
    _limits_check(amount, currency, what="withdrawal")
    return _transfer(
        service="withdraw", txn_kind=TransactionKind.WITHDRAWAL, player=player, currency=currency,
        amount=-amount, house_kind=AccountKind.HOUSE_CASHIER, key=_key_check(idempotency_key), actor=actor,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH), meta=meta,
        durable=durable,
    )


def tip(*, player, currency: str, amount: int, table_ref: str, idempotency_key: str, actor=None,
        meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """A player's tip to the dealer at a table: player cash -> house tips."""
    currency_get(currency)
    _amount_check(amount)
    return _transfer(
        service="tip", txn_kind=TransactionKind.TIP, player=player, currency=currency, amount=-amount,
        house_kind=AccountKind.HOUSE_TIPS, key=_key_check(idempotency_key), actor=actor,
        reference=_text_check(table_ref, what="table reference", max_length=REFERENCE_MAX_LENGTH, required=True),
        meta=meta, durable=durable,
    )


def golden_chips_grant(*, player, currency: str, amount: int, staff, reason: str, idempotency_key: str,
                       meta: dict | None = None, durable: bool = True, origin: Origin | None = None,
                       ) -> LedgerTransaction:
    """Promotional Golden Chips granted by staff: house promotions -> player's Golden Chips. The grant and its
    staff-activity row commit together; a replayed key returns the first grant and records nothing more."""
    currency_get(currency)
    _amount_check(amount)
    _user_id(staff, what="staff user")
    reason = _text_check(reason, what="reason", max_length=2000, required=True)
    with transaction.atomic(durable=durable):
        txn = _transfer(
            service="golden_chips_grant", txn_kind=TransactionKind.GOLDEN_CHIP_GRANT, player=player,
            currency=currency, amount=amount, house_kind=AccountKind.HOUSE_PROMOTIONS,
            player_kind=AccountKind.PLAYER_GOLDEN_CHIPS, key=_key_check(idempotency_key), actor=staff,
            reason=reason, meta=meta, durable=False,
        )
        if not getattr(txn, "replayed", False):
            staff_action_record(actor=staff, action=StaffActionKind.GOLDEN_CHIPS_GRANTED, target=for_user(player),
                                origin=origin, reason=reason,
                                details={"amount": amount, "currency": currency, "transaction": txn.pk})
    return txn


def adjust(*, player, currency: str, amount: int, staff, reason: str, idempotency_key: str,
           account_kind: str = AccountKind.PLAYER_CASH, reference: str = "", meta: dict | None = None,
           durable: bool = True) -> LedgerTransaction:
    """A staff correction, signed (> 0 credits the player) against the bankroll, or promotions for chips."""
    currency_get(currency)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidAmount(f"An adjustment is a non-zero whole number of minor units, not {amount!r}.")
    _amount_check(abs(amount))
    if account_kind not in PLAYER_KINDS:
        raise InvalidRequest(f"{account_kind!r} is not a player account kind ({', '.join(PLAYER_KINDS)}).")
    if _user_id(staff, what="staff user") == _user_id(player, what="player"):
        raise InvalidRequest("Staff may not adjust their own wallet.")
    house_kind = (AccountKind.HOUSE_PROMOTIONS if account_kind == AccountKind.PLAYER_GOLDEN_CHIPS
                  else AccountKind.HOUSE_BANKROLL)
    return _transfer(
        service="adjust", txn_kind=TransactionKind.ADJUSTMENT, player=player, currency=currency, amount=amount,
        house_kind=house_kind, player_kind=account_kind, key=_key_check(idempotency_key), actor=staff,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH),
        reason=_text_check(reason, what="reason", max_length=2000, required=True), meta=meta, durable=durable,
    )


# ------------------------------------------------------------------------------------------------------ bets


def _hold_spec_check(spec) -> BetHoldSpec:
    if not isinstance(spec, BetHoldSpec):
        raise InvalidRequest(f"A bet hold must be a BetHoldSpec, not {spec!r}.")
    currency_get(spec.currency)
    _amount_check(spec.amount, what="stake")
    if spec.funding not in Funding.values:
        raise InvalidRequest(f"A bet is funded by {' or '.join(Funding.values)}, not {spec.funding!r}.")
    _text_check(spec.kind, what="bet kind", max_length=BET_KIND_MAX_LENGTH, required=True)
    _text_check(spec.reference, what="bet reference", max_length=REFERENCE_MAX_LENGTH)
    _meta_check(spec.meta)
    return spec


def bet_hold(*, player, holds: list[BetHoldSpec], idempotency_key: str, actor=None, reference: str | None = None,
             meta: dict | None = None, durable: bool = True) -> list[Bet]:
    """Hold one player's bets (all of them, or none) in one transaction: stakes move to the house's in-play
    account. Insufficient funds for the total refuses the whole call."""
    return bet_hold_many(holds_by_player=[(player, holds)], idempotency_key=idempotency_key, actor=actor,
                         reference=reference, meta=meta, durable=durable)


def bet_hold_many(*, holds_by_player: Iterable[tuple], idempotency_key: str, actor=None,
                  reference: str | None = None, meta: dict | None = None, durable: bool = True) -> list[Bet]:
    """Hold the bets of many players in one transaction; any player short of funds refuses the whole call.

    Returns the bets in the order given. `reference` (the transaction's) defaults to the bets' common one.
    """
    key = _key_check(idempotency_key)
    meta = _meta_check(meta)
    holds: list[tuple[int, BetHoldSpec]] = []
    for player, specs in holds_by_player:
        player_id = _user_id(player, what="player")
        holds.extend((player_id, _hold_spec_check(spec)) for spec in specs)
    if not holds:
        raise InvalidRequest("There is no bet to hold.")
    if reference is None:
        references = {spec.reference for _, spec in holds}
        reference = references.pop() if len(references) == 1 else ""
    _text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH)
    fingerprint = _fingerprint("bet_hold", {
        "holds": [[p, s.amount, s.currency, s.funding, s.kind, s.reference, s.meta] for p, s in holds],
        "reference": reference, "meta": meta, "actor": getattr(actor, "pk", None),
    })

    def write():
        now = timezone.now()
        with LedgerStatements() as db:
            txn, house = _transaction_create(
                db, house={(IN_PLAY_ACCOUNT[s.funding], s.currency) for _, s in holds}, kind=TransactionKind.BET,
                key=key, fingerprint=fingerprint, now=now, reference=reference, actor=actor, meta=meta,
            )
            players = _player_accounts_lock(
                db, {(p, FUNDING_ACCOUNT[s.funding], s.currency) for p, s in holds}, create=False
            )
            accounts = {row.id: row for row in (*house.values(), *players.values())}
            legs: dict[int, int] = defaultdict(int)
            rows = []
            for player_id, spec in holds:
                source = players[(player_id, FUNDING_ACCOUNT[spec.funding], spec.currency)]
                legs[source.id] -= spec.amount
                legs[house[(IN_PLAY_ACCOUNT[spec.funding], spec.currency)].id] += spec.amount
                rows.append((source.id, spec.amount, spec.kind, spec.reference, spec.meta))
            balances, ids = _post(db, txn=txn, legs=legs, accounts=accounts, now=now, bets=rows)
        instances = {row.id: _account_instance(row, balances.get(row.id)) for row in players.values()}
        bets = []
        for bet_id, (account_id, amount, bet_kind, bet_reference, bet_meta) in zip(ids, rows, strict=True):
            bet = _loaded(Bet, id=bet_id, account_id=account_id, hold_transaction_id=txn.pk, amount=amount,
                          kind=bet_kind, reference=bet_reference, meta=bet_meta, created_at=now)
            bet.account, bet.hold_transaction = instances[account_id], txn
            bets.append(bet)
        return bets

    def replay(txn):
        return list(Bet.objects.filter(hold_transaction=txn).select_related("account").order_by("id"))

    return _idempotent(key=key, fingerprint=fingerprint, durable=durable, write=write, replay=replay)


class _BetRow(NamedTuple):
    id: int
    amount: int
    account_id: int
    player_id: int
    account_kind: str
    currency: str
    resolution_id: int | None


def _bets_load(bet_ids: list[int]) -> dict[int, _BetRow]:
    """The bets with their account and whether a resolution exists, in one query; unknown or settled refused."""
    rows = Bet.objects.filter(id__in=ids_subquery(bet_ids)).values_list(
        "id", "amount", "account_id", "account__player_id", "account__kind", "account__currency",
        "resolution__bet_id",
    )
    bets = {row[0]: _BetRow._make(row) for row in rows}
    unknown = sorted(set(bet_ids) - bets.keys())
    if unknown:
        raise UnknownBet(f"No bet has the id{'s' if len(unknown) > 1 else ''} {_ids_text(unknown)}.")
    resolved = sorted(bet.id for bet in bets.values() if bet.resolution_id is not None)
    if resolved:
        raise BetAlreadyResolved(f"Already resolved or voided, so nothing was settled: bet {_ids_text(resolved)}.")
    return bets


def _ids_text(ids: list[int], limit: int = 20) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _explain_resolution_race(bet_ids: list[int]) -> Callable[[], None]:
    def explain():
        # The unique bet key of BetResolution refused a bet that a concurrent call settled first.
        resolved = sorted(BetResolution.objects.filter(bet_id__in=ids_subquery(bet_ids)).values_list(
            "bet_id", flat=True))
        if resolved:
            raise BetAlreadyResolved(
                f"Already resolved or voided, so nothing was settled: bet {_ids_text(resolved)}."
            )

    return explain


def _settle(*, service: str, txn_kind: str, returns: dict[int, tuple[int, int]], key: str, reference: str,
            reason: str, actor, meta: dict, durable: bool, voiding: bool) -> LedgerTransaction:
    """Resolve (or void) bets: bet_id -> (cash_return, chips_return), validated against each bet's stake."""
    bet_ids = sorted(returns)
    fingerprint = _fingerprint(service, {
        "returns": [[bet_id, *returns[bet_id]] for bet_id in bet_ids] if not voiding else bet_ids,
        "reference": reference, "reason": reason, "meta": meta, "actor": getattr(actor, "pk", None),
    })

    def write_with(db, now):
        # The transaction row comes first, so that a replay is recognised before the bets look settled.
        txn, _ = _transaction_create(db, house=set(), kind=txn_kind, key=key, fingerprint=fingerprint, now=now,
                                     reference=reference, actor=actor, reason=reason, meta=meta)
        bets = _bets_load(bet_ids)
        pairs = {(kind, bet.currency) for bet in bets.values() for kind in (
            AccountKind.HOUSE_BANKROLL, AccountKind.HOUSE_BETS_IN_PLAY, AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY,
            AccountKind.HOUSE_PROMOTIONS,
        )}
        house = locks.house_accounts(db, pairs, db.house_accounts_select(
            kinds={kind for kind, _ in pairs}, currencies={currency for _, currency in pairs}))
        chip_winners = {
            (bet.player_id, AccountKind.PLAYER_CASH, bet.currency) for bet in bets.values()
            if bet.account_kind == AccountKind.PLAYER_GOLDEN_CHIPS and returns[bet.id][0]
        }
        players = _player_accounts_lock(
            db, {(bet.player_id, bet.account_kind, bet.currency) for bet in bets.values()} | chip_winners, create=True
        )
        accounts = {row.id: row for row in (*house.values(), *players.values())}
        legs: dict[int, int] = defaultdict(int)
        resolutions = []  # (bet_id, outcome, cash_return, chips_return)
        for bet_id in bet_ids:
            bet = bets[bet_id]
            cash, chips = returns[bet_id] if not voiding else (
                (bet.amount, 0) if bet.account_kind == AccountKind.PLAYER_CASH else (0, bet.amount)
            )
            bankroll = house[(AccountKind.HOUSE_BANKROLL, bet.currency)].id
            if bet.account_kind == AccountKind.PLAYER_CASH:
                if chips:
                    raise InvalidResolution(f"Bet {bet_id} was staked in cash: it has no chips to return.")
                legs[house[(AccountKind.HOUSE_BETS_IN_PLAY, bet.currency)].id] -= bet.amount
                legs[bet.account_id] += cash
                legs[bankroll] += bet.amount - cash
                outcome = (Outcome.LOST if cash == 0 else Outcome.PARTIAL if cash < bet.amount
                           else Outcome.PUSHED if cash == bet.amount else Outcome.WON)
            else:
                if chips not in (0, bet.amount):
                    raise InvalidResolution(
                        f"Bet {bet_id} was staked with {bet.amount} in Golden Chips: its chips come back whole "
                        f"(push) or not at all, not {chips}."
                    )
                legs[house[(AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY, bet.currency)].id] -= bet.amount
                if chips:
                    legs[bet.account_id] += bet.amount
                else:
                    legs[house[(AccountKind.HOUSE_PROMOTIONS, bet.currency)].id] += bet.amount
                if cash:
                    legs[players[(bet.player_id, AccountKind.PLAYER_CASH, bet.currency)].id] += cash
                    legs[bankroll] -= cash
                outcome = Outcome.WON if cash else Outcome.PUSHED if chips else Outcome.LOST
            resolutions.append((bet_id, Outcome.VOIDED if voiding else outcome, cash, chips))
        _post(db, txn=txn, legs=legs, accounts=accounts, now=now, resolutions=resolutions)
        return txn

    def write():
        now = timezone.now()
        with LedgerStatements() as db:
            return write_with(db, now)

    return _idempotent(key=key, fingerprint=fingerprint, durable=durable, write=write, replay=lambda txn: txn,
                       explain_integrity_error=_explain_resolution_race(bet_ids))


def bet_resolve(*, resolutions: Iterable[BetResolutionSpec], idempotency_key: str, reference: str = "",
                actor=None, meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """Settle many bets at once, each exactly once: a bet already resolved or voided refuses the whole call.

    A fixed number of statements whatever the count (tests/wallet asserts it). Returns the payout
    transaction; its `resolutions` say how each bet ended.
    """
    key = _key_check(idempotency_key)
    returns: dict[int, tuple[int, int]] = {}
    for spec in resolutions:
        if not isinstance(spec, BetResolutionSpec):
            raise InvalidResolution(f"A resolution must be a BetResolutionSpec, not {spec!r}.")
        if isinstance(spec.bet_id, bool) or not isinstance(spec.bet_id, int):
            raise InvalidResolution(f"A bet id is a whole number, not {spec.bet_id!r}.")
        if spec.bet_id in returns:
            raise InvalidResolution(f"Bet {spec.bet_id} appears twice in one settlement.")
        returns[spec.bet_id] = (
            _amount_check(spec.cash_return, what=f"cash return of bet {spec.bet_id}", zero_ok=True),
            _amount_check(spec.chips_return, what=f"chips return of bet {spec.bet_id}", zero_ok=True),
        )
    if not returns:
        raise InvalidResolution("There is no bet to resolve.")
    return _settle(
        service="bet_resolve", txn_kind=TransactionKind.PAYOUT, returns=returns, key=key,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH), reason="",
        actor=actor, meta=_meta_check(meta), durable=durable, voiding=False,
    )


def bet_void(*, bet_ids: Iterable[int], idempotency_key: str, reason: str, actor=None, reference: str = "",
             meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """Refund bets (cash to cash, chips to chips), each exactly once, like a resolution."""
    key = _key_check(idempotency_key)
    returns: dict[int, tuple[int, int]] = {}
    for bet_id in bet_ids:
        if isinstance(bet_id, bool) or not isinstance(bet_id, int):
            raise InvalidResolution(f"A bet id is a whole number, not {bet_id!r}.")
        if bet_id in returns:
            raise InvalidResolution(f"Bet {bet_id} appears twice in one void.")
        returns[bet_id] = (0, 0)
    if not returns:
        raise InvalidResolution("There is no bet to void.")
    return _settle(
        service="bet_void", txn_kind=TransactionKind.REFUND, returns=returns, key=key,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH),
        reason=_text_check(reason, what="reason", max_length=2000, required=True), actor=actor,
        meta=_meta_check(meta), durable=durable, voiding=True,
    )

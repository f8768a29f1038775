"""The cashier and the promotions: deposits, withdrawals, tips, Golden Chip grants and staff adjustments, each
a transfer between one player account and one house account."""

from collections.abc import Callable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.staffaudit import Origin, for_user, staff_action_record
from wallet.currencies import currency_get
from wallet.errors import InvalidAmount, InvalidRequest
from wallet.guards import deposit_checks_run, promotion_checks_run
from wallet.models import PLAYER_KINDS, Account, AccountKind, LedgerTransaction, TransactionKind
from wallet.services.ledger import (
    REFERENCE_MAX_LENGTH,
    _amount_check,
    _fingerprint,
    _idempotent,
    _key_check,
    _limits_check,
    _meta_check,
    _player_accounts_lock,
    _post,
    _text_check,
    _transaction_create,
    _user_id,
)
from wallet.sql import LedgerStatements


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
    meta: dict | None = None, durable: bool = True, under_lock: Callable[[datetime], None] | None = None,
) -> LedgerTransaction:
    """Move `amount` (signed: > 0 credits the player) between one player account and one house account.
    `under_lock(now)` runs once the player's account is locked, before anything is posted."""
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
            if under_lock is not None:
                under_lock(now)
            _post(db, txn=txn, legs={player_row.id: amount, house.id: -amount},
                  accounts={player_row.id: player_row, house.id: house}, now=now)
        return txn

    return _idempotent(key=key, fingerprint=fingerprint, durable=durable, write=write, replay=lambda txn: txn)


def deposit(*, player, currency: str, amount: int, idempotency_key: str, actor=None, reference: str = "",
            meta: dict | None = None, durable: bool = True) -> LedgerTransaction:
    """Cash in through the cashier: house cashier -> player cash, within the per-transaction limits and the
    checks of settings.WALLET_DEPOSIT_CHECKS (responsible gambling), which run under the account lock."""
    currency_get(currency)
    _amount_check(amount)
    _limits_check(amount, currency, what="deposit")
    return _transfer(
        service="deposit", txn_kind=TransactionKind.DEPOSIT, player=player, currency=currency, amount=amount,
        house_kind=AccountKind.HOUSE_CASHIER, key=_key_check(idempotency_key), actor=actor,
        reference=_text_check(reference, what="reference", max_length=REFERENCE_MAX_LENGTH), meta=meta,
        durable=durable,
        under_lock=lambda now: deposit_checks_run(player=player, currency=currency, amount=amount, now=now),
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
    staff-activity row commit together; a replayed key returns the first grant and records nothing more.
    The checks of settings.WALLET_PROMOTION_CHECKS (the player's jurisdiction's promotions rule) run under the
    player's Golden Chips account lock, after the key was claimed: a refusal raises and nothing moves."""
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
            under_lock=lambda now: promotion_checks_run(player=player, currency=currency, amount=amount, now=now),
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

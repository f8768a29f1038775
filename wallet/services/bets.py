"""The bets: holding stakes (one player's or many players' in one transaction), resolving them and voiding
them, each bet exactly once, in a fixed number of statements whatever the count."""

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from django.utils import timezone

from wallet import locks
from wallet.currencies import currency_get
from wallet.errors import BetAlreadyResolved, InvalidRequest, InvalidResolution, UnknownBet
from wallet.models import (
    FUNDING_ACCOUNT,
    IN_PLAY_ACCOUNT,
    Account,
    AccountKind,
    Bet,
    BetResolution,
    Funding,
    LedgerTransaction,
    Outcome,
    TransactionKind,
)
from wallet.resolution_sql import SETTLEMENT_HOUSE_KINDS, SetBasedResolution, set_based
from wallet.services.ledger import (
    BET_KIND_MAX_LENGTH,
    MAX_AMOUNT,
    REFERENCE_MAX_LENGTH,
    _account_instance,
    _amount_check,
    _fingerprint,
    _fingerprint_text,
    _idempotent,
    _key_check,
    _loaded,
    _meta_check,
    _player_accounts_lock,
    _post,
    _refuse_short,
    _text_check,
    _transaction_create,
    _user_id,
)
from wallet.sql import LedgerStatements, ids_subquery


@dataclass(frozen=True)
class BetHoldSpec:
    amount: int
    currency: str
    funding: str = Funding.CASH
    kind: str = "main"
    reference: str = ""
    meta: dict = field(default_factory=dict)


class BetResolutionSpec(NamedTuple):
    """cash_return: all cash paid back for the bet (0 lost, == stake push, > stake won, between: part back).
    chips_return: for a Golden Chip bet only, 0 (chips spent) or the stake (push: chips back).

    A named tuple rather than a frozen dataclass: a settlement builds 40,000 of them, at a fifth of the cost."""

    bet_id: int
    cash_return: int
    chips_return: int = 0


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


def _holds_checked(holds_by_player: Iterable[tuple], *, reference: str | None, meta, actor,
                   ) -> tuple[list[tuple[int, BetHoldSpec]], str, dict, str]:
    """The holds, reference and meta checked (nothing touches the database), and the fingerprint's text."""
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
    text = _fingerprint_text("bet_hold", {
        "holds": [[p, s.amount, s.currency, s.funding, s.kind, s.reference, s.meta] for p, s in holds],
        "reference": reference, "meta": meta, "actor": getattr(actor, "pk", None),
    })
    return holds, reference, meta, text


def bet_hold_fingerprint_text(*, player, holds: list[BetHoldSpec], reference: str, meta: dict) -> str:
    """The text whose SHA-256 is the fingerprint bet_hold gives these holds, the holds checked as it checks
    them: for the bet placement's database function (rounds.placement_sql), which writes this hold with the
    wallet's own statement and learns a value of the bets' meta (the spot) only under its locks."""
    return _holds_checked([(player, holds)], reference=reference, meta=meta, actor=None)[3]


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
    holds, reference, meta, text = _holds_checked(holds_by_player, reference=reference, meta=meta, actor=actor)
    fingerprint = hashlib.sha256(text.encode()).hexdigest()

    accounts_moved = {(p, FUNDING_ACCOUNT[s.funding], s.currency) for p, s in holds}

    def write():
        now = timezone.now()
        with LedgerStatements() as db:
            if db.postgres and len(accounts_moved) == 1:
                bets = _hold_one_statement(db, holds=holds, key=key, fingerprint=fingerprint, now=now,
                                           reference=reference, actor=actor, meta=meta)
                if bets is not None:
                    return bets
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


def _hold_one_statement(db: LedgerStatements, *, holds: list[tuple[int, BetHoldSpec]], key: str, fingerprint: str,
                        now, reference: str, actor, meta: dict) -> list[Bet] | None:
    """The busiest call of all, a player's bets from one account, in one statement on PostgreSQL
    (LedgerStatements.hold_one_account): one round trip between BEGIN and COMMIT instead of three. None if the
    house's in-play account is not open yet (nothing written: the general path opens it)."""
    player_id, first = holds[0]
    account_kind, house_kind = FUNDING_ACCOUNT[first.funding], IN_PLAY_ACCOUNT[first.funding]
    written = db.hold_one_account(
        idempotency_key=key, fingerprint=fingerprint, created_at=now, reference=reference,
        actor_id=getattr(actor, "pk", None), meta=meta, player_id=player_id, account_kind=account_kind,
        house_kind=house_kind, currency=first.currency,
        bets=[(spec.amount, spec.kind, spec.reference, spec.meta) for _, spec in holds],
    )
    if written is None:
        return None
    txn_id, account_id, balance, bet_ids = written
    if account_id is None:
        # Nothing taken: the account is missing (refused as the general path refuses it) or short.
        [row] = _player_accounts_lock(db, {(player_id, account_kind, first.currency)}, create=False).values()
        _refuse_short(row, -sum(spec.amount for _, spec in holds))
        raise RuntimeError(f"bet hold: {row} covers the stakes but its balance was not taken")
    txn = _loaded(LedgerTransaction, id=txn_id, kind=TransactionKind.BET, idempotency_key=key,
                  fingerprint=fingerprint, created_at=now, reference=reference, actor_id=getattr(actor, "pk", None),
                  reason="", meta=meta)
    account = _loaded(Account, id=account_id, player_id=player_id, kind=account_kind, currency=first.currency,
                      balance=balance)
    bets = []
    for bet_id, (_, spec) in zip(bet_ids, holds, strict=True):
        bet = _loaded(Bet, id=bet_id, account_id=account_id, hold_transaction_id=txn_id, amount=spec.amount,
                      kind=spec.kind, reference=spec.reference, meta=spec.meta, created_at=now)
        bet.account, bet.hold_transaction = account, txn
        bets.append(bet)
    return bets


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


def _settle_set_based(db: LedgerStatements, *, txn: LedgerTransaction, rows: list[tuple[int, int, int]], now,
                      voiding: bool) -> None:
    """PostgreSQL: the bets checked, their accounts locked and every row written by the database
    (wallet.resolution_sql), refusing the same requests with the same messages as the loop of _settle."""
    resolution = SetBasedResolution(db, rows)
    checked = resolution.check_and_lock()
    if checked.unknown:
        unknown = checked.unknown
        raise UnknownBet(f"No bet has the id{'s' if len(unknown) > 1 else ''} {_ids_text(unknown)}.")
    if checked.resolved:
        raise BetAlreadyResolved(
            f"Already resolved or voided, so nothing was settled: bet {_ids_text(checked.resolved)}.")
    if checked.chips:
        bet_id, kind, amount, chips = checked.chips[0]
        if kind == AccountKind.PLAYER_CASH:
            raise InvalidResolution(f"Bet {bet_id} was staked in cash: it has no chips to return.")
        raise InvalidResolution(
            f"Bet {bet_id} was staked with {amount} in Golden Chips: its chips come back whole (push) or not "
            f"at all, not {chips}."
        )
    if checked.cashless:
        # A Golden Chip win is paid in cash: the player's first cash account is opened (and locked) here.
        _player_accounts_lock(db, {(player, AccountKind.PLAYER_CASH, currency)
                                   for player, currency in checked.cashless}, create=True)
    pairs = {(kind, currency) for currency in checked.currencies for kind in SETTLEMENT_HOUSE_KINDS}
    locks.house_accounts(db, pairs, db.house_accounts_select(kinds=SETTLEMENT_HOUSE_KINDS, currencies=checked.currencies))
    resolution.write(transaction_id=txn.pk, created_at=now, voiding=voiding)
    resolution.close()


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
        if set_based(db):
            _settle_set_based(db, txn=txn, rows=[(bet_id, *returns[bet_id]) for bet_id in bet_ids], now=now,
                              voiding=voiding)
            return txn
        # SQLite (the embedded default): the same rules, one bet at a time in Python.
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
        # The common case (exact types, in range) is decided by the first test of each check: a settlement has
        # tens of thousands of resolutions; anything else gets the full check and its message.
        if type(spec) is not BetResolutionSpec and not isinstance(spec, BetResolutionSpec):
            raise InvalidResolution(f"A resolution must be a BetResolutionSpec, not {spec!r}.")
        bet_id, cash, chips = spec.bet_id, spec.cash_return, spec.chips_return
        if type(bet_id) is not int and (isinstance(bet_id, bool) or not isinstance(bet_id, int)):
            raise InvalidResolution(f"A bet id is a whole number, not {bet_id!r}.")
        if bet_id in returns:
            raise InvalidResolution(f"Bet {bet_id} appears twice in one settlement.")
        if not (type(cash) is int and type(chips) is int and 0 <= cash <= MAX_AMOUNT and 0 <= chips <= MAX_AMOUNT):
            cash = _amount_check(cash, what=f"cash return of bet {bet_id}", zero_ok=True)
            chips = _amount_check(chips, what=f"chips return of bet {bet_id}", zero_ok=True)
        returns[bet_id] = (cash, chips)
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

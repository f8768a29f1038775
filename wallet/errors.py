"""Every way a wallet call can be refused, each with a stable code the API and the pages show.

IdempotencyConflict, shared with the other idempotent doors, is casino.idempotency's (named here too).
"""

from rest_framework import status

from casino.api_errors import DomainError
from casino.idempotency import IdempotencyConflict  # noqa: F401 - the conflict callers catch from here too


class WalletError(DomainError):
    code = "wallet_error"


class InvalidAmount(WalletError):
    code = "invalid_amount"


class UnknownCurrency(WalletError):
    code = "unknown_currency"


class LimitExceeded(WalletError):
    code = "limit_exceeded"


class InvalidIdempotencyKey(WalletError):
    code = "invalid_idempotency_key"


class InvalidRequest(WalletError):
    code = "invalid_request"


class InvalidResolution(WalletError):
    code = "invalid_resolution"


class UnknownAccount(WalletError):
    code = "unknown_account"
    http_status = status.HTTP_404_NOT_FOUND


class CurrencyMismatch(UnknownAccount):
    """The player holds this kind of account, but in other currencies: a caller that handles a missing
    account handles this too."""

    code = "currency_mismatch"
    http_status = status.HTTP_400_BAD_REQUEST


class UnknownBet(WalletError):
    code = "unknown_bet"
    http_status = status.HTTP_404_NOT_FOUND


class InsufficientFunds(WalletError):
    code = "insufficient_funds"
    http_status = status.HTTP_409_CONFLICT


class BetAlreadyResolved(WalletError):
    code = "bet_already_resolved"
    http_status = status.HTTP_409_CONFLICT


class IdempotencyKeyRequired(WalletError):
    code = "idempotency_key_required"

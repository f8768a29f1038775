"""Every way a round operation can be refused, each with a stable code the API returns.

IdempotencyConflict, shared with the other idempotent doors, is casino.idempotency's (named here too).
"""

from rest_framework import status

from casino.api_errors import DomainError
from casino.idempotency import IdempotencyConflict  # noqa: F401 - the conflict callers catch from here too


class RoundError(DomainError):
    code = "round_error"


class InvalidRoundRequest(RoundError):
    code = "invalid_request"


class RoundNotFound(RoundError):
    code = "round_not_found"
    http_status = status.HTTP_404_NOT_FOUND


class IllegalTransition(RoundError):
    """The round is not in a state that allows this (betting closed, already settled...)."""

    code = "illegal_transition"
    http_status = status.HTTP_409_CONFLICT


class TableNotPlaying(RoundError):
    code = "table_not_open"
    http_status = status.HTTP_409_CONFLICT


class BetRefused(RoundError):
    code = "bet_refused"


class BetLimitError(RoundError):
    code = "bet_limit"


class DecisionRefused(RoundError):
    code = "decision_refused"
    http_status = status.HTTP_409_CONFLICT


class NotYourTurn(RoundError):
    code = "not_your_turn"
    http_status = status.HTTP_409_CONFLICT


class CardRefused(RoundError):
    code = "card_refused"
    http_status = status.HTTP_409_CONFLICT


class InvalidCard(RoundError):
    code = "invalid_card"


class DealerIncomplete(RoundError):
    code = "dealer_incomplete"
    http_status = status.HTTP_409_CONFLICT


class RoundAlreadySettled(RoundError):
    code = "round_settled"
    http_status = status.HTTP_409_CONFLICT


class SettlementMismatch(RoundError):
    """The held bets do not match what the engine settles: a bug, never bad input; the round stays settling."""

    code = "settlement_mismatch"
    http_status = status.HTTP_500_INTERNAL_SERVER_ERROR

"""The refusal every idempotent door shares: a key already used for a request with other content."""

from rest_framework import status

from casino.api_errors import DomainError


class IdempotencyConflict(DomainError):
    """One class for the wallet's keys and the rounds' request keys, so a caller catches one thing."""

    code = "idempotency_conflict"
    http_status = status.HTTP_409_CONFLICT

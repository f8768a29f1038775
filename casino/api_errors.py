"""Every API error is a JSON body with a stable code and a human message; bad input is never a 500."""

import logging

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.retry import is_contention, is_transient, sqlstate

logger = logging.getLogger(__name__)


class DomainError(Exception):
    """Raised by services for a request that breaks a business rule; the API turns it into a 400/409."""

    code = "invalid"
    http_status = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


def _database_busy(exc) -> Response | None:
    """A collision that outlasted the view's retries is a 409, a database that is away a 503: both JSON, both
    with nothing changed (the transaction rolled back), never a bare 500."""
    if not isinstance(exc, OperationalError | InterfaceError) or not is_transient(exc):
        return None
    logger.warning("API request failed on a transient database error (%s): %s", sqlstate(exc), exc)
    if is_contention(exc):
        return Response({"code": "busy", "message": "Other requests on the same round or account were being "
                         "handled at the same moment and this one could not be ordered with them; nothing was "
                         "changed. Send it again (with the same Idempotency-Key)."}, status=status.HTTP_409_CONFLICT)
    return Response({"code": "unavailable", "message": "The database is not answering just now; nothing was "
                     "changed. Try again in a few seconds (with the same Idempotency-Key)."},
                    status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "5"})


def exception_handler(exc, context):
    busy = _database_busy(exc)
    if busy is not None:
        return busy
    if isinstance(exc, DomainError):
        return Response({"code": exc.code, "message": exc.message}, status=exc.http_status)
    if isinstance(exc, ValidationError):
        return Response({"code": "invalid", "message": "; ".join(exc.messages)}, status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    code = getattr(exc, "default_code", "error")
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else code
    message = detail.get("detail") if isinstance(detail, dict) and "detail" in detail else detail
    body = {"code": str(code), "message": str(message) if not isinstance(message, dict | list) else "invalid input"}
    if isinstance(message, dict | list):
        body["fields"] = message
    response.data = body
    return response

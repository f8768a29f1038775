"""Every API error is one JSON body, {"code", "message"} (and "fields" for invalid input), from every app and from
Django itself under /api/; bad input is never a 500."""

import logging

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.retry import is_contention, is_transient, sqlstate
from casino.untrusted import InputError

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# How long a client should wait before it retries after a 503 (a lock wait or a restart, seconds).
RETRY_AFTER_SECONDS = 2


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


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service cannot answer right now; nothing was changed. Try again in a moment."
    default_code = "unavailable"


class ApiErrorSerializer(serializers.Serializer):
    """The one error body of the whole API (the schema documents every error response with it)."""

    code = serializers.CharField(help_text="stable, for programs: not_found, permission_denied, invalid, ...")
    message = serializers.CharField(help_text="for people")
    fields = serializers.DictField(required=False, help_text="per-field problems, for invalid input")


def error_body(code: str, message: str, fields=None) -> dict:
    body = {"code": code, "message": message}
    if fields is not None:
        body["fields"] = fields
    return body


def _unavailable(exc) -> bool:
    # A database that is unreachable, a lock wait that ran out, a serialisation failure, a cache that is down:
    # the request changed nothing and may be repeated.
    return isinstance(exc, OperationalError | RedisConnectionError | RedisTimeoutError)


def exception_handler(exc, context):
    busy = _database_busy(exc)
    if busy is not None:
        return busy

    if isinstance(exc, InputError):
        return Response({"code": "invalid_input", "message": exc.message}, status=400)
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message), status=exc.http_status)
    if isinstance(exc, ValidationError):
        return Response(error_body("invalid", "; ".join(exc.messages)), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    elif _unavailable(exc):
        exc = ServiceUnavailable()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ServiceUnavailable):
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        detail = detail["detail"]
    if isinstance(detail, list) and all(isinstance(item, str) for item in detail):
        # A view's ValidationError("one sentence") arrives as a list of sentences: they are the message.
        detail = "; ".join(detail)
    if isinstance(detail, dict | list):
        response.data = error_body("invalid" if not isinstance(code, str) else code, "invalid input",
                                   detail if isinstance(detail, dict) else {"non_field_errors": detail})
    else:
        response.data = error_body(code if isinstance(code, str) else "invalid", str(detail))
    return response


def _api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request, exception=None):
    if _api(request):
        return JsonResponse(error_body("bad_request", "The request could not be read."), status=400)
    from django.views.defaults import bad_request as page

    return page(request, exception)


def page_not_found(request, exception=None):
    """Django's own 404 (no URL matched, a path converter refused): JSON under /api/, the page elsewhere."""
    if _api(request):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    from accounts.views import page_not_found as page

    return page(request, exception)


def server_error(request):
    if _api(request):
        return JsonResponse(error_body("server_error", "Something went wrong on our side; it has been logged."),
                            status=500)
    from django.views.defaults import server_error as page

    return page(request)

"""Every API error is a JSON body with a stable code and a human message; bad input is never a 500."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.untrusted import InputError


class DomainError(Exception):
    """Raised by services for a request that breaks a business rule; the API turns it into a 400/409."""

    code = "invalid"
    http_status = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


def exception_handler(exc, context):
    if isinstance(exc, InputError):
        return Response({"code": "invalid_input", "message": exc.message}, status=400)
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

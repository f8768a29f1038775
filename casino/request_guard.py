"""Refuse, before any view runs, a request carrying NUL or other control characters where no person types them.

PostgreSQL text cannot hold NUL, so one in a path, a query parameter, a header or a Basic-auth user name used to
reach the database and come back as a 500. No legitimate client sends control characters in a path, a query
key, a header or a credential; query and form values may hold tabs and line breaks (a text area), never NUL.
"""

import base64
import binascii
import re

from django.http import HttpResponse, JsonResponse

# C0 controls, DEL and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# What a text area may legitimately send: tab, line feed, carriage return.
_CONTROL_IN_VALUE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _basic_credentials(header: str) -> str:
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return ""
    try:
        return base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return ""  # DRF answers a malformed header with its own 401


def request_problem(request) -> str | None:
    """Why this request is refused, in plain words, or None."""
    if _CONTROL.search(request.path_info):
        return "The address contains a control character (such as NUL); remove it and try again."
    for key, values in request.GET.lists():
        if _CONTROL.search(key) or any(_CONTROL_IN_VALUE.search(value) for value in values):
            return f"The query parameter {key!r} contains a control character (such as NUL)."
    for key, value in request.META.items():
        if key.startswith("HTTP_") and isinstance(value, str) and _CONTROL.search(value.replace("\t", " ")):
            name = key[5:].replace("_", "-").title()
            return f"The {name} header contains a control character (such as NUL)."
    if _CONTROL.search(_basic_credentials(request.META.get("HTTP_AUTHORIZATION", ""))):
        return "The user name or password sent contains a control character (such as NUL)."
    if request.method == "POST" and request.content_type in _FORM_TYPES:
        for key, values in request.POST.lists():
            if _CONTROL.search(key) or any("\x00" in value for value in values):
                return f"The form field {key!r} contains a NUL character."
    return None


class ControlCharacterMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = request_problem(request)
        if problem is None:
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            return JsonResponse({"code": "invalid_characters", "message": problem}, status=400)
        return HttpResponse(problem, status=400, content_type="text/plain; charset=utf-8")

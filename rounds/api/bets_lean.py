"""POST /api/rounds/<game>/bets/ without DRF's request and response objects, for the bet chain (casino.hot_path).

BetsApi (rounds.api.client) stays the endpoint, its URL and its schema; this view takes only the bet that
passes every step and is answered 201, and calls the same owners in DRF's order: the body through DRF's
JSONParser, SessionAuthentication's CSRF check, the PLAYER permission, BetRateThrottle, then bets_placed (the
view's own body, with its retry on contention), rendered by DRF's JSONRenderer with the view's own headers.

Anything else goes to BetsApi itself, before anything has changed: an API key, a query string or an Accept
header that could pick another renderer, a body DRF would not read as JSON, no active user, a CSRF failure,
a missing permission. So every refusal up to there is DRF's own answer. A refusal after the count (a rate
limit, or the service's: presence, limits, betting closed, idempotency) is rendered by a BetsApi instance's own
handle_exception and finalize_response, as DRF's dispatch would.
tests/security/test_bet_hot_path.py checks both paths give the same status, body and headers.
"""

from __future__ import annotations

import io
from functools import cache

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer

from casino.ratelimit import BetRateThrottle
from casino.retry import contention_retry
from rounds.api._common import PLAYER
from rounds.api.client import BetsApi, bets_placed

_JSON = "application/json"
_ACCEPTED = ("", "*/*", _JSON)  # what DRF's negotiation answers with JSONRenderer, its first renderer
_drf_view = BetsApi.as_view()


@cache
def _headers() -> tuple[tuple[str, str], ...]:
    """The headers DRF's finalize_response adds for BetsApi (Allow; Vary: Accept)."""
    return tuple(BetsApi().default_response_headers.items())


def _drf_response(request, game_number: str, exc: Exception):
    """exc answered as BetsApi's dispatch answers it."""
    view = BetsApi()
    view.args, view.kwargs, view.format_kwarg = (), {"game_number": game_number}, None
    view.request = drf_request = view.initialize_request(request, game_number=game_number)
    view.headers = view.default_response_headers
    drf_request.accepted_renderer, drf_request.accepted_media_type = view.perform_content_negotiation(drf_request)
    return view.finalize_response(drf_request, view.handle_exception(exc))


def _body(request):
    """The JSON body as DRF's JSONParser reads it, or None when DRF should read it (and answer) itself."""
    if request.content_type != _JSON or request.content_params.get("charset", "utf-8").lower() != "utf-8":
        return None
    try:
        return JSONParser().parse(io.BytesIO(request.body), _JSON,
                                  {"encoding": request.encoding or settings.DEFAULT_CHARSET})
    except exceptions.ParseError:
        return None


@csrf_exempt
def bets_place(request, game_number: str):
    meta = request.META
    if "HTTP_AUTHORIZATION" in meta or meta.get("QUERY_STRING") or meta.get("HTTP_ACCEPT", "") not in _ACCEPTED:
        return _drf_view(request, game_number=game_number)
    data = _body(request)
    user = request.user
    if data is None or not user.is_active:
        return _drf_view(request, game_number=game_number)
    try:
        SessionAuthentication().enforce_csrf(request)
    except exceptions.PermissionDenied:
        return _drf_view(request, game_number=game_number)
    if not PLAYER().has_permission(request, None):
        return _drf_view(request, game_number=game_number)
    throttle = BetRateThrottle()
    try:
        if not throttle.allow_request(request, None):
            raise exceptions.Throttled(throttle.wait())
        placed = contention_retry(lambda: bets_placed(request, data, game_number))
    except Exception as exc:  # noqa: BLE001 - answered (or raised again) by DRF's own handler
        return _drf_response(request, game_number, exc)
    response = HttpResponse(JSONRenderer().render(placed, _JSON, {}), status=201, content_type=_JSON)
    for name, value in _headers():
        response[name] = value
    return response

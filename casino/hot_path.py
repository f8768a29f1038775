"""The game client's busiest request, POST /api/rounds/<game>/bets/, through a shorter middleware chain.

Every bet went through all of settings.MIDDLEWARE, and most of them have nothing to do with it: static files,
flash messages, htmx, the play-page exclusion redirect, the sign-in rate limit and the sign-in lockout page.
`Application` (casino.wsgi) sends a request that Django's own URL resolver maps to `BetsApi` to a second
Django handler whose chain is settings.MIDDLEWARE without exactly those (SKIPPED, each with why it does nothing
for a bet); every other request keeps the full chain. A middleware added to settings later is in the bet chain
too unless it is added to SKIPPED, with its reason. The bet chain's view is rounds.api.bets_lean.bets_place: a
bet that passes every step is placed without DRF's request and response objects, through the same owners
(authentication, CSRF, the PLAYER permission, the rate limits, the presence gate, idempotency); everything
else it hands to the DRF view itself, which also keeps the URL and the OpenAPI schema.

What the bet chain keeps, in settings' order: the security, frame and CSP headers, the request guard
(casino.request_guard), the session and its age (accounts.middleware.SessionAgeMiddleware), CommonMiddleware
(ALLOWED_HOSTS), CSRF's cookie handling, the user, its second factor and the login steps
(accounts.middleware.LoginStepsMiddleware). tests/security/test_bet_hot_path.py sends the same requests
through both chains and compares status, body and headers.

The connection health check: Django's CONN_HEALTH_CHECKS runs `SELECT 1` before a request's first statement
on a reused connection, a round trip on every bet. On this path the first statement is always the session
read (SessionAgeMiddleware reads the session before anything else touches the database), which retries once
on a fresh connection when the old one turns out dead (accounts.sessions): the same outcome without the round
trip. Other paths keep Django's check.
"""

from __future__ import annotations

import csp.middleware
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, get_path_info
from django.core.signals import setting_changed
from django.db import connections
from django.urls import Resolver404, get_resolver

MATCH_KEY = "casino.bet_path.match"
PREFIX, SUFFIX = "/api/rounds/", "/bets/"

SKIPPED = {
    "whitenoise.middleware.WhiteNoiseMiddleware": "serves files under STATIC_URL only; a bet is under /api/",
    "django.contrib.messages.middleware.MessageMiddleware": "the bet view adds and reads no flash message, so it "
                                                            "stores nothing",
    "django_htmx.middleware.HtmxMiddleware": "only sets request.htmx, which no API view reads",
    "responsible.middleware.ExcludedPlayerMiddleware": "acts on settings.RESPONSIBLE_PLAY_PATHS (pages) only",
    "casino.ratelimit.LoginRateLimitMiddleware": "acts on POST to the login URL only",
    "axes.middleware.AxesMiddleware": "acts on a lockout flagged by authenticate(), which a bet never calls",
}


def bet_middleware() -> list[str]:
    return [path for path in settings.MIDDLEWARE if path not in SKIPPED]


class BetHandler(WSGIHandler):
    """Django's WSGI handler with the bet chain and BetsApi's plain view (rounds.api.bets_lean); the URL was
    resolved once already, by Application."""

    def __init__(self):
        from rounds.api.bets_lean import bets_place
        from rounds.api.client import BetsApi

        self.view_class, self.view = BetsApi, bets_place
        super().__init__()

    def load_middleware(self, is_async=False):
        # BaseHandler reads settings.MIDDLEWARE; it is swapped only for this call, at start-up, before any
        # request is served.
        full = settings.MIDDLEWARE
        settings.MIDDLEWARE = bet_middleware()
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full

    def resolve_request(self, request):
        match = request.environ.get(MATCH_KEY)
        if match is None or hasattr(request, "urlconf"):
            match = super().resolve_request(request)
        if getattr(match.func, "view_class", None) is self.view_class:
            match.func = self.view
        request.resolver_match = match
        return match

    def get_response(self, request):
        # After request_started (which resets the check), before the first statement: the session read's retry
        # stands in for Django's SELECT 1 on this path (module docstring).
        connections["default"].health_check_done = True
        return super().get_response(request)


class Application:
    """casino.wsgi.application: the bet path's requests to `bet`, all others to `full`."""

    def __init__(self, full: WSGIHandler):
        self.full = full
        self.bet = BetHandler()
        self.view_class = self.bet.view_class

    def bet_match(self, environ):
        """Django's own resolution of this request's path, when it is the bet view's."""
        if environ.get("REQUEST_METHOD") != "POST":
            return None
        path = get_path_info(environ) or "/"
        if not (path.startswith(PREFIX) and path.endswith(SUFFIX)):
            return None
        try:
            match = get_resolver().resolve(path)
        except Resolver404:
            return None
        return match if getattr(match.func, "view_class", None) is self.view_class else None

    def __call__(self, environ, start_response):
        match = self.bet_match(environ)
        if match is None:
            return self.full(environ, start_response)
        environ[MATCH_KEY] = match
        return self.bet(environ, start_response)


# django-csp builds its header from settings on every response (6 % of a bet's CPU). A response with no
# per-view policy and no nonce gets the settings' policy, so that one is built once per process (by django-csp's
# own build_policy) and built again when a test changes the setting.
_build_policy = csp.middleware.build_policy
_settings_policy: dict[bool, str] = {}


def _policy(config=None, update=None, replace=None, nonce=None, report_only=False) -> str:
    if config is None and update is None and replace is None and nonce is None:
        found = _settings_policy.get(report_only)
        if found is None:
            found = _settings_policy[report_only] = _build_policy(report_only=report_only)
        return found
    return _build_policy(config=config, update=update, replace=replace, nonce=nonce, report_only=report_only)


def _policy_forget(*, setting, **kwargs) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _settings_policy.clear()


csp.middleware.build_policy = _policy
setting_changed.connect(_policy_forget, dispatch_uid="casino.hot_path.policy_forget")

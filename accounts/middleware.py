"""What a session may do between its login and the rest of the site. Both middlewares read only the session,
which the request loads anyway (one statement, accounts.sessions), and the request's user's permissions, loaded
with the user in one statement (accounts.backends)."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve, reverse
from django.utils.http import urlencode

from accounts.permissions import is_staff_user

# Set at login (accounts.signals): when it was, when the session was last seen, how long it may stay idle.
LOGIN_AT_KEY = "_login_at"
SEEN_AT_KEY = "_seen_at"
IDLE_KEY = "_idle_seconds"
PASSWORD_CHANGE_KEY = "_password_change_required"


def session_start(request, *, staff: bool) -> None:
    """Called when someone logs in: the session's clocks start, and its stored expiry is its idle limit."""
    now = time.time()
    idle = settings.SESSION_IDLE_STAFF_SECONDS if staff else settings.SESSION_IDLE_PLAYER_SECONDS
    request.session[LOGIN_AT_KEY] = now
    request.session[SEEN_AT_KEY] = now
    request.session[IDLE_KEY] = idle
    request.session.set_expiry(min(idle, settings.SESSION_MAX_AGE_SECONDS))


class SessionAgeMiddleware:
    """Idle timeout and absolute age. The stored expiry (which the one session read filters on) is moved forward
    at most once per SESSION_IDLE_REFRESH_SECONDS, so a busy session costs one write a minute, not one a request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = request.session
        login_at = session.get(LOGIN_AT_KEY)
        if login_at is not None:
            now = time.time()
            seen_at = session.get(SEEN_AT_KEY, login_at)
            idle = session.get(IDLE_KEY, settings.SESSION_IDLE_STAFF_SECONDS)
            age = now - login_at
            if age >= settings.SESSION_MAX_AGE_SECONDS or now - seen_at >= idle:
                request.session_end_reason = "session expired"
                logout(request)
            elif now - seen_at >= settings.SESSION_IDLE_REFRESH_SECONDS:
                session[SEEN_AT_KEY] = now
                session.set_expiry(max(1, int(min(idle, settings.SESSION_MAX_AGE_SECONDS - age))))
        return self.get_response(request)


def _is_api(request) -> bool:
    return request.path_info.startswith("/api/")


class LoginStepsMiddleware:
    """Staff pass a second factor before anything else opens (their pages, the API, the admin); anyone whose
    password support reset chooses a new one first. Pages redirect to the step and back; the API answers 403."""

    # What each step leaves open. Changing the password is not open before the second factor: the password alone
    # must not be enough to take a staff account over.
    OPEN = {"login", "logout", "healthz"}
    STEP_URL_NAMES = {"second_factor": OPEN | {"second_factor_verify", "second_factor_enrol"},
                      "password_change": OPEN | {"password_change"}}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(f"/{settings.STATIC_URL.lstrip('/')}"):
            return self.get_response(request)
        step = self._step(request)
        if step is not None:
            try:
                url_name = resolve(request.path_info).url_name
            except Resolver404:
                url_name = None
            if url_name not in self.STEP_URL_NAMES[step]:
                return self._refuse(request, step)
        return self.get_response(request)

    @staticmethod
    def _step(request) -> str | None:
        user = request.user
        if not user.is_authenticated:
            return None
        if is_staff_user(user) and not user.is_verified():
            return "second_factor"
        if request.session.get(PASSWORD_CHANGE_KEY):
            return "password_change"
        return None

    @staticmethod
    def _refuse(request, step: str):
        if step == "second_factor":
            message = "Staff must pass their second factor (authenticator code) first: open /verify/ in the browser."
            url_name = "second_factor_verify"
        else:
            message = "This account's password was reset: choose a new one at /me/settings/password/ first."
            url_name = "password_change"
        if _is_api(request):
            return JsonResponse({"code": f"{step}_required", "message": message}, status=403)
        url = f"{reverse(url_name)}?{urlencode({'next': request.get_full_path()})}"
        if request.headers.get("HX-Request") == "true":
            # A fragment request: the whole page goes to the step, not a fragment of it.
            response = HttpResponse(status=204)
            response["HX-Redirect"] = url
            return response
        return redirect(url)

"""The language a player's page is written in, chosen once per request: `?lang=` when given (one of
settings.LANGUAGES), else the language the signed-in player chose (players.selectors.player_language, stored on
their profile), else Django's language cookie, then the browser's Accept-Language. A player's page that is given
`?lang=` remembers it (`remember_language`): the cookie, and the player's profile, so the links they follow, the
statement and the game-client API's help keep it. The back office has no LocaleMiddleware and stays English; a
player's view asks for its reader's language with `@in_reader_language`."""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.http import HttpResponseBadRequest
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


class UnknownLanguage(ValueError):
    pass


def asked_language(request) -> str | None:
    """The `?lang=` of the request (None: not given); a value that is no language is refused."""
    asked = request.GET.get("lang")
    if asked is not None and asked not in dict(settings.LANGUAGES):
        raise UnknownLanguage(f"lang must be one of {', '.join(dict(settings.LANGUAGES))}, not {asked[:20]!r}")
    return asked


def stored_language(request) -> str:
    """The signed-in reader's chosen language, "" when none (read once per request)."""
    if not hasattr(request, "_stored_language"):
        # Imported here: casino sits below the apps, and the players app owns the stored choice.
        from players.selectors import player_language

        request._stored_language = player_language(player=getattr(request, "user", None))
    return request._stored_language


def language_of(request) -> str:
    asked = asked_language(request)
    if asked is not None:
        return asked
    return stored_language(request) or translation.get_language_from_request(request)


def browser_language(request) -> str:
    """The language the browser's Accept-Language asks for, alone: what a player who chose "my browser's
    language" reads once the cookie is dropped."""
    for code, _quality in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return translation.get_supported_language_variant(settings.LANGUAGE_CODE)


def remember_language(request, response) -> None:
    """A page given `?lang=` keeps that language for the pages after it: the cookie (any reader) and, for a
    player, their profile. Call it only after `language_of` accepted the value."""
    asked = asked_language(request)
    if asked is None:
        return
    language_cookie_set(response, asked)
    from accounts.permissions import has_role_permission
    from players.services import player_language_remember

    user = request.user
    if user.is_authenticated and has_role_permission(user, "play") and stored_language(request) != asked:
        player_language_remember(player=user, language=asked)
        request._stored_language = asked


def language_cookie_set(response, language: str) -> None:
    """The cookie Django's language choice reads ("" deletes it, so the browser's language decides again)."""
    if not language:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, path=settings.LANGUAGE_COOKIE_PATH)
        return
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
                        path=settings.LANGUAGE_COOKIE_PATH, secure=settings.LANGUAGE_COOKIE_SECURE,
                        httponly=settings.LANGUAGE_COOKIE_HTTPONLY, samesite=settings.LANGUAGE_COOKIE_SAMESITE)


def in_reader_language(view):
    """Runs the view, its templates and the messages it leaves for the next page in the reader's language, and
    says which in Content-Language (and the page's <html lang>, base.html); `?lang=` is remembered."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            language = language_of(request)
        except UnknownLanguage as error:
            return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")
        with translation.override(language):
            response = view(request, *args, **kwargs)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()
        remember_language(request, response)
        response.headers.setdefault("Content-Language", language)
        return response

    return wrapped

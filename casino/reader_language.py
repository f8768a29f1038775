"""The language a player's page is written in, chosen once per request: `?lang=` when given (one of
settings.LANGUAGES), else Django's language cookie, then the browser's Accept-Language. The back office has no
LocaleMiddleware and stays English; a player's view asks for its reader's language with `@in_reader_language`."""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.http import HttpResponseBadRequest
from django.utils import translation


class UnknownLanguage(ValueError):
    pass


def language_of(request) -> str:
    asked = request.GET.get("lang")
    if asked is not None:
        if asked not in dict(settings.LANGUAGES):
            raise UnknownLanguage(f"lang must be one of {', '.join(dict(settings.LANGUAGES))}, not {asked[:20]!r}")
        return asked
    return translation.get_language_from_request(request)


def in_reader_language(view):
    """Runs the view, its templates and the messages it leaves for the next page in the reader's language, and
    says which in Content-Language (and the page's <html lang>, base.html)."""

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
        response.headers.setdefault("Content-Language", language)
        return response

    return wrapped

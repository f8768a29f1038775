"""The statement pages: a player's own (/me/statement/) and support's for a player (/support/players/<id>/
statement/), each as a page and a streamed CSV of the same figures (players.statement), in English or Swedish
(?lang=, else the language the reader chose, else their browser's: casino.reader_language). A player's own
statement remembers ?lang= as their choice; support's view of it does not (the back office stays English)."""

from __future__ import annotations

from django.http import Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from casino.reader_language import UnknownLanguage, language_of, remember_language
from players.statement import PAGE_LINES, statement_build, statement_csv_lines, statement_period
from wallet import selectors as wallet_selectors


def _bad(message: str):
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def _statement_response(request, *, player, page_url: str, csv_url: str, staff_view: bool, as_csv: bool):
    try:
        language = language_of(request)
    except UnknownLanguage as error:
        return _bad(str(error))
    with translation.override(language):
        try:
            since, until = statement_period(request.GET.get("from"), request.GET.get("to"))
        except ValueError as error:
            return _bad(str(error))
        statement = statement_build(player=player, since=since, until=until)
        query = urlencode({"from": since.isoformat(), "to": until.isoformat(), "lang": language})
        if as_csv:
            response = StreamingHttpResponse(_in_language(statement_csv_lines(statement, language=language),
                                                          language), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = (f'attachment; filename="statement-{player.pk}-{since.isoformat()}-'
                                               f'{until.isoformat()}-{language}.csv"')
        else:
            parts = [(part, list(_first(part.lines(since=since, until=until), PAGE_LINES)))
                     for part in statement.accounts]
            response = render(request, "players/statement.html", {
                "statement": statement, "parts": parts, "page_lines": PAGE_LINES, "player": player,
                "staff_view": staff_view, "page_language": language, "page_url": page_url,
                "csv_url": f"{csv_url}?{query}", "other_language": "sv" if language == "en" else "en",
            })
    if not staff_view:
        remember_language(request, response)
    response.headers["Content-Language"] = language
    return response


def _in_language(lines, language: str):
    """A streamed body is written after the view returns: each line is made inside the language again."""
    while True:
        with translation.override(language):
            try:
                line = next(lines)
            except StopIteration:
                return
        yield line


def _first(lines, limit: int):
    for n, line in enumerate(lines):
        if n == limit:
            return
        yield line


@require_GET
@permission_required("play")
def my_statement(request):
    return _statement_response(request, player=request.user, page_url=reverse("player_statement"),
                               csv_url=reverse("player_statement_csv"), staff_view=False, as_csv=False)


@require_GET
@permission_required("play")
def my_statement_csv(request):
    return _statement_response(request, player=request.user, page_url=reverse("player_statement"),
                               csv_url=reverse("player_statement_csv"), staff_view=False, as_csv=True)


def _player_or_404(user_id: int):
    player = wallet_selectors.player_get(user_id=user_id)
    if player is None:
        raise Http404("No such player")
    return player


@require_GET
@permission_required("view_backoffice")
def player_statement(request, user_id: int):
    player = _player_or_404(user_id)
    return _statement_response(request, player=player, page_url=reverse("support_player_statement", args=[player.pk]),
                               csv_url=reverse("support_player_statement_csv", args=[player.pk]), staff_view=True,
                               as_csv=False)


@require_GET
@permission_required("view_backoffice")
def player_statement_csv(request, user_id: int):
    player = _player_or_404(user_id)
    return _statement_response(request, player=player, page_url=reverse("support_player_statement", args=[player.pk]),
                               csv_url=reverse("support_player_statement_csv", args=[player.pk]), staff_view=True,
                               as_csv=True)

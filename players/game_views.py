"""A player's own game history: the list (by keyset, from a day on), its CSV, and one game as they saw it."""

from __future__ import annotations

import csv
from datetime import date

from django.http import Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from casino.query_params import cursor_param, date_param
from casino.reader_language import in_reader_language
from rounds import game_history
from rounds.round_page import round_cards, round_spots_page
from rounds.round_summary import round_summary
from rounds.selectors import dealer_cards_shown, hole_card_hidden
from wallet.currencies import money_format


def period_of(request) -> tuple[int | None, date | None, date | None]:
    """?from= and ?to= (UTC days, both included; ?date= is the older name of ?to=) as the keyset cursor that
    starts the history at the end of `to`, and the day it stops at. ValueError when malformed."""
    since = date_param(request.GET.get("from"), "from")
    until = date_param(request.GET.get("to") or request.GET.get("date"), "to")
    if since and until and since > until:
        raise ValueError("from must be on or before to")
    start = game_history.game_history_cursor_for_day(day=until) if until else None
    return start, since, until


@require_GET
@permission_required("play")
@in_reader_language
def my_games(request):
    try:
        before = cursor_param(request, "before")
        start, since, until = period_of(request)
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain")
    if before is None:
        before = start
    page = game_history.player_game_history(player=request.user, before=before, since=since)
    base = reverse("player_games")
    kept = {k: v for k, v in {"from": since.isoformat() if since else "",
                              "to": until.isoformat() if until else ""}.items() if v}
    context = {
        "games": page, "staff": False, "first_page": request.GET.get("before") is None, "date": until,
        "since": since, "until": until, "period": bool(kept),
        "totals": game_history.period_totals(player=request.user, before=start, since=since) if kept else None,
        "csv_url": f"{reverse('player_games_csv')}?{urlencode(kept)}" if kept else reverse("player_games_csv"),
        "older_games_url": (f"{base}?{urlencode(kept | {'before': page.next_before})}" if page.next_before
                            else None),
    }
    if request.htmx and request.GET.get("before"):
        return render(request, "players/_game_rows.html", context)
    return render(request, "players/games.html", context)


@require_GET
@permission_required("play")
def my_games_csv(request):
    try:
        start, since, _until = period_of(request)
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain")
    return game_history_csv(player=request.user, before=start, since=since)


def game_history_csv(*, player, before: int | None, since: date | None) -> StreamingHttpResponse:
    """The games of a period (all of them without one) as a streamed CSV: the player's own download and
    support's download of a player's history write the same file."""

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def money(amounts: dict[str, int] | None) -> str:
        if amounts is None:
            return ""
        return "; ".join(money_format(v, c, grouping=False) for c, v in sorted(amounts.items()))

    def rows():
        yield writer.writerow(["game number", "started (UTC)", "table", "game", "bets", "staked", "returned",
                               "result", "net", "state"])
        for row in game_history.player_game_history_iter(player=player, before=before, since=since):
            r = row.round
            yield writer.writerow([
                r.game_number, r.opened_at.isoformat(), r.table.code, r.config.get("name", ""),
                "; ".join(f"{label} {money_format(amount, currency, grouping=False)}"
                          for label, currency, amount in row.bets),
                money(row.staked), money(row.returned), row.result, money(row.net), r.get_state_display(),
            ])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="game-history-{player.pk}.csv"'
    return response


@require_GET
@permission_required("play")
@in_reader_language
def my_game(request, game_number: str):
    round = game_history.player_round(player=request.user, game_number=game_number)
    if round is None:
        raise Http404("No such game of yours")
    seats = game_history.player_seats(player=request.user, round=round)
    cards = round_cards(round, seats=seats)
    hidden = hole_card_hidden(round)
    if hidden:
        cards["dealer"] = dealer_cards_shown(cards["dealer"], hidden=True)
        cards["dealer_total"] = ""
        cards["order"] = [c for c in cards["order"] if not (c["target"] == "dealer" and c["sequence"] == 2)]
    spots, _more = round_spots_page(round=round, player=request.user, limit=100)
    return render(request, "players/game.html", {
        "round": round, "cards": cards, "spots": spots, "staff": False, "hidden": hidden,
        "summary": round_summary(round=round, player=request.user)})

"""A player's own game history: the list (by keyset, from a day on), its CSV, and one game as they saw it."""

from __future__ import annotations

import csv

from django.http import Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from casino.query_params import cursor_param, date_param
from rounds import game_history
from rounds.round_page import round_cards, round_spots_page
from rounds.round_summary import round_summary
from rounds.selectors import dealer_cards_shown, hole_card_hidden
from wallet.currencies import money_format


@require_GET
@permission_required("play")
def my_games(request):
    try:
        before = cursor_param(request, "before")
        day = date_param(request.GET.get("date"))
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain")
    if day is not None and before is None:
        before = game_history.game_history_cursor_for_day(day=day)
    page = game_history.player_game_history(player=request.user, before=before)
    base = reverse("player_games")
    context = {
        "games": page, "staff": False, "first_page": before is None, "date": day,
        "older_games_url": f"{base}?{urlencode({'before': page.next_before})}" if page.next_before else None,
    }
    if request.htmx and request.GET.get("before"):
        return render(request, "players/_game_rows.html", context)
    return render(request, "players/games.html", context)


@require_GET
@permission_required("play")
def my_games_csv(request):
    player = request.user

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
        for row in game_history.player_game_history_iter(player=player):
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
    # The summary is written in the reader's language, like the help pages (the detail below is English yet).
    language = translation.get_language_from_request(request)
    with translation.override(language):
        return render(request, "players/game.html", {
            "round": round, "cards": cards, "spots": spots, "staff": False, "hidden": hidden,
            "summary": round_summary(round=round, player=request.user)})

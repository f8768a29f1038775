"""Staff pages of a round: the engine's replay check. A round is read on the support desk's round page
(backoffice); the old lookup and record URLs under /rounds/ lead there."""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from rounds import selectors


@require_GET
@permission_required("view_backoffice")
def round_lookup(request):
    """The old lookup: a game number that exists opens its round page, anything else goes to the search."""
    game_number = request.GET.get("game_number", "").strip()
    if game_number and selectors.round_id_by_game_number(game_number=game_number) is not None:
        return redirect("backoffice_round", game_number=game_number, permanent=True)
    search = reverse("backoffice_search")
    return redirect(f"{search}?{urlencode({'q': game_number})}" if game_number else search, permanent=True)


@require_GET
@permission_required("view_backoffice")
def round_detail(request, game_number: str):
    """The old record page: the support desk's round page shows the same round."""
    return redirect("backoffice_round", game_number=game_number, permanent=True)


def _round_or_404(game_number: str):
    round = selectors.round_by_game_number(game_number=game_number)
    if round is None:
        raise Http404(f"No round has the game number {game_number}")
    return round


@require_GET
@permission_required("view_backoffice")
def round_replay_check(request, game_number: str):
    """The engine's replay of the audit trail; a fragment for htmx, a page otherwise."""
    round = _round_or_404(game_number)
    context = {"round": round, "replay": selectors.round_replay(round=round)}
    if request.htmx:
        return render(request, "rounds/_replay.html", context)
    return render(request, "rounds/replay.html", context)

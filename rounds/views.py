"""Staff pages: look a round up by game number and read its whole record (the back office builds on these)."""

from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from rounds import selectors


@require_GET
@permission_required("view_backoffice")
def round_lookup(request):
    game_number = request.GET.get("game_number", "").strip()
    if game_number:
        round = selectors.round_by_game_number(game_number=game_number)
        if round is not None:
            return redirect("round_detail", game_number=round.game_number)
    return render(request, "rounds/lookup.html", {"game_number": game_number, "not_found": bool(game_number)},
                  status=404 if game_number else 200)


def _round_or_404(game_number: str):
    round = selectors.round_by_game_number(game_number=game_number)
    if round is None:
        raise Http404(f"No round has the game number {game_number}")
    return round


@require_GET
@permission_required("view_backoffice")
def round_detail(request, game_number: str):
    record = selectors.round_full_record(round=_round_or_404(game_number))
    return render(request, "rounds/detail.html", record)


@require_GET
@permission_required("view_backoffice")
def round_replay_check(request, game_number: str):
    """The engine's replay of the audit trail; a fragment for htmx, a page otherwise."""
    round = _round_or_404(game_number)
    context = {"round": round, "replay": selectors.round_replay(round=round)}
    if request.htmx:
        return render(request, "rounds/_replay.html", context)
    return render(request, "rounds/replay.html", context)

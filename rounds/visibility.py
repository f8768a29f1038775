"""What a player may see of a round, through the API; studio and staff see everything.

A game number is printed on every bet slip and follows a guessable pattern (table, date, sequence), so knowing one
proves nothing. A player reads a round only when it is theirs (they hold a spot in it) or it is the round their
table is playing now (the one a game client joins); any other round answers the same 404 as a game number that
does not exist. In a round they may read, a player sees their own positions, the dealer's cards and the shared
cards of a common draw, and which seats are taken: never another player's identity, stakes or cards.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from accounts.permissions import has_role_permission
from rounds.models import Round, Spot


def viewer_is_staff(user) -> bool:
    """Studio and back-office staff see every seat, stake and the hole card."""
    return has_role_permission(user, "view_backoffice") or has_role_permission(user, "configure_tables")


def round_current_for_table(*, table) -> Round | None:
    """The round a table's game clients follow: the one in play, else the last one played."""
    from rounds import selectors

    return selectors.round_active_for_table(table=table) or selectors.round_latest_for_table(table=table)


def round_readable(*, round: Round, user) -> bool:
    if viewer_is_staff(user):
        return True
    if not has_role_permission(user, "play"):
        return False
    if Spot.objects.filter(round=round, player_id=user.pk).exists():
        return True
    current = round_current_for_table(table=round.table)
    return current is not None and current.pk == round.pk


def round_readable_or_404(*, round: Round, user) -> Round:
    if not round_readable(round=round, user=user):
        raise Http404
    return round


def round_view_for_player(*, view: dict[str, Any], player_id: int | None) -> dict[str, Any]:
    """A round's full view (rounds.selectors.round_view) cut down to what one player may see."""
    own = [spot for spot in view["spots"] if spot["player"] == player_id and player_id is not None]
    # A Bet Behind follows the seat it is placed on, so that seat's cards are the bettor's to see.
    own_seats = {str(spot["seat"]) for spot in own if spot["seat"] is not None}
    cards = {**view["cards"], "seats": {seat: c for seat, c in view["cards"]["seats"].items() if seat in own_seats}}
    return {**view, "cards": cards, "spots": own}

"""What a game client is told of confirming bets: whether this player confirms by hand, or the table confirms
for them when betting time ends, or the table's bets need no confirmation (the rule lives in
rounds.services.returns; this only reads it for the round view)."""

from __future__ import annotations

from rounds.models import Round

NOT_NEEDED, AUTOMATIC, BY_HAND = "not_needed", "automatic", "by_hand"


def confirmation_for(*, round: Round, viewer) -> str | None:
    """`by_hand` (the client shows Confirm), `automatic` (no Confirm: the bets are confirmed at the close),
    `not_needed` (bets stand when betting closes), or None for the studio or staff, who confirm nothing."""
    # Imported here: the services read the selectors, so the selectors reach the services' reads lazily.
    from rounds.services.returns import confirmation_applies, confirms_automatically

    if not confirmation_applies(round):
        return NOT_NEEDED
    player_id = getattr(viewer, "pk", None)
    if player_id is None:
        return None
    return AUTOMATIC if confirms_automatically(round, {player_id}) else BY_HAND

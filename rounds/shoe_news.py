"""What a game client is told of the shoe's life with a round's state (docs/rules.md, the shoe's life): the cut
card came out in this round (the cards will be replaced in the following round), this is the shoe's last round,
or a new shoe started. The studio records those facts (rounds.services.opening: shoe_cut_card, round_open,
shoe_start); this only reads them, in one query."""

from __future__ import annotations

from typing import Any

from django.db.models import Min, Q

from rounds.models import Round, Shoe

CUT_CARD = "The cut card came out in this round: the cards will be replaced in the following round."
LAST_ROUND = "This is the last round of this shoe: the cards will be replaced after it."
NEW_SHOE_SINCE = "A new shoe has started: the cards have been replaced."
NEW_SHOE = "A new shoe started with this round: the cards have been replaced."


def shoe_news(*, round: Round) -> dict[str, Any]:
    """The round's shoe as the client state shows it: its number, the three facts, and one plain sentence (empty
    when there is nothing to tell)."""
    shoes = {shoe.pk: shoe for shoe in Shoe.objects.filter(
        Q(pk=round.shoe_id) | Q(table_id=round.table_id, ended_at__isnull=True),
    ).annotate(first_round=Min("rounds__id")).only("id", "number", "cut_card_round_id", "last_round_id",
                                                     "ended_at")}
    shoe = shoes[round.shoe_id]
    newer = any(other.pk != shoe.pk and other.ended_at is None for other in shoes.values())
    cut_card = shoe.cut_card_round_id == round.pk
    last_round = shoe.last_round_id == round.pk
    # The first round dealt from any shoe but the table's first: the cards were replaced before it.
    first_of_new = shoe.number > 1 and shoe.first_round == round.pk
    if newer:
        message = NEW_SHOE_SINCE
    elif cut_card:
        message = CUT_CARD
    elif last_round:
        message = LAST_ROUND
    elif first_of_new:
        message = NEW_SHOE
    else:
        message = ""
    return {"number": shoe.number, "cut_card": cut_card, "last_round": last_round,
            "new_shoe": newer or first_of_new, "message": message}

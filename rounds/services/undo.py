"""UNDO (the Free Bet text): while betting is open a player takes back the last bet they placed, again and again
in reverse order of placement; holding the button (`everything`) takes back every bet.

A placement is one `bets_placed` event: the bets of one request on one spot (a repeat or a double places one per
spot). Confirmed bets (rounds.services.returns) cannot be undone. The money goes back through
`rounds.services.returns.bets_return`, under a ledger key made from the player's request key, so a retried
request moves nothing twice; the player's spots are locked FOR UPDATE first (round -> spot -> account), so two
concurrent undos take back two different placements, never one twice.

A Bet Behind placed by others on a seat whose player undid everything stands until betting closes, where the
rule of rules.md (the seat player placed no bet) returns it; another player taking the seat meanwhile keeps it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rounds.errors import BetRefused
from rounds.idempotency import request_once
from rounds.locks import round_lock_for_bet
from rounds.models import ActorKind, ReturnReason, Round, RoundBet, RoundEvent, Spot
from rounds.services._common import _now
from rounds.services.returns import _betting_open, bets_return, is_confirmed, live_bets
from wallet.keys import client_key


def _last_placement(round: Round, player, undoable: dict[int, RoundBet]) -> list[RoundBet]:
    """The bets of the player's latest placement that still has an undoable bet."""
    events = (RoundEvent.objects.filter(round=round, kind="bets_placed", actor=player).order_by("-id")
              .values_list("payload", flat=True))
    for payload in events.iterator(chunk_size=20):
        bets = [undoable[bet["id"]] for bet in payload["bets"] if bet["id"] in undoable]
        if bets:
            return bets
    return []


def bets_undo(*, round_id: int, player, idempotency_key: str, everything: bool = False,
              now: datetime | None = None) -> dict[str, Any]:
    """Take back the player's last placement (or, `everything`, all their unconfirmed bets) while betting is
    open. Returns {"returned": [round bet ids], "spots_voided": [spot ids]}."""
    if not isinstance(everything, bool):
        raise BetRefused("all must be true or false.")
    now = _now(now)

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=True)
        _betting_open(round, now=now)
        spots = {s.pk: s for s in Spot.objects.filter(pk__in=round.locked_spot_ids, voided_at__isnull=True)}
        standing = live_bets(spots)
        if not any(standing.values()):
            raise BetRefused(f"You have no bets in round {round.game_number} to undo.")
        undoable = {bet.pk: bet for spot_id, bets in standing.items() for bet in bets
                    if not is_confirmed(spots[spot_id], bet)}
        if not undoable:
            raise BetRefused("Your bets are confirmed: confirmed bets cannot be undone.")
        chosen_bets = list(undoable.values()) if everything else _last_placement(round, player, undoable)
        latest = max(bet.pk for bets in standing.values() for bet in bets)
        if not everything and latest not in undoable:
            raise BetRefused("Your last bet is confirmed: confirmed bets cannot be undone.")
        chosen: dict[int, list[RoundBet]] = {}
        for bet in chosen_bets:
            chosen.setdefault(bet.spot_id, []).append(bet)
        return bets_return(round, spots, chosen, reason=ReturnReason.UNDO, label="undone by the player",
                           key=client_key(user=player, operation="bets_undo", key=idempotency_key), now=now,
                           actor_kind=ActorKind.PLAYER, actor=player)

    return request_once(user=player, key=idempotency_key, operation="bets_undo", round_id=round_id,
                        payload={"all": everything}, write=write)

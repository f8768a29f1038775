"""A common-draw cash bet in one round trip: the database function of rounds.placement_sql, or None.

None means "not here": the function takes only the common case and undoes whatever it wrote otherwise, and
bets_place then places the bet through the services (which explain every refusal). What this module checks
from the round's frozen config, without the database, is what the function relies on (its docstring).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from rounds import snapshots
from rounds.engine_adapter import SIDE_KINDS
from rounds.idempotency import key_check, request_fingerprint
from rounds.placement_sql import CALL_SQL, SPOT_PLACEHOLDER
from rounds.services.returns import CONFIRMING_PROFILE
from wallet import services as wallet
from wallet.keys import client_key
from wallet.models import Funding


def bet_place_one_statement(*, round_id: int, player, currency: str, bets: dict[str, int], idempotency_key,
                            now: datetime) -> dict[str, Any] | None:
    """Place a common-draw cash bet (main and side bets, no seat, no Golden Chips) in one statement: the
    result bets_place would return, or None when the services' path must place it."""
    if connection.vendor != "postgresql":
        return None
    found = snapshots.peek(round_id)  # the function checks it is this round's, under the round's lock
    if found is None:
        return None
    config = found.config
    if not config["common_draw"] or currency not in config["currencies"] or "golden_chip" in bets:
        return None
    if any(name in SIDE_KINDS and name not in config["side_bets"] for name in bets) or bets.get("main", 0) % 2:
        return None
    mins, maxs = [], []
    for name in bets:
        limit = config["limits"].get(name, {}).get(currency)
        if limit is None:
            return None
        mins.append(limit["min"])
        maxs.append(limit["max"])
    key = key_check(idempotency_key)
    fingerprint = request_fingerprint(operation="bets_place", round_id=round_id, payload={
        "seat": None, "behind": False, "currency": currency, "bets": bets})
    meta = {"game": config["name"], "round": round_id}
    fingerprint_text = wallet.bet_hold_fingerprint_text(player=player, reference=found.game_number, meta=meta, holds=[
        wallet.BetHoldSpec(amount=amount, currency=currency, funding=Funding.CASH, kind=name,
                           reference=found.game_number, meta={"round": round_id, "spot": SPOT_PLACEHOLDER})
        for name, amount in bets.items()
    ])
    confirm_blocks = config["profile"] == CONFIRMING_PROFILE and not config["features"].get("multiple_bets")
    with connection.cursor() as cursor:
        cursor.execute(CALL_SQL, [
            round_id, found.game_number, found.opened_at, player.pk, key, fingerprint, now, timezone.now(),
            currency, confirm_blocks, list(bets), list(bets.values()), mins, maxs,
            str(client_key(user=player, operation="bets_place", key=idempotency_key)), fingerprint_text,
            json.dumps(meta),
        ])
        result = cursor.fetchone()[0]
    if result is None:
        return None
    return json.loads(result) if isinstance(result, str) else result

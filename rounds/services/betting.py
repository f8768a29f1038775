"""Bets: place, repeat and double; a player's disconnect (confirmation and Deal Now: rounds.services.confirmation).

A Bet Behind is cash only; a side bet on a Bet Behind spot is allowed (the engine settles it like any side bet);
its limits are the side bet's. Repeat last bets needs an empty spot (no bet yet in this round); double all bets
doubles every bet type the player has placed so far, each capped at its maximum. Both apply every check of a
normal bet, all or nothing.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from casino.checks import amount_check
from responsible.checks import bet_allowed
from rounds import selectors
from rounds.audit import event_add
from rounds.engine_adapter import SIDE_KINDS
from rounds.errors import BetLimitError, BetRefused
from rounds.idempotency import request_once
from rounds.locks import SpotRow, round_lock, round_lock_for_bet, spot_ids_lock, spots_for_bet, spots_lock
from rounds.models import ActorKind, BetKind, Round, RoundBet, RoundState, Spot
from rounds.services._common import _now
from rounds.services.continuation import CONTINUED_STATES, _continuation_spots_start
from rounds.services.placement import bet_place_one_statement
from rounds.services.returns import _betting_open, confirmation_applies
from rounds.services.voids import _spots_void
from rounds.sql import round_bets_insert
from wallet import services as wallet
from wallet.errors import InsufficientFunds, UnknownAccount
from wallet.keys import client_key
from wallet.models import AccountKind, Funding
from wallet.selectors import player_balance

MAX_STAKE = 10**12
BET_NAMES = ("main", "golden_chip", *SIDE_KINDS)


def _bets_check(bets) -> dict[str, int]:
    if not isinstance(bets, dict) or not bets:
        raise BetRefused('Give at least one bet, e.g. {"main": 1000} (minor units).')
    cleaned: dict[str, int] = {}
    for name, amount in bets.items():
        if name not in BET_NAMES:
            raise BetRefused(f"Unknown bet {name!r}; bets are {', '.join(BET_NAMES)}.")
        cleaned[name] = amount_check(amount, what=f"{name} stake", maximum=MAX_STAKE, error=BetLimitError)
    return cleaned


def _money(amount: int, currency: str) -> str:
    from wallet.currencies import CURRENCIES, money_format

    return money_format(amount, currency) if currency in CURRENCIES else f"{amount} {currency} (minor units)"


def _spot_pick(spots: list[SpotRow], *, player, seat: int | None, behind: bool) -> SpotRow | None:
    for spot in spots:
        if seat is None:
            if spot.player_id == player.pk and spot.seat is None:
                return spot
        elif spot.seat == seat and spot.behind == behind and (not behind or spot.player_id == player.pk):
            return spot
    return None


def _spots_locked(round: Round, *, player, seat: int | None) -> tuple[list[SpotRow], dict[int, dict[str, int]]]:
    """The spots and stakes of the bet, read once every spot of the player's among them is locked.

    The caller locked the player's live spots (round_lock_for_bet); one created since by a twin request of the
    player's is locked here before its stakes are trusted."""
    while True:
        spots, stakes = spots_for_bet(round, player=player, seat=seat)
        unlocked = [s.pk for s in spots if s.player_id == player.pk and s.pk not in round.locked_spot_ids]
        if not unlocked:
            return spots, stakes
        round.locked_spot_ids |= spot_ids_lock(unlocked) | set(unlocked)


def _place(round: Round, *, player, seat, behind: bool, currency, bets: dict[str, int], key: str,
           now: datetime) -> dict[str, Any]:
    """Check and hold one placement on one spot. The caller holds the round FOR SHARE and the player's spots
    FOR UPDATE (round_lock_for_bet): the limits are checked on stakes no concurrent bet can add to, and a stake
    is attached only to a spot that is still live under its lock."""
    config = round.config
    rules = selectors.round_rules(round)
    _betting_open(round, now=now)
    if currency not in config["currencies"]:
        raise BetRefused(f"Table {config['code']} takes bets in {', '.join(config['currencies'])}, not {currency!r}.")
    if round.common_draw:
        if seat is not None or behind:
            raise BetRefused(f"Table {config['code']} is a common draw: there are no seats, bet without one.")
    elif isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= config["seats"]:
        raise BetRefused(f"Choose a seat from 1 to {config['seats']} at table {config['code']}, not {seat!r}.")
    features = config["features"]
    golden = bets.get("golden_chip", 0)
    if golden and not (features["golden_chips"] and rules.golden_chips):
        raise BetRefused(f"Table {config['code']} does not accept Golden Chips.")
    if behind and not (features["bet_behind"] and rules.bet_behind):
        raise BetRefused(f"Table {config['code']} offers no Bet Behind.")
    if behind and golden:
        raise BetRefused("A Bet Behind is made in cash; Golden Chips are only for a seat's main bet.")
    for name in bets:
        if name in SIDE_KINDS and name not in config["side_bets"]:
            raise BetRefused(f"Side bet {name} is not offered at table {config['code']}.")
    for name in ("main", "golden_chip"):
        if bets.get(name, 0) % 2:
            raise BetLimitError(
                f"A main bet must be an even number of minor units (3:2 and half-bet insurance pay exactly); "
                f"{bets[name]} is not."
            )

    spots, stakes = _spots_locked(round, player=player, seat=seat)
    spot = _spot_pick(spots, player=player, seat=seat, behind=behind)
    if behind:
        seat_spot = _spot_pick(spots, player=player, seat=seat, behind=False)
        if seat_spot is None:
            raise BetRefused(f"Seat {seat} has no player with a bet: a Bet Behind needs an occupied seat.")
        if seat_spot.player_id == player.pk:
            raise BetRefused("You cannot bet behind your own seat.")
        if seat_spot.dealt:
            raise BetRefused(f"The player on seat {seat} pressed Deal Now: the seat takes no more Bet Behind.")
    elif seat is not None:
        if spot is not None and spot.player_id != player.pk:
            raise BetRefused(f"Seat {seat} is taken by another player.")
        if spot is None:
            mine = next((s for s in spots if s.player_id == player.pk and not s.behind), None)
            if mine is not None and not features["multi_seat"]:
                raise BetRefused(f"You play seat {mine.seat}; table {config['code']} has no Multi Seat.")
    if (confirmation_applies(round) and not features.get("multiple_bets")
            and any(s.confirmed for s in spots if s.player_id == player.pk)):
        raise BetRefused(f"Your bets are confirmed: table {config['code']} takes no more bets from you this round "
                         "(it has no Multiple Bets).")
    if spot is not None and spot.currency != currency:
        raise BetRefused(f"Your bets on this spot are in {spot.currency}; every bet of a spot is in one currency.")

    kinds = {name: (BetKind.BET_BEHIND if behind and name == "main" else name) for name in bets}
    existing: dict[str, int] = defaultdict(int, stakes[spot.pk] if spot is not None else {})
    if (golden and existing[BetKind.MAIN]) or (bets.get("main") and not behind and existing[BetKind.GOLDEN_CHIP]):
        raise BetRefused("A spot's main bet is either cash or Golden Chips, not both.")
    main_after = sum(existing[k] for k in (BetKind.MAIN, BetKind.GOLDEN_CHIP, BetKind.BET_BEHIND)) + bets.get(
        "main", 0) + golden
    if main_after == 0:
        raise BetRefused("A side bet needs a main bet on the same spot.")
    for name, amount in bets.items():
        bet_type = kinds[name] if name != "golden_chip" else "main"
        limit = config["limits"].get(bet_type, {}).get(currency)
        if limit is None:
            raise BetRefused(f"Table {config['code']} has no {bet_type} limits in {currency}.")
        total = existing[kinds[name]] + amount
        if not limit["min"] <= total <= limit["max"]:
            raise BetLimitError(
                f"The {bet_type.replace('_', ' ')} at table {config['code']} must be between "
                f"{_money(limit['min'], currency)} and {_money(limit['max'], currency)}; "
                f"{_money(total, currency)} is not."
            )

    if spot is None:
        try:
            with transaction.atomic():
                created = Spot.objects.create(round=round, player=player, seat=seat, behind=behind,
                                              currency=currency, created_at=now)
        except IntegrityError:
            # A concurrent request created the spot first: the player's own (common draw, Bet Behind) is
            # placed again from the top; someone else's seat is taken.
            twin = _spot_pick(_spots_locked(round, player=player, seat=seat)[0], player=player, seat=seat,
                              behind=behind)
            if twin is None or twin.player_id != player.pk:
                raise BetRefused(f"Seat {seat} was just taken by another player.") from None
            return _place(round, player=player, seat=seat, behind=behind, currency=currency, bets=bets, key=key,
                          now=now)
        spot = SpotRow(created.pk, player.pk, seat, behind, currency)
        round.locked_spot_ids.add(created.pk)
    specs = [
        wallet.BetHoldSpec(
            amount=amount, currency=currency,
            funding=Funding.GOLDEN_CHIPS if name == "golden_chip" else Funding.CASH,
            kind=kinds[name], reference=round.game_number, meta={"round": round.pk, "spot": spot.pk},
        )
        for name, amount in bets.items()
    ]
    # Responsible gambling, after the round and spot locks: it takes the account lock before it reads the sums.
    bet_allowed(player=player, currency=currency, now=now,
                cash_amount=sum(spec.amount for spec in specs if spec.funding == Funding.CASH))
    try:
        held_bets = wallet.bet_hold(
            player=player, holds=specs, idempotency_key=key,
            reference=round.game_number, meta={"game": config["name"], "round": round.pk}, durable=False,
        )
    except (InsufficientFunds, UnknownAccount):
        _funds_refuse(player, currency, bets)
        raise
    bet_ids = round_bets_insert(round, spot.pk, currency, now, [
        (spec.kind, spec.amount, spec.funding, held.pk) for spec, held in zip(specs, held_bets, strict=True)
    ])
    event_add(round, "bets_placed", actor_kind=ActorKind.PLAYER, actor=player, at=now, payload={
        "spot": {"id": spot.pk, "player": player.pk, "seat": seat, "behind": behind, "currency": currency},
        "bets": [{"id": bet_id, "kind": spec.kind, "hand": 0, "amount": spec.amount, "funding": spec.funding,
                  "wallet_bet": held.pk} for bet_id, spec, held in zip(bet_ids, specs, held_bets, strict=True)],
    })
    return {"spot": spot.pk, "bets": bet_ids}


def _funds_refuse(player, currency: str, bets: dict[str, int]) -> None:
    """The wallet refused the hold: say which funds are short, from the player's side of the table."""
    for funding, kind, needed in (
        (Funding.CASH, AccountKind.PLAYER_CASH, sum(a for n, a in bets.items() if n != "golden_chip")),
        (Funding.GOLDEN_CHIPS, AccountKind.PLAYER_GOLDEN_CHIPS, bets.get("golden_chip", 0)),
    ):
        held = player_balance(player=player, currency=currency, kind=kind) if needed else 0
        if needed and held < needed:
            what = "Golden Chips" if funding == Funding.GOLDEN_CHIPS else "cash"
            raise InsufficientFunds(
                f"Insufficient funds: you hold {_money(held, currency)} in {what} but these bets need "
                f"{_money(needed, currency)}."
            )


def bets_place(*, round_id: int, player, currency: str, bets: dict[str, int], idempotency_key: str,
               seat: int | None = None, behind: bool = False, now: datetime | None = None) -> dict[str, Any]:
    """Place bets on one spot: {"main" | "golden_chip": n, side bet name: n} in minor units.

    `seat` for seated tables, `behind=True` for a Bet Behind on that seat ("main" is then the Bet Behind).
    Checks the state, limits, rules and balance; holds the stakes in the wallet in the same transaction.
    """
    bets = _bets_check(bets)
    if not isinstance(behind, bool):
        raise BetRefused("behind must be true or false.")
    if not isinstance(currency, str):
        raise BetRefused("currency must be an ISO code such as EUR.")
    now = _now(now)
    if seat is None and not behind:
        placed = bet_place_one_statement(round_id=round_id, player=player, currency=currency, bets=bets,
                                         idempotency_key=idempotency_key, now=now)
        if placed is not None:
            return placed

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=seat is not None)
        return _place(round, player=player, seat=seat, behind=behind, currency=currency, bets=bets,
                      key=client_key(user=player, operation="bets_place", key=idempotency_key), now=now)

    return request_once(user=player, key=idempotency_key, operation="bets_place", round_id=round_id,
                        payload={"seat": seat, "behind": behind, "currency": currency, "bets": bets}, write=write)


def bets_repeat(*, round_id: int, player, idempotency_key: str, now: datetime | None = None) -> dict[str, Any]:
    """Place again the opening bets of the player's latest earlier round at this table (all or nothing)."""
    now = _now(now)

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=True)
        if round.locked_spot_ids:
            raise BetRefused("You already have bets in this round: repeat is for an empty spot (use double).")
        placements = selectors.last_bets(table=round.table, player=player, before_round_id=round.pk)
        if not placements:
            raise BetRefused(f"You have no earlier bets at table {round.config['code']} to repeat.")
        return _places(round, player, placements, idempotency_key, now, operation="bets_repeat")

    return request_once(user=player, key=idempotency_key, operation="bets_repeat", round_id=round_id, payload={},
                        write=write)


def bets_double(*, round_id: int, player, idempotency_key: str, now: datetime | None = None) -> dict[str, Any]:
    """DOUBLE (2x): double every bet the player has placed in this round, each up to its maximum.

    A bet already at its maximum stays as it is; the double is refused only when no bet can grow or the balance
    cannot cover the whole increase (then nothing is placed).
    """
    now = _now(now)

    def write():
        round = round_lock_for_bet(round_id, player=player, all_spots=True)
        spots = Spot.objects.filter(pk__in=round.locked_spot_ids).order_by("id")
        placements = []
        for spot in spots:
            totals = RoundBet.objects.filter(spot=spot, returned__isnull=True).values_list("kind", "amount")
            bets: dict[str, int] = defaultdict(int)
            for kind, amount in totals:
                bets["main" if kind == BetKind.BET_BEHIND else kind] += amount
            increase = _double_increase(round.config, behind=spot.behind, currency=spot.currency, bets=bets)
            if increase:
                placements.append({"seat": spot.seat, "behind": spot.behind, "currency": spot.currency,
                                   "bets": increase})
        if not spots:
            raise BetRefused("You have no bets in this round to double.")
        if not placements:
            raise BetLimitError("Every one of your bets is already at the table's maximum: nothing to double.")
        _double_funds_check(player, placements)
        return _places(round, player, placements, idempotency_key, now, operation="bets_double")

    return request_once(user=player, key=idempotency_key, operation="bets_double", round_id=round_id, payload={},
                        write=write)


def _double_increase(config: dict[str, Any], *, behind: bool, currency: str, bets: dict[str, int]) -> dict[str, int]:
    """What doubling adds to each bet of one spot: the bet again, or what is left below its maximum."""
    increase = {}
    for name, amount in bets.items():
        bet_type = "main" if name == "golden_chip" else (BetKind.BET_BEHIND if behind and name == "main" else name)
        limit = config["limits"].get(bet_type, {}).get(currency)
        room = amount if limit is None else min(amount, limit["max"] - amount)
        if name in ("main", "golden_chip"):
            room -= room % 2  # a main bet stays an even number of minor units
        if room > 0:
            increase[name] = room
    return increase


def _double_funds_check(player, placements: list[dict]) -> None:
    """The balance must cover the increase of every bet at once (the Free Bet text's DOUBLE (2x))."""
    needed: dict[tuple[str, str], int] = defaultdict(int)
    for placement in placements:
        for name, amount in placement["bets"].items():
            needed[(placement["currency"], name == "golden_chip")] += amount
    for (currency, golden), amount in needed.items():
        kind = AccountKind.PLAYER_GOLDEN_CHIPS if golden else AccountKind.PLAYER_CASH
        held = player_balance(player=player, currency=currency, kind=kind)
        if held < amount:
            what = "Golden Chips" if golden else "cash"
            raise InsufficientFunds(
                f"Insufficient funds: doubling your bets needs {_money(amount, currency)} in {what}, "
                f"you hold {_money(held, currency)}."
            )


def _places(round: Round, player, placements: list[dict], key: str, now: datetime, *,
            operation: str) -> dict[str, Any]:
    # Seats before the Bet Behinds, so a player's own seats exist before anything is checked against them.
    results = []
    for index, placement in enumerate(sorted(placements, key=lambda p: (p["behind"], p["seat"] or 0))):
        results.append(_place(round, player=player, seat=placement["seat"], behind=placement["behind"],
                              currency=placement["currency"], bets=_bets_check(placement["bets"]),
                              key=client_key(user=player, operation=operation, key=f"{key}:{index}"), now=now))
    return {"spots": [r["spot"] for r in results], "bets": [b for r in results for b in r["bets"]]}


def player_disconnect(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """The player left; the table's `disconnect_policy` (rules.md, Disconnection) says what happens to the bets.

    `void_while_betting` and `non_live`: while betting is open the bets are void and refunded (a later
    reconnection brings nothing back). `bets_stand`: every bet stays, betting time included. After betting
    closes the bets stand under every policy and the timeout rule plays the absent player's hands.
    `non_live` after betting closes (until the dealer's hand is complete): each of the player's positions
    also leaves the live round in a non-live continuation (rounds.services.continuation).
    """
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id, shared=True)
        policy = selectors.round_rules(round).disconnect_policy
        spots = list(spots_lock(round=round, player=player))
        if round.state == RoundState.BETTING_OPEN and policy != "bets_stand":
            _spots_void(round, spots, reason="player disconnected while betting was open", now=now,
                        actor_kind=ActorKind.SYSTEM)
            refunded = True
        else:
            Spot.objects.filter(pk__in=[s.pk for s in spots], disconnected_at__isnull=True).update(
                disconnected_at=now)
            refunded = False
        event_add(round, "disconnected", actor_kind=ActorKind.SYSTEM, at=now,
                  payload={"player": player.pk, "spots": [s.pk for s in spots], "refunded": refunded,
                           "policy": policy, "state": round.state})
        continuations: list[int] = []
        if policy == "non_live" and round.state in CONTINUED_STATES and spots:
            continuations = _continuation_spots_start(round, selectors.round_record_load(round), spots, now=now)
    return {"spots": [s.pk for s in spots], "refunded": refunded, "policy": policy,
            "continuations": continuations}

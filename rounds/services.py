"""Every write of a round: opening, bets, cards, insurance, decisions, timers, settlement, voids and reversals.

Each public service is one `transaction.atomic(durable=True)`: the round's state change, its audit events and
the wallet's money movements (called with `durable=False`) commit together or not at all. Transitions are
compare-and-set updates (`filter(state=old).update(state=new)`); Celery work is queued with
`transaction.on_commit`, carrying the round id only.

Locks, always in this order: the round row, then spot rows by primary key, then (inside the wallet) player
accounts by primary key. Studio actions, timers and seated-table decisions take the round row FOR UPDATE;
bets, and decisions and insurance answers at common-draw tables, take it FOR SHARE, so thousands of players
act in parallel while a state change (betting close, timeouts) waits for them and they for it.

Decisions where the issue is silent:
- A round with no live bet when betting closes has nothing to deal: it goes straight to settling (and settles
  to nothing), so the table can open the next round.
- The studio posts cards without saying where they go: the server knows the next target (the deal order of
  the design notes, then whoever waits for a card, then the dealer). An explicit target must match it.
- An unknown card ("Zz") is bad input and is refused; a real card that cannot be there (a copy more than the
  shoe holds, counting the shoe's earlier non-void rounds) or a dealer card drawn on 17 or more is recorded as
  a fact and voids the round as a malfunction.
- A Bet Behind is cash only; a side bet on a Bet Behind spot is allowed (the engine settles it like any
  side bet); its limits are the side bet's.
- Insurance is answered per player and covers all of that player's insurable spots (cash main bet, not Bet
  Behind) — rules.md: insurance for a multi-seat player covers every other position.
- Repeat last bets needs an empty spot (no bet yet in this round); double all bets doubles every bet type the
  player has placed so far. Both apply every check of a normal bet, all or nothing.
- Common draw: a stream card is expected only when no player is still deciding, so everyone decides on the
  same cards; the decision timer restarts with each new stream card. Seated: the timer restarts at every
  decision point of the seat whose turn it is.
- While the table is paused, players and studio can do nothing but void; timers are frozen and restart in full
  on resume.
- Closing a table voids the round still being played there (not one already settling: its hand is complete).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, Expression, OuterRef, Subquery
from django.db.models.functions import JSONObject
from django.utils import timezone

from accounts.permissions import require_permission
from rounds import selectors, snapshots
from rounds.engine.cards import parse_card
from rounds.engine.dealer import dealer_needs_card, peeked_blackjack
from rounds.engine.errors import RoundError as EngineError
from rounds.engine.hands import hand_total
from rounds.engine.play import (
    DECISION,
    DOUBLE,
    FINISHED,
    HIT,
    HIT_AND_STAND,
    NEEDS_CARD,
    SPLIT,
    SPLIT_HAND_ONE,
    STAND,
    TIMEOUT,
)
from rounds.errors import (
    BetLimitError,
    BetRefused,
    CardRefused,
    DealerIncomplete,
    DecisionRefused,
    IdempotencyConflict,
    IllegalTransition,
    InvalidCard,
    InvalidRoundRequest,
    NotYourTurn,
    RoundAlreadySettled,
    RoundNotFound,
    TableNotPlaying,
)
from rounds.models import (
    ACTIVE_STATES,
    TRANSITIONS,
    ActorKind,
    BetKind,
    CardRecord,
    CardTarget,
    Decision,
    DecisionKind,
    Round,
    RoundBet,
    RoundEvent,
    RoundRequest,
    RoundState,
    Shoe,
    Spot,
    SpotStatus,
    VoidKind,
)
from rounds.record import (
    SIDE_KINDS,
    RoundRecord,
    active_seats,
    behind_has_hand,
    behind_unfunded,
    dealer_outlook,
    settle_record,
    settlement_summary,
    spot_turn,
    spot_unit,
    stake_totals,
    turn_status,
)
from tables import services as table_services
from tables.models import Table, TableState
from wallet import services as wallet
from wallet.errors import InsufficientFunds, UnknownAccount
from wallet.keys import client_key
from wallet.models import AccountKind, Funding
from wallet.selectors import player_balance

logger = logging.getLogger(__name__)

MAX_STAKE = 10**12
KEY_MAX_LENGTH = 120
REASON_MAX_LENGTH = 2000
PLAYER_ACTIONS = (HIT, STAND, DOUBLE, SPLIT)
BET_NAMES = ("main", "golden_chip", *SIDE_KINDS)
# A settle or void task not done this long after it was queued is queued again by the recovery sweep.
RECOVERY_GRACE_SECONDS = 30
STATUS_OF = {DECISION: SpotStatus.DECIDING, NEEDS_CARD: SpotStatus.NEEDS_CARD, FINISHED: SpotStatus.FINISHED}


# --- small helpers -------------------------------------------------------------------------------------------

def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _label(state: str) -> str:
    return RoundState(state).label.lower()


def _user(actor):
    return actor if getattr(actor, "pk", None) else None


def _event(round: Round, kind: str, *, actor_kind: str, actor=None, payload: dict | Expression | None = None,
           at: datetime | None = None) -> None:
    """Append to the round's audit trail: raw SQL for a plain payload (every bet and decision writes one),
    the ORM for one computed by the database."""
    at = at or timezone.now()
    if isinstance(payload, Expression):
        RoundEvent.objects.create(round=round, kind=kind, actor_kind=actor_kind, actor=_user(actor),
                                  payload=payload, at=at)
        return
    ops = connection.ops
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO rounds_roundevent (round_id, at, kind, actor_kind, actor_id, payload) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [round.pk, ops.adapt_datetimefield_value(at), kind, actor_kind, getattr(_user(actor), "pk", None),
             ops.adapt_json_value(payload or {}, None)],
        )


def _queue(task_name: str, round_id: int) -> None:
    from rounds import tasks

    task = getattr(tasks, task_name)

    def send() -> None:
        try:
            task.delay(round_id)
        except Exception:
            # The round's state is committed; the recovery sweep queues settles and refunds again.
            logger.exception("round %s: could not queue %s", round_id, task_name)

    transaction.on_commit(send)


# Every column but the frozen config (rounds.snapshots has it parsed), and the table's state in the same read.
_ROUND_COLUMNS = ", ".join(
    f"r.{field.column}" for field in Round._meta.concrete_fields if field.name != "config"
)
_ROUND_LOCK_SQL = (
    f"SELECT {_ROUND_COLUMNS}, t.state AS table_state FROM rounds_round r "
    "JOIN tables_table t ON t.id = r.table_id WHERE r.id = %s"
)


def _round_lock(round_id: int, *, shared: bool = False) -> Round:
    """The round row locked (FOR SHARE or FOR UPDATE), with its config and its table's state as read then."""
    if not isinstance(round_id, int) or isinstance(round_id, bool):
        raise RoundNotFound(f"No round has the id {round_id!r}.")
    lock = ""
    if connection.features.has_select_for_update:
        lock = " FOR SHARE OF r" if shared else " FOR UPDATE OF r"
    rows = list(Round.objects.raw(_ROUND_LOCK_SQL + lock, [round_id]))
    if not rows:
        raise RoundNotFound(f"No round has the id {round_id}.")
    round = rows[0]
    snapshots.snapshot(round)
    return round


def _reason_check(reason) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidRoundRequest("A reason is required.")
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidRoundRequest(f"A reason has at most {REASON_MAX_LENGTH} characters.")
    return reason.strip()


def _key_check(key) -> str:
    if not isinstance(key, str) or not key.strip():
        raise InvalidRoundRequest("An idempotency key is required (a non-empty string, e.g. a UUID).")
    if len(key) > KEY_MAX_LENGTH:
        raise InvalidRoundRequest(f"An idempotency key has at most {KEY_MAX_LENGTH} characters.")
    return key


def _studio_check(actor) -> None:
    # None is the system (timers, sweeps); a person must be staff who runs tables.
    if actor is not None:
        require_permission(actor, "configure_tables")


def _table_playing(round: Round) -> None:
    state = getattr(round, "table_state", None)
    if state is None:
        state = Table.objects.filter(pk=round.table_id).values_list("state", flat=True).first()
    if state != TableState.OPEN:
        raise TableNotPlaying(
            f"Table {round.config['code']} is {state}: round {round.game_number} waits until it is resumed."
        )


def _transition(round: Round, to: str, *, now: datetime, actor_kind: str, actor=None, reason: str = "",
                **fields) -> None:
    """Compare-and-set the round's state; refuse a transition the state machine does not allow."""
    current = round.state
    if to not in TRANSITIONS[current]:
        raise IllegalTransition(f"Round {round.game_number} is {_label(current)}: it cannot become {_label(to)}.")
    updated = Round.objects.filter(pk=round.pk, state=current).update(state=to, **fields)
    if updated != 1:
        raise IllegalTransition(f"Round {round.game_number} changed meanwhile; reload it and try again.")
    round.state = to
    for name, value in fields.items():
        setattr(round, name, value)
    payload = {"from": current, "to": to} | ({"reason": reason} if reason else {})
    _event(round, "state", actor_kind=actor_kind, actor=actor, payload=payload, at=now)


def _round_set(round: Round, **fields) -> None:
    Round.objects.filter(pk=round.pk).update(**fields)
    for name, value in fields.items():
        setattr(round, name, value)


def _seconds(round: Round, timer: str) -> int:
    return int(round.config["timers"][timer])


def _idempotent(*, user, key, operation: str, round_id: int, payload: dict, write) -> dict[str, Any]:
    """Run write() once per (user, key): a repeat returns the first result; other content is a conflict."""
    key = _key_check(key)
    fingerprint = hashlib.sha256(
        json.dumps([operation, round_id, payload], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    ops = connection.ops
    try:
        with transaction.atomic(durable=True), connection.cursor() as cursor:
            # Inserted first: a concurrent twin with the same key waits here and then replays.
            cursor.execute(
                "INSERT INTO rounds_roundrequest (user_id, key, operation, fingerprint, round_id, result, "
                "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
                [user.pk, key, operation, fingerprint, round_id, ops.adapt_json_value({}, None),
                 ops.adapt_datetimefield_value(timezone.now())],
            )
            request_id = cursor.fetchone()[0]
            result = write()
            cursor.execute("UPDATE rounds_roundrequest SET result = %s WHERE id = %s",
                           [ops.adapt_json_value(result, None), request_id])
            return result
    except IntegrityError:
        first = RoundRequest.objects.filter(user=user, operation=operation, key=key).first()
        if first is None:
            raise
    if first.fingerprint != fingerprint:
        raise IdempotencyConflict(
            f"The idempotency key {key!r} was already used for a different request ({first.operation}); "
            "use a new key for a new request."
        ) from None
    return {**first.result, "replayed": True}


# --- shoes and opening -------------------------------------------------------------------------------------

def shoe_start(*, table: Table, actor=None, burn_card: str = "", now: datetime | None = None) -> Shoe:
    """A fresh shoe at the table; with the new-shoe burn the shown card says how many were burned."""
    _studio_check(actor)
    now = _now(now)
    shown = None
    if burn_card:
        try:
            shown = parse_card(burn_card)
        except EngineError as error:
            raise InvalidCard(f"{error}: cards are a rank of A23456789TJQK and a suit of shdc, e.g. Ah.") from None
    with transaction.atomic(durable=True):
        fresh = Table.objects.select_for_update().get(pk=table.pk)
        active = Round.objects.filter(table=fresh, state__in=ACTIVE_STATES).first()
        if active is not None:
            raise IllegalTransition(f"Round {active.game_number} is being played: change the shoe after it.")
        if shown is not None and not fresh.new_shoe_burn:
            raise InvalidRoundRequest(f"Table {fresh.code} does not burn cards on a new shoe.")
        last = Shoe.objects.filter(table=fresh).order_by("-number").first()
        Shoe.objects.filter(table=fresh, ended_at__isnull=True).update(ended_at=now)
        return Shoe.objects.create(
            table=fresh, number=(last.number + 1) if last else 1, decks=fresh.decks, started_at=now,
            started_by=_user(actor), burn_card=str(shown) if shown else "",
            burned=shown.points if shown else 0,
        )


def _game_number(code: str, at: datetime) -> str:
    """Table code + UTC start to the second; a second round of the same table in the same second gets -2..."""
    base = f"{code}-{at.astimezone(UTC):%Y%m%d-%H%M%S}"
    taken = set(Round.objects.filter(game_number__startswith=base).values_list("game_number", flat=True))
    if base not in taken:
        return base
    suffix = 2
    while f"{base}-{suffix}" in taken:
        suffix += 1
    return f"{base}-{suffix}"


def round_open(*, table: Table, actor=None, now: datetime | None = None) -> Round:
    """Open betting on a new round at an open table, with the table's configuration frozen into the round."""
    _studio_check(actor)
    now = _now(now)
    with transaction.atomic(durable=True):
        # The table row lock serialises opens per table: one active round, deterministic game numbers.
        fresh = Table.objects.select_for_update().get(pk=table.pk)
        if fresh.state != TableState.OPEN:
            raise TableNotPlaying(f"Table {fresh.code} is {fresh.state}: open it before opening a round.")
        active = Round.objects.filter(table=fresh, state__in=ACTIVE_STATES).first()
        if active is not None:
            raise IllegalTransition(f"Round {active.game_number} is still being played at table {fresh.code}.")
        config = table_services.table_config_snapshot(fresh)
        shoe = Shoe.objects.filter(table=fresh, ended_at__isnull=True).first()
        if shoe is None:
            shoe = Shoe.objects.create(table=fresh, number=1, decks=fresh.decks, started_at=now,
                                       started_by=_user(actor))
        round = Round.objects.create(
            table=fresh, shoe=shoe, game_number=_game_number(fresh.code, now), state=RoundState.BETTING_OPEN,
            config=config, config_version=config["version"], opened_at=now, opened_by=_user(actor),
            deadline=now + timedelta(seconds=config["timers"]["betting_seconds"]),
        )
        _event(round, "opened", actor_kind=ActorKind.DEALER if actor else ActorKind.SYSTEM, actor=actor, at=now,
               payload={"game_number": round.game_number, "table": fresh.code, "shoe": shoe.number,
                        "config": config})
    return round


# --- bets ----------------------------------------------------------------------------------------------------

def _bets_check(bets) -> dict[str, int]:
    if not isinstance(bets, dict) or not bets:
        raise BetRefused('Give at least one bet, e.g. {"main": 1000} (minor units).')
    cleaned: dict[str, int] = {}
    for name, amount in bets.items():
        if name not in BET_NAMES:
            raise BetRefused(f"Unknown bet {name!r}; bets are {', '.join(BET_NAMES)}.")
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_STAKE:
            raise BetLimitError(f"The {name} stake must be a positive whole number of minor units, not {amount!r}.")
        cleaned[name] = amount
    return cleaned


def _money(amount: int, currency: str) -> str:
    from wallet.currencies import CURRENCIES, money_format

    return money_format(amount, currency) if currency in CURRENCIES else f"{amount} {currency} (minor units)"


class _SpotRow(NamedTuple):
    pk: int
    player_id: int
    seat: int | None
    behind: bool
    currency: str


_SPOTS_SQL = (
    "SELECT s.id, s.player_id, s.seat, s.behind, s.currency, b.kind, CAST(SUM(b.amount) AS BIGINT) "
    "FROM rounds_spot s LEFT JOIN rounds_roundbet b ON b.spot_id = s.id WHERE s.round_id = %s "
    "AND s.voided_at IS NULL AND {spots} GROUP BY s.id, s.player_id, s.seat, s.behind, s.currency, b.kind "
    "ORDER BY s.id"
)
# One statement per case, each matching a partial index even as a generic prepared plan: an OR of both cases
# made PostgreSQL read every spot of a 10,000-player round for each bet.
_SPOTS_COMMON_DRAW_SQL = _SPOTS_SQL.format(spots="s.player_id = %s AND s.seat IS NULL")
_SPOTS_SEATED_SQL = _SPOTS_SQL.format(spots="(s.player_id = %s OR (s.seat = %s AND NOT s.behind))")


def _spots_for_bet(round: Round, *, player, seat: int | None) -> tuple[list[_SpotRow], dict[int, dict[str, int]]]:
    """The player's live spots and the seat's own spot, with the stakes already on each, in one read."""
    with connection.cursor() as cursor:
        if seat is None:
            cursor.execute(_SPOTS_COMMON_DRAW_SQL, [round.pk, player.pk])
        else:
            cursor.execute(_SPOTS_SEATED_SQL, [round.pk, player.pk, seat])
        rows = cursor.fetchall()
    spots: dict[int, _SpotRow] = {}
    stakes: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for spot_id, player_id, spot_seat, spot_behind, spot_currency, kind, amount in rows:
        spots.setdefault(spot_id, _SpotRow(spot_id, player_id, spot_seat, bool(spot_behind), spot_currency))
        if kind is not None:
            stakes[spot_id][kind] += amount
    return list(spots.values()), stakes


def _spot_pick(spots: list[_SpotRow], *, player, seat: int | None, behind: bool) -> _SpotRow | None:
    for spot in spots:
        if seat is None:
            if spot.player_id == player.pk and spot.seat is None:
                return spot
        elif spot.seat == seat and spot.behind == behind and (not behind or spot.player_id == player.pk):
            return spot
    return None


def _place(round: Round, *, player, seat, behind: bool, currency, bets: dict[str, int], key: str,
           now: datetime) -> dict[str, Any]:
    """Check and hold one placement on one spot (the caller holds the round FOR SHARE in betting)."""
    config = round.config
    rules = selectors.round_rules(round)
    if round.state != RoundState.BETTING_OPEN:
        raise IllegalTransition(f"Betting is closed for round {round.game_number}.")
    if round.deadline is not None and now >= round.deadline:
        raise IllegalTransition(f"Betting time for round {round.game_number} is over.")
    _table_playing(round)
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

    spots, stakes = _spots_for_bet(round, player=player, seat=seat)
    spot = _spot_pick(spots, player=player, seat=seat, behind=behind)
    if behind:
        seat_spot = _spot_pick(spots, player=player, seat=seat, behind=False)
        if seat_spot is None:
            raise BetRefused(f"Seat {seat} has no player with a bet: a Bet Behind needs an occupied seat.")
        if seat_spot.player_id == player.pk:
            raise BetRefused("You cannot bet behind your own seat.")
    elif seat is not None:
        if spot is not None and spot.player_id != player.pk:
            raise BetRefused(f"Seat {seat} is taken by another player.")
        if spot is None:
            mine = next((s for s in spots if s.player_id == player.pk and not s.behind), None)
            if mine is not None and not features["multi_seat"]:
                raise BetRefused(f"You play seat {mine.seat}; table {config['code']} has no Multi Seat.")
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
            twin = _spot_pick(_spots_for_bet(round, player=player, seat=seat)[0], player=player, seat=seat,
                              behind=behind)
            if twin is None or twin.player_id != player.pk:
                raise BetRefused(f"Seat {seat} was just taken by another player.") from None
            return _place(round, player=player, seat=seat, behind=behind, currency=currency, bets=bets, key=key,
                          now=now)
        spot = _SpotRow(created.pk, player.pk, seat, behind, currency)
    specs = [
        wallet.BetHoldSpec(
            amount=amount, currency=currency,
            funding=Funding.GOLDEN_CHIPS if name == "golden_chip" else Funding.CASH,
            kind=kinds[name], reference=round.game_number, meta={"round": round.pk, "spot": spot.pk},
        )
        for name, amount in bets.items()
    ]
    try:
        held_bets = wallet.bet_hold(
            player=player, holds=specs, idempotency_key=key,
            reference=round.game_number, meta={"game": config["name"], "round": round.pk}, durable=False,
        )
    except (InsufficientFunds, UnknownAccount):
        _funds_refuse(player, currency, bets)
        raise
    bet_ids = _round_bets_insert(round, spot.pk, currency, now, [
        (spec.kind, spec.amount, spec.funding, held.pk) for spec, held in zip(specs, held_bets, strict=True)
    ])
    _event(round, "bets_placed", actor_kind=ActorKind.PLAYER, actor=player, at=now, payload={
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


_BET_COLUMNS = "round_id, spot_id, kind, hand_index, amount, currency, funding, wallet_bet_id, created_at"


def _round_bets_insert(round: Round, spot_id: int, currency: str, now: datetime,
                       bets: list[tuple[str, int, str, int]]) -> list[int]:
    """Insert the round's bets (kind, amount, funding, wallet bet) in one statement; their ids in that order."""
    at = connection.ops.adapt_datetimefield_value(now)
    values = ", ".join(["(%s, %s, %s, 0, %s, %s, %s, %s, %s)"] * len(bets))
    params = [p for kind, amount, funding, wallet_bet in bets
              for p in (round.pk, spot_id, kind, amount, currency, funding, wallet_bet, at)]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO rounds_roundbet ({_BET_COLUMNS}) VALUES {values} RETURNING id", params)
        return [row[0] for row in cursor.fetchall()]


def _bet_payload(bet: RoundBet) -> dict[str, Any]:
    return {"id": bet.pk, "kind": bet.kind, "hand": bet.hand_index, "amount": bet.amount, "funding": bet.funding,
            "wallet_bet": bet.wallet_bet_id}


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

    def write():
        round = _round_lock(round_id, shared=True)
        return _place(round, player=player, seat=seat, behind=behind, currency=currency, bets=bets,
                      key=client_key(user=player, operation="bets_place", key=idempotency_key), now=now)

    return _idempotent(user=player, key=idempotency_key, operation="bets_place", round_id=round_id,
                       payload={"seat": seat, "behind": behind, "currency": currency, "bets": bets}, write=write)


def bets_repeat(*, round_id: int, player, idempotency_key: str, now: datetime | None = None) -> dict[str, Any]:
    """Place again the opening bets of the player's latest earlier round at this table (all or nothing)."""
    now = _now(now)

    def write():
        round = _round_lock(round_id, shared=True)
        if Spot.objects.filter(round=round, player=player, voided_at__isnull=True).exists():
            raise BetRefused("You already have bets in this round: repeat is for an empty spot (use double).")
        placements = selectors.last_bets(table=round.table, player=player, before_round_id=round.pk)
        if not placements:
            raise BetRefused(f"You have no earlier bets at table {round.config['code']} to repeat.")
        return _places(round, player, placements, idempotency_key, now, operation="bets_repeat")

    return _idempotent(user=player, key=idempotency_key, operation="bets_repeat", round_id=round_id, payload={},
                       write=write)


def bets_double(*, round_id: int, player, idempotency_key: str, now: datetime | None = None) -> dict[str, Any]:
    """Double every bet the player has placed in this round (all or nothing)."""
    now = _now(now)

    def write():
        round = _round_lock(round_id, shared=True)
        spots = Spot.objects.filter(round=round, player=player, voided_at__isnull=True).order_by("id")
        placements = []
        for spot in spots:
            totals = RoundBet.objects.filter(spot=spot).values_list("kind", "amount")
            bets: dict[str, int] = defaultdict(int)
            for kind, amount in totals:
                bets["main" if kind == BetKind.BET_BEHIND else kind] += amount
            placements.append({"seat": spot.seat, "behind": spot.behind, "currency": spot.currency,
                               "bets": dict(bets)})
        if not placements:
            raise BetRefused("You have no bets in this round to double.")
        return _places(round, player, placements, idempotency_key, now, operation="bets_double")

    return _idempotent(user=player, key=idempotency_key, operation="bets_double", round_id=round_id, payload={},
                       write=write)


def _places(round: Round, player, placements: list[dict], key: str, now: datetime, *,
            operation: str) -> dict[str, Any]:
    # Seats before the Bet Behinds, so a player's own seats exist before anything is checked against them.
    results = []
    for index, placement in enumerate(sorted(placements, key=lambda p: (p["behind"], p["seat"] or 0))):
        results.append(_place(round, player=player, seat=placement["seat"], behind=placement["behind"],
                              currency=placement["currency"], bets=_bets_check(placement["bets"]),
                              key=client_key(user=player, operation=operation, key=f"{key}:{index}"), now=now))
    return {"spots": [r["spot"] for r in results], "bets": [b for r in results for b in r["bets"]]}


def _spots_void(round: Round, spots: list[Spot], *, reason: str, now: datetime, actor_kind: str,
                actor=None) -> None:
    """Refund every bet of these spots at once (betting still open, or a Bet Behind whose seat has no bet)."""
    if not spots:
        return
    bets = list(RoundBet.objects.filter(spot__in=spots).order_by("id"))
    txn = None
    if bets:
        txn = wallet.bet_void(
            bet_ids=[bet.wallet_bet_id for bet in bets], reason=reason, reference=round.game_number,
            idempotency_key=f"round{round.pk}:void-spots:{','.join(str(s.pk) for s in spots)}",
            meta={"round": round.pk}, durable=False,
        )
    Spot.objects.filter(pk__in=[s.pk for s in spots]).update(voided_at=now, void_reason=reason[:200])
    for spot in spots:
        _event(round, "spot_voided", actor_kind=actor_kind, actor=actor, at=now, payload={
            "spot": spot.pk, "reason": reason, "bets": [b.pk for b in bets if b.spot_id == spot.pk],
            "wallet_transaction": txn.pk if txn else None,
        })


def player_disconnect(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """The player left. Betting open: their bets are void and refunded. Later: they stand, timeouts decide."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round = _round_lock(round_id, shared=True)
        spots = list(Spot.objects.select_for_update().filter(round=round, player=player, voided_at__isnull=True)
                     .order_by("id"))
        if round.state == RoundState.BETTING_OPEN:
            _spots_void(round, spots, reason="player disconnected while betting was open", now=now,
                        actor_kind=ActorKind.SYSTEM)
            refunded = True
        else:
            Spot.objects.filter(pk__in=[s.pk for s in spots], disconnected_at__isnull=True).update(
                disconnected_at=now)
            refunded = False
        _event(round, "disconnected", actor_kind=ActorKind.SYSTEM, at=now,
               payload={"player": player.pk, "spots": [s.pk for s in spots], "refunded": refunded})
    return {"spots": [s.pk for s in spots], "refunded": refunded}


def betting_confirm(*, round_id: int, player, now: datetime | None = None) -> dict[str, Any]:
    """Deal Now: the player confirms their bets; when every seated player has, betting closes early."""
    now = _now(now)
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        rules = selectors.round_rules(round)
        if round.state != RoundState.BETTING_OPEN:
            raise IllegalTransition(f"Betting is closed for round {round.game_number}.")
        _table_playing(round)
        if not (rules.deal_now and round.config["features"]["deal_now"]):
            raise BetRefused(f"Table {round.config['code']} has no Deal Now.")
        mine = Spot.objects.filter(round=round, player=player, behind=False, voided_at__isnull=True)
        if not mine.exists():
            raise BetRefused("Only a seated player with a bet can confirm.")
        mine.filter(confirmed_at__isnull=True).update(confirmed_at=now)
        _event(round, "confirmed", actor_kind=ActorKind.PLAYER, actor=player, at=now, payload={"player": player.pk})
        waiting = Spot.objects.filter(round=round, behind=False, voided_at__isnull=True, confirmed_at__isnull=True)
        closed = not waiting.exists()
        if closed:
            _betting_close(round, now=now, actor_kind=ActorKind.SYSTEM, reason="deal now: every player confirmed")
    return {"confirmed": True, "betting_closed": closed}


# --- betting close and the deal ------------------------------------------------------------------------------

def _betting_close(round: Round, *, now: datetime, actor_kind: str, actor=None, reason: str) -> None:
    _transition(round, RoundState.BETTING_CLOSED, now=now, actor_kind=actor_kind, actor=actor, reason=reason,
                betting_closed_at=now, deadline=None)
    live = Spot.objects.filter(round=round, voided_at__isnull=True)
    seated = set(live.filter(behind=False, seat__isnull=False).values_list("seat", flat=True))
    orphans = list(live.filter(behind=True).exclude(seat__in=seated).order_by("id"))
    _spots_void(round, orphans, reason="the seat player placed no bet", now=now, actor_kind=ActorKind.SYSTEM)
    if not live.exists():
        _transition(round, RoundState.SETTLING, now=now, actor_kind=ActorKind.SYSTEM, reason="no bets",
                    settling_at=now)
        _queue("round_settle", round.pk)


def round_betting_close(*, round_id: int, actor=None, now: datetime | None = None) -> Round:
    """The studio (or the betting timer) closes betting."""
    _studio_check(actor)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        _table_playing(round)
        _betting_close(round, now=now, actor_kind=ActorKind.DEALER if actor else ActorKind.SYSTEM, actor=actor,
                       reason="betting closed by the studio" if actor else "betting time over")
    return round


def _deal_order(round: Round, record: RoundRecord) -> list[tuple[str, int]]:
    hole = [(CardTarget.DEALER, 0)] if record.rules.has_hole_card else []
    if round.common_draw:
        return [(CardTarget.PLAYER, 0), (CardTarget.DEALER, 0), (CardTarget.PLAYER, 0)] + hole
    order: list[tuple[str, int]] = []
    for seat in active_seats(record):
        order += [(CardTarget.SEAT, seat), (CardTarget.SEAT, seat)]
    return order + [(CardTarget.DEALER, 0)] + hole


def _cards_recorded(record: RoundRecord) -> int:
    return sum(len(cards) for cards in record.cards.values())


def _expected_card(round: Round, record: RoundRecord) -> tuple[str, int]:
    """Where the next card goes, or a clear refusal saying what the round waits for."""
    state = round.state
    if state in (RoundState.BETTING_CLOSED, RoundState.DEALING):
        order = _deal_order(round, record)
        dealt = _cards_recorded(record)
        if dealt < len(order):
            return order[dealt]
        raise CardRefused(f"The initial deal of round {round.game_number} is complete.")
    if state == RoundState.DECISIONS:
        if round.common_draw:
            statuses = selectors.spot_statuses(round=round)
            if statuses.get(SpotStatus.DECIDING):
                raise CardRefused(
                    f"{statuses[SpotStatus.DECIDING]} player(s) are still deciding; the next stream card comes "
                    "when every player has decided or the decision timer ends."
                )
            stream = len(record.cards.get((CardTarget.STREAM, 0), []))
            if Spot.objects.filter(round=round, status=SpotStatus.NEEDS_CARD, need_index=stream,
                                   voided_at__isnull=True).exists():
                return CardTarget.STREAM, 0
            raise CardRefused("No player is waiting for a card.")
        spot = Spot.objects.filter(round=round, seat=round.turn_seat, behind=False, voided_at__isnull=True).first()
        if spot is not None and spot.status == SpotStatus.NEEDS_CARD:
            return CardTarget.SEAT, spot.seat
        raise CardRefused(f"Seat {round.turn_seat} is deciding; its next card comes after its decision.")
    if state == RoundState.DEALER:
        dealer = record.dealer_cards
        if len(dealer) >= 2 and hand_total(dealer) >= 17:
            # Recorded anyway: a dealer drawing on 17 is a malfunction, not a typo to refuse.
            return CardTarget.DEALER, 0
        any_live, needs_second = dealer_outlook(record)
        if len(dealer) >= 2 and not any_live:
            raise CardRefused("No hand is live: the dealer draws no further card. Complete the dealer's hand.")
        if len(dealer) < 2 and not dealer_needs_card(record.rules, dealer, any_live_hand=any_live,
                                                     needs_second=needs_second):
            raise CardRefused("The dealer's second card is not needed: complete the dealer's hand.")
        return CardTarget.DEALER, 0
    if state == RoundState.INSURANCE:
        raise CardRefused(f"Round {round.game_number} waits for the players' insurance answers.")
    raise CardRefused(f"No card is expected while round {round.game_number} is {_label(state)}.")


def _malfunction(round: Round, *, card: str, record: RoundRecord, target: str) -> str | None:
    decks = round.shoe.decks
    # Counted before this card is written: the earlier non-void rounds of the shoe, this round, the burn card.
    copies = CardRecord.objects.filter(round__shoe_id=round.shoe_id, card=card).exclude(
        round__state=RoundState.VOIDED).count() + (1 if round.shoe.burn_card == card else 0) + 1
    if copies > decks:
        return f"card {card} appears {copies} times in shoe {round.shoe.number}, but {decks} decks hold {decks}"
    if target == CardTarget.DEALER:
        before = record.dealer_cards
        if len(before) >= 2 and hand_total(before) >= 17:
            return f"the dealer drew {card} on {hand_total(before)}, but stands on 17 or more"
    return None


def card_record(*, round_id: int, card: str, actor=None, target: str | None = None, seat: int | None = None,
                now: datetime | None = None) -> dict[str, Any]:
    """Record the next card from the table. Returns {"target", "seat", "state", "malfunction"}."""
    _studio_check(actor)
    now = _now(now)
    try:
        parsed = parse_card(card)
    except EngineError as error:
        raise InvalidCard(f"{error}: cards are a rank of A23456789TJQK and a suit of shdc, e.g. Ah.") from None
    if target is not None and target not in CardTarget.values:
        raise InvalidRoundRequest(f"target must be one of {', '.join(CardTarget.values)}, not {target!r}.")
    actor_kind = ActorKind.DEALER if actor else ActorKind.SYSTEM
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        _table_playing(round)
        if round.state == RoundState.DECISIONS:
            _progress(round, now=now, new_step=False)
        record = selectors.round_record_load(round)
        where = _expected_card(round, record)
        if target is not None and (target, seat if target == CardTarget.SEAT else 0) != where:
            raise CardRefused(f"The next card goes to {_where(where)}, not to {_where((target, seat or 0))}.")
        text = str(parsed)
        malfunction = _malfunction(round, card=text, record=record, target=where[0])
        sequence = len(record.cards.get(where, [])) + 1
        CardRecord.objects.create(round=round, position=_cards_recorded(record) + 1, target=where[0],
                                  seat=where[1], sequence=sequence, card=text, recorded_at=now,
                                  recorded_by=_user(actor))
        record.cards.setdefault(where, []).append(text)
        _event(round, "card", actor_kind=actor_kind, actor=actor, at=now, payload={
            "target": where[0], "seat": where[1], "sequence": sequence, "card": text,
        })
        if malfunction:
            _event(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": malfunction})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {malfunction}", actor=None, now=now)
        elif round.state == RoundState.BETTING_CLOSED or round.state == RoundState.DEALING:
            if round.state == RoundState.BETTING_CLOSED:
                _transition(round, RoundState.DEALING, now=now, actor_kind=actor_kind, actor=actor)
            if _cards_recorded(record) == len(_deal_order(round, record)):
                _after_deal(round, record, now=now)
        elif round.state == RoundState.DECISIONS:
            _card_to_players(round, record, where, now=now)
    return {"target": where[0], "seat": where[1] or None, "card": text, "state": round.state,
            "malfunction": malfunction or ""}


def _where(where: tuple[str, int]) -> str:
    target, seat = where
    return f"seat {seat}" if target == CardTarget.SEAT else {"dealer": "the dealer", "player": "the players",
                                                              "stream": "the stream"}.get(target, target)


def _insurable(record: RoundRecord) -> list[int]:
    spots = []
    for spot in record.live_spots():
        totals = stake_totals(record, spot.id)
        if not spot.behind and totals[BetKind.MAIN] and not totals[BetKind.GOLDEN_CHIP]:
            spots.append(spot.id)
    return spots


def _after_deal(round: Round, record: RoundRecord, *, now: datetime) -> None:
    rules = record.rules
    up = record.dealer_cards[0]
    if rules.insurance and up.is_ace and _insurable(record):
        _transition(round, RoundState.INSURANCE, now=now, actor_kind=ActorKind.SYSTEM,
                    deadline=now + timedelta(seconds=_seconds(round, "decision_seconds")))
        return
    _after_insurance(round, record, now=now)


def _after_insurance(round: Round, record: RoundRecord, *, now: datetime) -> None:
    if peeked_blackjack(record.rules, record.dealer_cards):
        _transition(round, RoundState.SETTLING, now=now, actor_kind=ActorKind.SYSTEM,
                    reason="the dealer's peek found a blackjack", deadline=None, settling_at=now)
        _queue("round_settle", round.pk)
        return
    _transition(round, RoundState.DECISIONS, now=now, actor_kind=ActorKind.SYSTEM, deadline=None)
    spots = list(Spot.objects.filter(round=round, voided_at__isnull=True).order_by("id"))
    _spots_refresh(record, spots)
    _progress(round, now=now, new_step=True)


def _spots_refresh(record: RoundRecord, spots: list[Spot]) -> None:
    """Recompute the cached play status of these spots (and of the Bet Behinds of their seats)."""
    changed = []
    by_seat: dict[int, tuple[str, int | None]] = {}
    for spot in spots:
        if spot.behind:
            continue
        status, need = turn_status(spot_turn(record, record.spot(spot.pk)))
        new = (STATUS_OF[status], need)
        if spot.seat is not None:
            by_seat[spot.seat] = new
        if (spot.status, spot.need_index) != new:
            spot.status, spot.need_index = new
            changed.append(spot)
    if by_seat:
        for behind in Spot.objects.filter(round_id=spots[0].round_id, behind=True, seat__in=list(by_seat),
                                          voided_at__isnull=True):
            behind.status, behind.need_index = by_seat[behind.seat]
            changed.append(behind)
    if changed:
        Spot.objects.bulk_update(changed, ["status", "need_index"])


def _progress(round: Round, *, now: datetime, new_step: bool) -> None:
    """After a decision or a card: whose turn, the decision timer, and the dealer once everyone is done."""
    if round.state != RoundState.DECISIONS:
        return
    statuses = selectors.spot_statuses(round=round)
    unfinished = sum(n for status, n in statuses.items() if status != SpotStatus.FINISHED)
    if not unfinished:
        _transition(round, RoundState.DEALER, now=now, actor_kind=ActorKind.SYSTEM, deadline=None, turn_seat=None)
        return
    seconds = timedelta(seconds=_seconds(round, "decision_seconds"))
    if round.common_draw:
        if not statuses.get(SpotStatus.DECIDING):
            _round_set(round, deadline=None)
        elif new_step or round.deadline is None:
            _round_set(round, deadline=now + seconds)
        return
    turn = (
        Spot.objects.filter(round=round, behind=False, voided_at__isnull=True)
        .exclude(status=SpotStatus.FINISHED).order_by("seat").first()
    )
    _round_set(round, turn_seat=turn.seat,
               deadline=now + seconds if turn.status == SpotStatus.DECIDING else None)


def _card_to_players(round: Round, record: RoundRecord, where: tuple[str, int], *, now: datetime) -> None:
    if where[0] == CardTarget.STREAM:
        index = len(record.cards[where]) - 1
        waiting = list(Spot.objects.filter(round=round, status=SpotStatus.NEEDS_CARD, need_index=index,
                                           behind=False, voided_at__isnull=True).order_by("id"))
        _spots_refresh(record, waiting)
    else:
        seat_spots = list(Spot.objects.filter(round=round, seat=where[1], behind=False, voided_at__isnull=True))
        _spots_refresh(record, seat_spots)
    _progress(round, now=now, new_step=True)


# --- insurance -----------------------------------------------------------------------------------------------

def insurance_decide(*, round_id: int, player, take: bool, idempotency_key: str,
                     now: datetime | None = None) -> dict[str, Any]:
    """Take or decline insurance (half the main bet) on every insurable spot of the player."""
    if not isinstance(take, bool):
        raise InvalidRoundRequest("take must be true or false.")
    now = _now(now)

    def write():
        round = _round_lock(round_id, shared=_shared_play(round_id))
        if round.state != RoundState.INSURANCE:
            raise IllegalTransition(f"Round {round.game_number} offers no insurance now ({_label(round.state)}).")
        _table_playing(round)
        if round.deadline is not None and now >= round.deadline:
            raise DecisionRefused("The insurance time is over.")
        spots = list(Spot.objects.select_for_update().filter(
            round=round, player=player, behind=False, voided_at__isnull=True, insurance__isnull=True
        ).order_by("id"))
        record = selectors.round_record_load(round, spot_ids=[s.pk for s in spots])
        insurable = set(_insurable(record))
        spots = [s for s in spots if s.pk in insurable]
        if not spots:
            raise DecisionRefused("You have no insurance to answer in this round.")
        result = _insurance_answer(round, record, spots, take=take, actor_kind=ActorKind.PLAYER, actor=player,
                                   now=now)
        if round.common_draw:
            _queue("round_advance", round.pk)
        else:
            _insurance_maybe_done(round, now=now)
        return result

    return _idempotent(user=player, key=idempotency_key, operation="insurance", round_id=round_id,
                       payload={"take": take}, write=write)


def _insurance_answer(round: Round, record: RoundRecord, spots: list[Spot], *, take: bool, actor_kind: str,
                      actor, now: datetime, action: str | None = None) -> dict[str, Any]:
    bets = []
    if take:
        costs = [stake_totals(record, spot.pk)[BetKind.MAIN] // 2 for spot in spots]
        specs = [
            wallet.BetHoldSpec(amount=cost, currency=spot.currency, kind=BetKind.INSURANCE,
                               reference=round.game_number, meta={"round": round.pk, "spot": spot.pk})
            for spot, cost in zip(spots, costs, strict=True)
        ]
        held = wallet.bet_hold(
            player=actor, holds=specs, idempotency_key=f"round{round.pk}:insurance:{actor.pk}",
            reference=round.game_number, meta={"game": round.config["name"], "round": round.pk}, durable=False,
        )
        bets = RoundBet.objects.bulk_create([
            RoundBet(round=round, spot=spot, kind=BetKind.INSURANCE, amount=spec.amount, currency=spot.currency,
                     funding=Funding.CASH, wallet_bet_id=bet.pk, created_at=now)
            for spot, spec, bet in zip(spots, specs, held, strict=True)
        ])
    by_spot = {bet.spot_id: bet for bet in bets}
    for spot in spots:
        bet = by_spot.get(spot.pk)
        _decision_write(round, record, spot, kind=DecisionKind.INSURANCE, action=action or ("take" if take else
                        "decline"), effective="take" if take else "decline", hand_index=0,
                        cost=bet.amount if bet else 0, funded=True if bet else None, actor_kind=actor_kind,
                        actor=actor, now=now, bet=bet)
    Spot.objects.filter(pk__in=[s.pk for s in spots]).update(insurance=take)
    return {"spots": [s.pk for s in spots], "insurance": take, "bets": [b.pk for b in bets]}


def _insurance_maybe_done(round: Round, *, now: datetime, force: bool = False) -> None:
    """End the insurance phase once every insurable spot answered (or, forced by the timer, decline the rest)."""
    if round.state != RoundState.INSURANCE:
        return
    record = selectors.round_record_load(round)
    unanswered = list(Spot.objects.filter(pk__in=_insurable(record), insurance__isnull=True).order_by("id"))
    if unanswered and not force:
        return
    for spot in unanswered:
        _insurance_answer(round, record, [spot], take=False, actor_kind=ActorKind.SYSTEM, actor=None, now=now,
                          action=TIMEOUT)
    _after_insurance(round, record, now=now)


# --- decisions -----------------------------------------------------------------------------------------------

def _shared_play(round_id: int) -> bool:
    """Players at a common draw act in parallel (round FOR SHARE); a seated table plays one seat at a time."""
    config = Round.objects.filter(pk=round_id).values_list("config", flat=True).first()
    return bool(config and config.get("common_draw"))


def _decision_write(round: Round, record: RoundRecord, spot: Spot, *, kind: str, action: str, effective: str,
                    hand_index: int, cost: int, funded: bool | None, actor_kind: str, actor, now: datetime,
                    bet: RoundBet | None = None) -> Decision:
    sequence = len(record.decisions_of(spot.pk)) + 1
    stream = len(record.cards.get((CardTarget.STREAM, 0), []))
    decision = Decision.objects.create(
        round=round, spot=spot, sequence=sequence, kind=kind, action=action, effective=effective,
        hand_index=hand_index, cost=cost, funded=funded, stream_length=stream, actor_kind=actor_kind,
        actor=_user(actor), created_at=now,
    )
    record.decisions.append(selectors.decision_record(decision))
    if bet is not None:
        record.bets.append(selectors.bet_record(bet))
    record.reindex()
    _event(round, "decision", actor_kind=actor_kind, actor=actor, at=now, payload={
        "spot": spot.pk, "sequence": sequence, "kind": kind, "action": action, "effective": effective,
        "hand": hand_index, "cost": cost, "funded": funded, "stream_length": stream,
        "bet": _bet_payload(bet) if bet is not None else None,
    })
    return decision


def _hold_extra(round: Round, spot: Spot, *, player, amount: int, kind: str, hand_index: int, key: str,
                now: datetime) -> RoundBet | None:
    """Hold a paid double's or split's stake; None when the wallet cannot cover it (the fallback applies)."""
    spec = wallet.BetHoldSpec(amount=amount, currency=spot.currency, kind=kind, reference=round.game_number,
                              meta={"round": round.pk, "spot": spot.pk, "hand": hand_index})
    try:
        held = wallet.bet_hold(player=player, holds=[spec], idempotency_key=key, reference=round.game_number,
                               meta={"game": round.config["name"], "round": round.pk}, durable=False)
    except (InsufficientFunds, UnknownAccount):
        return None  # the wallet's savepoint rolled back; nothing was written
    return RoundBet.objects.create(round=round, spot=spot, kind=kind, hand_index=hand_index, amount=amount,
                                   currency=spot.currency, funding=Funding.CASH, wallet_bet_id=held[0].pk,
                                   created_at=now)


def _decide(round: Round, record: RoundRecord, spot: Spot, *, action: str, actor_kind: str, actor,
            now: datetime) -> dict[str, Any]:
    spot_record = record.spot(spot.pk)
    play = spot_turn(record, spot_record)
    point = play.decision()
    if point is None:
        waiting = play.advance() == NEEDS_CARD
        raise DecisionRefused("No decision is due: " + ("your next card is coming." if waiting
                                                        else "your hands are finished."))
    if action != TIMEOUT and action not in point.actions:
        hand = " ".join(str(card) for card in point.cards)
        raise DecisionRefused(f"You cannot {action} on {hand} ({point.total}); you may {', '.join(point.actions)}.")
    paid = (action == DOUBLE and point.double == "paid") or (action == SPLIT and point.split == "paid")
    bet = None
    funded = None
    hand_index = point.hand_index
    if paid:
        already_short = any(d.funded is False for d in record.decisions_of(spot.pk))
        if not already_short:
            bet = _hold_extra(
                round, spot, player=spot.player, amount=spot_unit(record, spot.pk), hand_index=(
                    1 if action == SPLIT else hand_index), kind=BetKind.SPLIT if action == SPLIT else BetKind.DOUBLE,
                key=f"round{round.pk}:spot{spot.pk}:decision{len(record.decisions_of(spot.pk)) + 1}", now=now,
            )
        funded = bet is not None
        if not funded:
            play.balance = 0
    effective = play.apply(action)
    _decision_write(round, record, spot, kind=DecisionKind.ACTION, action=action, effective=effective,
                    hand_index=hand_index, cost=spot_unit(record, spot.pk) if paid else 0, funded=funded,
                    actor_kind=actor_kind, actor=actor, now=now, bet=bet)
    if spot.seat is not None:
        _follow(round, record, spot, hand_index=hand_index, seat_effective=effective, now=now)
    _spots_refresh(record, [spot])
    return {"spot": spot.pk, "action": action, "effective": effective, "hand": hand_index, "funded": funded,
            "status": spot.status}


def _follow(round: Round, record: RoundRecord, seat_spot: Spot, *, hand_index: int, seat_effective: str,
            now: datetime) -> None:
    """Every Bet Behind on the seat follows its decision, with its own stake and balance fallbacks."""
    behinds = list(Spot.objects.select_for_update().select_related("player").filter(
        round=round, seat=seat_spot.seat, behind=True, voided_at__isnull=True).order_by("id"))
    if not behinds:
        return
    known = {spot.id for spot in record.spots}
    missing = [b.pk for b in behinds if b.pk not in known]
    if missing:
        extra = selectors.round_record_load(round, spot_ids=missing)
        record.spots += extra.spots
        record.bets += extra.bets
        record.decisions += extra.decisions
        record.reindex()
    for behind in behinds:
        behind_record = record.spot(behind.pk)
        if not behind_has_hand(record, behind_record, hand_index):
            continue
        bet = None
        funded = None
        effective = seat_effective
        if seat_effective in (DOUBLE, SPLIT):
            if not behind_unfunded(record, behind_record):
                bet = _hold_extra(
                    round, behind, player=behind.player, amount=spot_unit(record, behind.pk),
                    kind=BetKind.SPLIT if seat_effective == SPLIT else BetKind.DOUBLE,
                    hand_index=1 if seat_effective == SPLIT else hand_index,
                    key=f"round{round.pk}:spot{behind.pk}:decision{len(record.decisions_of(behind.pk)) + 1}",
                    now=now,
                )
            funded = bet is not None
            if not funded:
                effective = HIT_AND_STAND if seat_effective == DOUBLE else SPLIT_HAND_ONE
        _decision_write(round, record, behind, kind=DecisionKind.FOLLOW, action=seat_effective,
                        effective=effective, hand_index=hand_index,
                        cost=spot_unit(record, behind.pk) if funded is not None else 0, funded=funded,
                        actor_kind=ActorKind.SYSTEM, actor=None, now=now, bet=bet)


def decision_make(*, round_id: int, player, action: str, idempotency_key: str, seat: int | None = None,
                  now: datetime | None = None) -> dict[str, Any]:
    """A player's decision (hit, stand, double, split) on their spot — in turn, and only if legal now."""
    if action not in PLAYER_ACTIONS:
        raise InvalidRoundRequest(f"action must be one of {', '.join(PLAYER_ACTIONS)}, not {action!r}.")
    now = _now(now)

    def write():
        shared = _shared_play(round_id)
        round = _round_lock(round_id, shared=shared)
        if round.state != RoundState.DECISIONS:
            raise IllegalTransition(f"Round {round.game_number} takes no decisions now ({_label(round.state)}).")
        _table_playing(round)
        if round.common_draw:
            if seat is not None:
                raise InvalidRoundRequest("A common draw has no seats: decide without one.")
            spot = Spot.objects.select_for_update().filter(
                round=round, player=player, seat__isnull=True, voided_at__isnull=True).first()
        else:
            if seat is None:
                raise InvalidRoundRequest("Say which of your seats this decision is for.")
            spot = Spot.objects.select_for_update().filter(
                round=round, player=player, seat=seat, behind=False, voided_at__isnull=True).first()
        if spot is None:
            raise DecisionRefused("You have no hand to play in this round" + (f" on seat {seat}." if seat else "."))
        if not round.common_draw and round.turn_seat != spot.seat:
            raise NotYourTurn(f"It is seat {round.turn_seat}'s turn, not seat {spot.seat}'s.")
        if round.common_draw:
            record = selectors.round_record_load(round, spot_ids=[spot.pk])
        else:
            record = selectors.round_record_load(round)
        spot.player = player
        result = _decide(round, record, spot, action=action, actor_kind=ActorKind.PLAYER, actor=player, now=now)
        if round.common_draw:
            if spot.status != SpotStatus.DECIDING:
                _queue("round_advance", round.pk)
        else:
            _progress(round, now=now, new_step=True)
        return result

    return _idempotent(user=player, key=idempotency_key, operation="decision", round_id=round_id,
                       payload={"action": action, "seat": seat}, write=write)


# --- timers and lazy transitions -----------------------------------------------------------------------------

def round_advance(*, round_id: int, now: datetime | None = None) -> str:
    """Apply what is due: the betting close, the end of insurance, timeouts, the dealer's turn. Idempotent."""
    now = _now(now)
    with transaction.atomic(durable=True):
        try:
            round = _round_lock(round_id)
        except RoundNotFound:
            return "missing"
        table_state = Table.objects.filter(pk=round.table_id).values_list("state", flat=True).first()
        if table_state != TableState.OPEN:
            return "table_not_open"
        due = round.deadline is not None and round.deadline <= now
        if round.state == RoundState.BETTING_OPEN and due:
            _betting_close(round, now=now, actor_kind=ActorKind.SYSTEM, reason="betting time over")
            return "betting_closed"
        if round.state == RoundState.INSURANCE:
            _insurance_maybe_done(round, now=now, force=due)
            return round.state
        if round.state == RoundState.DECISIONS:
            if due:
                _timeouts(round, now=now)
            _progress(round, now=now, new_step=False)
            return round.state
    return round.state


def _timeouts(round: Round, *, now: datetime) -> None:
    deciding = Spot.objects.select_for_update().select_related("player").filter(
        round=round, behind=False, voided_at__isnull=True, status=SpotStatus.DECIDING).order_by("id")
    if not round.common_draw:
        deciding = deciding.filter(seat=round.turn_seat)
    spots = list(deciding)
    if not spots:
        return
    record = selectors.round_record_load(round, spot_ids=None if not round.common_draw else [s.pk for s in spots])
    for spot in spots:
        _decide(round, record, spot, action=TIMEOUT, actor_kind=ActorKind.SYSTEM, actor=None, now=now)
    _event(round, "timeout", actor_kind=ActorKind.SYSTEM, at=now, payload={"spots": [s.pk for s in spots]})


def rounds_timers_sweep(*, now: datetime | None = None) -> list[str]:
    """Every round whose timer ran out at an open table: apply it (each round in its own transaction)."""
    now = _now(now)
    due = list(
        Round.objects.filter(
            state__in=(RoundState.BETTING_OPEN, RoundState.INSURANCE, RoundState.DECISIONS),
            deadline__lte=now, table__state=TableState.OPEN,
        ).values_list("pk", flat=True)
    )
    done = []
    for round_id in due:
        try:
            round_advance(round_id=round_id, now=now)
            done.append(round_id)
        except Exception:
            logger.exception("round %s: the timer could not be applied", round_id)
    return done


# --- the dealer and settlement ------------------------------------------------------------------------------

def dealer_complete(*, round_id: int, actor=None, now: datetime | None = None) -> dict[str, Any]:
    """The studio says the dealer's hand is complete: it is checked with the engine, then settled by a worker."""
    _studio_check(actor)
    now = _now(now)
    actor_kind = ActorKind.DEALER if actor else ActorKind.SYSTEM
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        _table_playing(round)
        _progress(round, now=now, new_step=False)
        if round.state != RoundState.DEALER:
            raise IllegalTransition(f"Round {round.game_number} is {_label(round.state)}: the players have not "
                                    "finished." if round.state == RoundState.DECISIONS else
                                    f"Round {round.game_number} is {_label(round.state)}: there is no dealer's "
                                    "hand to complete.")
        record = selectors.round_record_load(round)
        dealer = record.dealer_cards
        any_live, needs_second = dealer_outlook(record)
        if dealer_needs_card(record.rules, dealer, any_live_hand=any_live, needs_second=needs_second) or (
            len(dealer) > 2 and hand_total(dealer) < 17
        ):
            total = hand_total(dealer) if dealer else 0
            raise DealerIncomplete(f"The dealer's hand is not complete ({' '.join(map(str, dealer))} = {total}): "
                                   "record the dealer's next card.")
        try:
            settle_record(record)
        except EngineError as error:
            _event(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": str(error)})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {error}", actor=None, now=now)
            return {"state": round.state, "malfunction": str(error)}
        _transition(round, RoundState.SETTLING, now=now, actor_kind=actor_kind, actor=actor,
                    reason="dealer's hand complete", settling_at=now)
        _queue("round_settle", round.pk)
    return {"state": round.state, "malfunction": ""}


def round_settle(*, round_id: int) -> bool:
    """Settle a round that is settling: engine results -> every held bet resolved at once -> settled.

    Idempotent: a round not settling (already settled, voided, unknown) is left alone and False returned.
    """
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = Round.objects.select_for_update().filter(pk=round_id).first()
        if round is None or round.state != RoundState.SETTLING:
            return False
        record = selectors.round_record_load(round)
        try:
            results = settle_record(record)
        except EngineError as error:
            _event(round, "malfunction", actor_kind=ActorKind.SYSTEM, at=now, payload={"reason": str(error)})
            _void(round, kind=VoidKind.MALFUNCTION, reason=f"Malfunction: {error}", actor=None, now=now)
            return False
        summary = settlement_summary(record, results)
        from wallet.services import BetResolutionSpec

        wallet_ids = {bet.id: bet.wallet_bet_id for bet in record.bets}
        resolutions = [
            BetResolutionSpec(bet_id=wallet_ids[int(bet_id)], cash_return=cash, chips_return=chips)
            for bet_id, (cash, chips) in summary["bets"].items()
        ]
        txn = None
        if resolutions:
            txn = wallet.bet_resolve(
                resolutions=resolutions, idempotency_key=f"round{round.pk}:settle", reference=round.game_number,
                meta={"game": round.config["name"], "round": round.pk}, durable=False,
            )
        summary["wallet_transaction"] = txn.pk if txn else None
        _transition(round, RoundState.SETTLED, now=now, actor_kind=ActorKind.SYSTEM, settled_at=now,
                    settlement=summary)
        if connection.vendor == "postgresql":
            # The audit trail keeps the settlement too: PostgreSQL copies it from the round row just written, so
            # the megabytes of JSON of a big common draw are encoded and sent once, not twice.
            payload = JSONObject(settlement=Subquery(Round.objects.filter(pk=round.pk).values("settlement")))
        else:
            payload = {"settlement": summary}
        _event(round, "settled", actor_kind=ActorKind.SYSTEM, at=now, payload=payload)
    return True


# --- voids, reversals, pauses ------------------------------------------------------------------------------

def _void(round: Round, *, kind: str, reason: str, actor, now: datetime) -> None:
    if round.state == RoundState.SETTLED:
        raise RoundAlreadySettled(
            f"Round {round.game_number} is already settled: it cannot be voided. Staff can reverse it instead "
            "(with a reason), which writes compensating transactions."
        )
    if round.state == RoundState.VOIDED:
        raise IllegalTransition(f"Round {round.game_number} is already voided.")
    _transition(round, RoundState.VOIDED, now=now, actor_kind=ActorKind.STAFF if actor else ActorKind.SYSTEM,
                actor=actor, reason=reason, voided_at=now, void_kind=kind, void_reason=reason,
                voided_by=_user(actor), deadline=None, turn_seat=None)
    _event(round, "voided", actor_kind=ActorKind.STAFF if actor else ActorKind.SYSTEM, actor=actor, at=now,
           payload={"kind": kind, "reason": reason})
    _queue("round_void", round.pk)


def round_void(*, round_id: int, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Void a round that is not settled (staff with the void permission, with a reason; or the system).

    The state changes at once; the round_void task then refunds every stake exactly once.
    """
    if actor is not None:
        require_permission(actor, "void_rounds")
    reason = _reason_check(reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        _void(round, kind=VoidKind.STAFF if actor else VoidKind.MALFUNCTION, reason=reason, actor=actor, now=now)
    return round


def round_void_refunds(*, round_id: int) -> bool:
    """Refund every stake of a voided round not yet resolved, in one wallet batch; marks the refunds done.

    Idempotent: nothing to do (not voided, or already refunded) returns False.
    """
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = Round.objects.select_for_update().filter(pk=round_id).first()
        if round is None or round.state != RoundState.VOIDED or round.refunds_done_at is not None:
            return False
        bets = list(
            RoundBet.objects.filter(round=round)
            .annotate(resolved=Exists(_resolution_of(OuterRef("wallet_bet_id"))))
            .filter(resolved=False).order_by("id")
        )
        txn = None
        if bets:
            txn = wallet.bet_void(
                bet_ids=[bet.wallet_bet_id for bet in bets], reason=round.void_reason or "round voided",
                reference=round.game_number, idempotency_key=f"round{round.pk}:void",
                meta={"game": round.config["name"], "round": round.pk}, durable=False,
            )
        _round_set(round, refunds_done_at=now)
        _event(round, "refunded", actor_kind=ActorKind.SYSTEM, at=now, payload={
            "bets": [bet.pk for bet in bets], "wallet_transaction": txn.pk if txn else None,
        })
    return True


def _resolution_of(wallet_bet_id):
    from wallet.models import BetResolution

    return BetResolution.objects.filter(bet_id=wallet_bet_id)


def round_reverse(*, round_id: int, actor, reason: str, now: datetime | None = None) -> dict[str, Any]:
    """Reverse a settled round: compensating wallet adjustments put every player where a void would have
    (each stake back, no payout stands). Staff only, reason required, audited; the round becomes voided."""
    require_permission(actor, "void_rounds")
    reason = _reason_check(reason)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = _round_lock(round_id)
        if round.state != RoundState.SETTLED:
            raise IllegalTransition(
                f"Round {round.game_number} is {_label(round.state)}: only a settled round is reversed; "
                "void a round that is not settled."
            )
        deltas: dict[tuple[int, str, str], int] = defaultdict(int)
        for bet in RoundBet.objects.filter(round=round).select_related("wallet_bet__resolution", "spot"):
            resolution = bet.wallet_bet.resolution
            player_id = bet.spot.player_id
            if bet.funding == Funding.GOLDEN_CHIPS:
                deltas[(player_id, AccountKind.PLAYER_GOLDEN_CHIPS, bet.currency)] += (
                    bet.amount - resolution.chips_return)
                deltas[(player_id, AccountKind.PLAYER_CASH, bet.currency)] -= resolution.cash_return
            else:
                deltas[(player_id, AccountKind.PLAYER_CASH, bet.currency)] += bet.amount - resolution.cash_return
        users = get_user_model().objects.in_bulk({player_id for player_id, _k, _c in deltas})
        adjustments = []
        for (player_id, kind, currency), amount in sorted(deltas.items()):
            if not amount:
                continue
            txn = wallet.adjust(
                player=users[player_id], currency=currency, amount=amount, staff=actor, reason=reason,
                idempotency_key=f"round{round.pk}:reverse:{player_id}:{kind}:{currency}", account_kind=kind,
                reference=round.game_number, meta={"round": round.pk, "reversal": True}, durable=False,
            )
            adjustments.append({"player": player_id, "account": kind, "currency": currency, "amount": amount,
                                "wallet_transaction": txn.pk})
        _transition(round, RoundState.VOIDED, now=now, actor_kind=ActorKind.STAFF, actor=actor, reason=reason,
                    voided_at=now, void_kind=VoidKind.REVERSAL, void_reason=reason, voided_by=actor,
                    refunds_done_at=now)
        _event(round, "reversed", actor_kind=ActorKind.STAFF, actor=actor, at=now,
               payload={"reason": reason, "adjustments": adjustments})
    return {"adjustments": adjustments}


def table_pause(*, table: Table, actor, reason: str) -> Table:
    """Pause the table on an error: the round waits (timers frozen) until resumed or voided."""
    reason = _reason_check(reason)
    table_services.table_state_set(actor=actor, table=table, state=TableState.PAUSED)
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = Round.objects.select_for_update().filter(table=table, state__in=ACTIVE_STATES).first()
        if round is not None:
            _event(round, "paused", actor_kind=ActorKind.STAFF, actor=actor, at=now, payload={"reason": reason})
    return Table.objects.get(pk=table.pk)


def table_resume(*, table: Table, actor) -> Table:
    """Resume a paused table; the running timer of its round starts again in full."""
    table_services.table_state_set(actor=actor, table=table, state=TableState.OPEN)
    now = timezone.now()
    with transaction.atomic(durable=True):
        round = Round.objects.select_for_update().filter(table=table, state__in=ACTIVE_STATES).first()
        if round is not None:
            if round.deadline is not None:
                timer = "betting_seconds" if round.state == RoundState.BETTING_OPEN else "decision_seconds"
                _round_set(round, deadline=now + timedelta(seconds=_seconds(round, timer)))
            _event(round, "resumed", actor_kind=ActorKind.STAFF, actor=actor, at=now,
                   payload={"deadline": round.deadline.isoformat() if round.deadline else None})
    return Table.objects.get(pk=table.pk)


def table_close(*, table: Table, actor, reason: str) -> Table:
    """Close the table; a round still being played there is voided (its stakes refunded by the worker)."""
    reason = _reason_check(reason)
    table_services.table_state_set(actor=actor, table=table, state=TableState.CLOSED)
    with transaction.atomic(durable=True):
        round = Round.objects.select_for_update().filter(table=table, state__in=ACTIVE_STATES).first()
        if round is not None:
            _void(round, kind=VoidKind.TABLE_CLOSED, reason=f"Table closed: {reason}", actor=actor,
                  now=timezone.now())
    return Table.objects.get(pk=table.pk)


def rounds_recovery_sweep(*, now: datetime | None = None,
                          grace_seconds: int = RECOVERY_GRACE_SECONDS) -> dict[str, list[int]]:
    """Re-queue what a dead worker may have left: rounds stuck settling, voided rounds not refunded; and void
    rounds still being played at a table that was closed some other way."""
    now = _now(now)
    before = now - timedelta(seconds=grace_seconds)
    settling = list(Round.objects.filter(state=RoundState.SETTLING, settling_at__lte=before)
                    .values_list("pk", flat=True))
    refunds = list(Round.objects.filter(state=RoundState.VOIDED, refunds_done_at__isnull=True,
                                        voided_at__lte=before).values_list("pk", flat=True))
    from rounds import tasks

    for round_id in settling:
        tasks.round_settle.delay(round_id)
    for round_id in refunds:
        tasks.round_void.delay(round_id)
    closed = []
    for round_id in Round.objects.filter(state__in=ACTIVE_STATES, table__state=TableState.CLOSED).values_list(
        "pk", flat=True
    ):
        with transaction.atomic(durable=True):
            round = _round_lock(round_id)
            if round.state in ACTIVE_STATES:
                _void(round, kind=VoidKind.TABLE_CLOSED, reason="Table closed", actor=None, now=now)
                closed.append(round_id)
    return {"settling": settling, "refunds": refunds, "closed": closed}

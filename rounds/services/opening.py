"""Shoes, opening a round and its game number."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import transaction

from rounds.audit import actor_user, event_add
from rounds.engine.cards import parse_card
from rounds.engine.errors import EngineError
from rounds.errors import IllegalTransition, InvalidCard, InvalidRoundRequest, TableNotPlaying
from rounds.locks import round_lock, table_lock
from rounds.models import ACTIVE_STATES, ActorKind, Round, RoundState, Shoe
from rounds.services._common import _now, _studio_check
from tables import selectors as table_selectors
from tables.models import Table, TableState


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
        fresh = table_lock(table)
        active = Round.objects.filter(table=fresh, state__in=ACTIVE_STATES).first()
        if active is not None:
            raise IllegalTransition(f"Round {active.game_number} is being played: change the shoe after it.")
        if shown is not None and not fresh.new_shoe_burn:
            raise InvalidRoundRequest(f"Table {fresh.code} does not burn cards on a new shoe.")
        last = Shoe.objects.filter(table=fresh).order_by("-number").first()
        Shoe.objects.filter(table=fresh, ended_at__isnull=True).update(ended_at=now)
        return Shoe.objects.create(
            table=fresh, number=(last.number + 1) if last else 1, decks=fresh.decks, started_at=now,
            started_by=actor_user(actor), burn_card=str(shown) if shown else "",
            burned=shown.points if shown else 0,
            # The set that was on the shuffle table comes in; the one that played goes to be shuffled.
            card_set=(2 if last.card_set == 1 else 1) if last else 1,
        )


CUT_CARD_STATES = (RoundState.DEALING, RoundState.INSURANCE, RoundState.DECISIONS, RoundState.DEALER)


def shoe_cut_card(*, round_id: int, actor, now: datetime | None = None) -> Shoe:
    """The cut card came out while this round was dealt: the round completes on the shoe, the next round is the
    shoe's last, and the new shoe starts after it."""
    _studio_check(actor)
    now = _now(now)
    with transaction.atomic(durable=True):
        round = round_lock(round_id)
        if round.state not in CUT_CARD_STATES:
            raise IllegalTransition(f"Round {round.game_number} is {round.get_state_display().lower()}: the cut "
                                    "card comes out while cards are dealt.")
        shoe = Shoe.objects.select_for_update().get(pk=round.shoe_id)
        if shoe.cut_card_round_id is not None:
            earlier = Round.objects.values_list("game_number", flat=True).get(pk=shoe.cut_card_round_id)
            raise IllegalTransition(f"The cut card of shoe {shoe.number} already came out in round {earlier}.")
        shoe.cut_card_round, shoe.cut_card_at = round, now
        shoe.save(update_fields=["cut_card_round", "cut_card_at"])
        event_add(round, "cut_card", actor_kind=ActorKind.DEALER, actor=actor, at=now,
                  payload={"shoe": shoe.number, "message": "the cards will be replaced in the following round"})
    return shoe


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
        fresh = table_lock(table)
        if fresh.state != TableState.OPEN:
            raise TableNotPlaying(f"Table {fresh.code} is {fresh.state}: open it before opening a round.")
        active = Round.objects.filter(table=fresh, state__in=ACTIVE_STATES).first()
        if active is not None:
            raise IllegalTransition(f"Round {active.game_number} is still being played at table {fresh.code}.")
        config = table_selectors.table_config_snapshot(fresh)
        shoe = Shoe.objects.filter(table=fresh, ended_at__isnull=True).first()
        if shoe is None:
            shoe = Shoe.objects.create(table=fresh, number=1, decks=fresh.decks, started_at=now,
                                       started_by=actor_user(actor))
        if shoe.last_round_id is not None:
            raise IllegalTransition(f"Shoe {shoe.number} at table {fresh.code} has had its last round: start the "
                                    "new shoe (the cards are replaced) before opening a round.")
        last_of_shoe = shoe.cut_card_round_id is not None
        round = Round.objects.create(
            table=fresh, shoe=shoe, game_number=_game_number(fresh.code, now), state=RoundState.BETTING_OPEN,
            config=config, config_version=config["version"], opened_at=now, opened_by=actor_user(actor),
            deadline=now + timedelta(seconds=config["timers"]["betting_seconds"]),
        )
        if last_of_shoe:
            shoe.last_round = round
            shoe.save(update_fields=["last_round"])
        event_add(round, "opened", actor_kind=ActorKind.DEALER if actor else ActorKind.SYSTEM, actor=actor, at=now,
                  payload={"game_number": round.game_number, "table": fresh.code, "shoe": shoe.number,
                        "config": config, "last_of_shoe": last_of_shoe})
    return round

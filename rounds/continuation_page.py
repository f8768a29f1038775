"""A non-live continuation as the round page and the player's game page show it (rules.md, Disconnection:
`non_live`): the cards carried over from the live round kept apart from the cards the server drew, each decision
with its time and who took it, the hands the engine makes of them and their result.

Read from the continuation's own row and its audit events, never from the live round's cards: the live seat
played on without the player, and its hands are not the player's money.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rounds.continuation_play import ContinuationState
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.labels import hand_title, outcome_label
from rounds.models import Continuation, Round, RoundBet, RoundEvent
from rounds.selectors import round_rules

# Lazy: in the language of the page (the player's game page may be Swedish).
WHERE_LABELS = {"player": gettext_lazy("the hand"), "stream": gettext_lazy("the hand"),
                "dealer": gettext_lazy("the dealer")}
BY_LABELS = {"player": gettext_lazy("the player"), "system": gettext_lazy("the timeout rule")}


@dataclass
class ContinuationHand:
    cards: list[str]
    total: int
    soft: bool
    outcome_label: str = ""
    net: int | None = None
    notes: list[str] = field(default_factory=list)

    split: bool = False

    @property
    def title(self) -> str:
        return hand_title(cards=self.cards, total=self.total, soft=self.soft, split=self.split)


@dataclass
class ContinuationView:
    continuation: Continuation
    status_label: str
    carried_player: list[str]
    carried_dealer: list[str]
    live_actions: list[str]  # decisions taken in the live round before the disconnection
    drawn: list[dict[str, Any]]  # {"to", "card", "at"} in the order drawn
    decisions: list[dict[str, Any]]  # {"at", "hand", "action", "by", "funded"}
    hands: list[ContinuationHand]
    dealer: list[str]
    dealer_carried: int
    dealer_total: str
    net: int | None
    result_label: str


def _total(cards: list[str]) -> tuple[int, bool]:
    from rounds.engine.cards import parse_card

    if not cards:
        return 0, False
    total, soft = hand_value([parse_card(c) for c in cards])
    return total, soft and total <= 21


def _status_label(continuation: Continuation) -> str:
    if continuation.finished_at is not None:
        at = {"at": f"{continuation.finished_at:%Y-%m-%d %H:%M:%S}"}
        return (_("finished by the player %(at)s UTC") % at if continuation.finished_by == "player"
                else _("finished by the timeout rule %(at)s UTC") % at)
    deadline = f"{continuation.deadline:%Y-%m-%d %H:%M:%S}"
    if continuation.reconnected_at is None:
        return _("waiting for the player to reconnect; the timeout rule finishes it at %(deadline)s UTC") % {
            "deadline": deadline}
    return _("the player reconnected %(at)s UTC and is deciding; the timeout rule finishes it at %(deadline)s "
             "UTC") % {"at": f"{continuation.reconnected_at:%H:%M:%S}", "deadline": deadline}


def _state(round: Round, continuation: Continuation) -> ContinuationState:
    bets = list(RoundBet.objects.filter(spot_id=continuation.spot_id, returned__isnull=True).values_list(
        "kind", "amount"))
    main = sum(a for k, a in bets if k in ("main", "bet_behind"))
    golden = sum(a for k, a in bets if k == "golden_chip")
    return ContinuationState(
        rules=round_rules(round), label="continuation", main=main, golden=golden,
        insurance=continuation.insurance, first=list(continuation.first), stream=list(continuation.stream),
        dealer=list(continuation.dealer), actions=list(continuation.actions), funded=list(continuation.funded),
        unit=main + golden, insurance_stake=sum(a for k, a in bets if k == "insurance"), shoe=[])


def _hands(round: Round, continuation: Continuation) -> list[ContinuationHand]:
    state = _state(round, continuation)
    try:
        if continuation.finished_at is not None:
            settled = state.settle()
            raw = [(list(h.cards), outcome_label(h.outcome), h.net,
                    ["doubled"] * bool(h.double_stake) + ["free bet"] * bool(h.free_stake)) for h in settled.hands]
        else:
            raw = [([str(c) for c in h.cards], "", None, ["doubled"] * bool(getattr(h, "doubled", False)))
                   for h in state.turn().hands]
    except EngineError:
        return []
    hands = []
    for cards, label, net, notes in raw:
        total, soft = _total(cards)
        hands.append(ContinuationHand(cards=cards, total=total, soft=soft, outcome_label=label, net=net,
                                      notes=notes, split=len(raw) > 1))
    return hands


def continuation_views(round: Round, spot_ids: list[int]) -> dict[int, ContinuationView]:
    """spot id -> its continuation as the pages show it (only the spots that left the live round)."""
    rows = list(Continuation.objects.filter(round=round, spot_id__in=spot_ids).order_by("id"))
    if not rows:
        return {}
    events: dict[int, list[tuple[str, datetime, str, dict[str, Any]]]] = defaultdict(list)
    for kind, at, actor_kind, payload in (
        RoundEvent.objects.filter(round=round, kind__in=("continuation_cards", "continuation_decision"))
        .order_by("id").values_list("kind", "at", "actor_kind", "payload")
    ):
        events[payload.get("continuation")].append((kind, at, actor_kind, payload))
    views = {}
    for row in rows:
        drawn, decisions = [], []
        for kind, at, actor_kind, payload in events.get(row.pk, []):
            if kind == "continuation_cards":
                drawn.extend({"to": str(WHERE_LABELS.get(c["to"], c["to"])), "card": c["card"], "at": at}
                             for c in payload["cards"])
            else:
                decisions.append({"at": at, "hand": payload["hand"] + 1, "action": payload["action"],
                                  "by": str(BY_LABELS.get(actor_kind, actor_kind)), "funded": payload["funded"]})
        settlement = row.settlement or {}
        net = settlement.get("net")
        result = ("in play" if net is None else "won" if net > 0 else "lost" if net < 0 else "even")
        dealer = list(row.dealer)
        dealer_total, dealer_soft = _total(dealer)
        views[row.spot_id] = ContinuationView(
            continuation=row, status_label=_status_label(row),
            carried_player=list(row.carried.get("player", [])) + list(row.carried.get("stream", [])),
            carried_dealer=list(row.carried.get("dealer", [])), live_actions=list(row.actions[:row.live_decisions]),
            drawn=drawn, decisions=decisions, hands=_hands(round, row), dealer=dealer,
            dealer_carried=len(row.carried.get("dealer", [])),
            dealer_total=hand_title(cards=dealer, total=dealer_total, soft=dealer_soft) if dealer else "",
            net=net, result_label=result)
    return views


def continuation_nets(*, player, round_ids: list[int]) -> dict[int, list[tuple[str, str, int | None]]]:
    """round id -> (spot label, currency, settled net or None while unfinished) of the player's continuations."""
    nets: dict[int, list[tuple[str, str, int | None]]] = defaultdict(list)
    for row in (Continuation.objects.filter(round_id__in=round_ids, player=player).select_related("spot")
                .only("round_id", "settlement", "spot__seat", "spot__behind", "spot__player_id", "spot__currency")):
        nets[row.round_id].append((row.spot.label, row.spot.currency,
                                   row.settlement["net"] if row.settlement else None))
    return dict(nets)

"""A round in a few lines, for the top of its pages: what it came to (one sentence), each player's stake, return
and net in the currency, and what happened in order with times. Support reads it aloud to a player; the player's
game page shows the same for their own positions (never another player's bets, cards or result).

The money per player is the game history's (rounds.game_history.game_rows), so the round page, the player's game
page, their history and its CSV tell one truth, reversals included. The steps are the audit trail's events, the
cards of one deal gathered into one step; the full trail stays below on the staff page.

Player pages are translated: every sentence here goes through gettext, money through the reader's locale."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from casino.locale_formats import money_in
from casino.money import format_minor
from rounds.audit_words import card_text
from rounds.game_history import GameRow, game_rows
from rounds.labels import action_label, return_reason_text, spot_void_reason_text, void_reason_text
from rounds.models import Round, RoundBet, RoundEvent, RoundState, Spot, VoidKind

# A round in play, in a sentence per state (translated whole: a state's bare name would read as English).
_IN_PLAY = {
    RoundState.BETTING_OPEN: gettext_noop("Still in play (betting is open): nothing is won or lost yet."),
    RoundState.BETTING_CLOSED: gettext_noop("Still in play (betting has closed): nothing is won or lost yet."),
    RoundState.DEALING: gettext_noop("Still in play (the cards are being dealt): nothing is won or lost yet."),
    RoundState.INSURANCE: gettext_noop("Still in play (insurance is offered): nothing is won or lost yet."),
    RoundState.DECISIONS: gettext_noop("Still in play (the players are deciding): nothing is won or lost yet."),
    RoundState.DEALER: gettext_noop("Still in play (the dealer's turn): nothing is won or lost yet."),
}

# Players named one by one in a staff summary (a common draw may have thousands: the totals count them all).
SUMMARY_PLAYERS = 20
# Steps shown; the audit trail below has every event.
SUMMARY_STEPS = 60


@dataclass(frozen=True)
class PlayerMoney:
    player: Any
    where: str  # "seat 3", "seats 1 and 4", "" (common draw)
    row: GameRow  # staked / returned / net per currency, result


@dataclass(frozen=True)
class Step:
    at: datetime
    text: str


@dataclass
class RoundSummary:
    headline: str
    players: list[PlayerMoney] = field(default_factory=list)
    more_players: int = 0
    totals: list[dict[str, Any]] = field(default_factory=list)  # per currency: staked, players, bets
    steps: list[Step] = field(default_factory=list)
    more_steps: bool = False


def _money(amount: int, currency: str) -> str:
    """The house's "10.00 EUR" in English (as every other amount on the pages); the reader's locale otherwise."""
    language = (get_language() or "en").split("-")[0]
    return format_minor(amount, currency) if language == "en" else money_in(amount, currency, language=language)


def _headline(round: Round) -> str:
    state = round.state
    if state == RoundState.VOIDED:
        if round.void_kind == VoidKind.REVERSAL:
            return (_("Reversed after it was settled: every payout was taken back and every stake returned.")
                    if round.refunds_done_at else _("Being reversed: payouts are being taken back and stakes "
                                                    "returned."))
        why = void_reason_text(round)
        if round.refunds_done_at:
            return _("Voided, so nobody won or lost: every stake was refunded. Why: %(why)s") % {"why": why}
        return _("Voided: the stakes are being refunded. Why: %(why)s") % {"why": why}
    if state == RoundState.SETTLED:
        dealer = (round.settlement or {}).get("dealer") or {}
        cards = " ".join(card_text(c) for c in dealer.get("cards", []))
        return _("Settled: the dealer had %(total)s (%(cards)s), and every bet was paid or lost.") % {
            "total": dealer.get("total"), "cards": cards}
    if state == RoundState.SETTLING:
        return _("The dealer's hand is complete; the bets are being settled.")
    if state in _IN_PLAY:
        return _(_IN_PLAY[state])
    return _("Still in play (%(state)s): nothing is won or lost yet.") % {"state": round.get_state_display().lower()}


def _where(seats: list[tuple[int | None, bool]]) -> str:
    names = [(_("Bet Behind on seat %(seat)s") if behind else _("seat %(seat)s")) % {"seat": seat}
             for seat, behind in seats if seat is not None]
    return ", ".join(names)


class _Names:
    """Who acted, as the reader of the page calls them: "You" for the player reading it, a username for staff."""

    def __init__(self, spots: dict[int, Spot], viewer):
        self.spots, self.viewer = spots, viewer

    def of(self, spot_id, *, seat: int | None = None) -> str | None:
        """"You (seat 3)"; `seat` the spot's seat when the event happened (a seat move changes it later)."""
        spot = self.spots.get(spot_id)
        if spot is None:
            return None  # another player's spot, on a player's page: left out
        seat = seat or spot.seat
        where = ((_("Bet Behind on seat %(seat)s") if spot.behind else _("seat %(seat)s")) % {"seat": seat}
                 if seat else "")
        who = self.who(spot_id)
        return f"{who} ({where})" if where else who

    def who(self, spot_id) -> str | None:
        spot = self.spots.get(spot_id)
        if spot is None:
            return None
        return _("You") if self.viewer is not None else spot.player.get_username()


def _bets_text(bets: list[dict[str, Any]], currency: str) -> str:
    from rounds.labels import bet_label

    return ", ".join(f"{bet_label(b.get('kind', ''))} {_money(int(b.get('amount') or 0), currency)}"
                     for b in bets)


def _card_to(payload: dict[str, Any], seats: set[int] | None, hide_hole: bool) -> str | None:
    target, card = payload.get("target"), card_text(payload.get("card", ""))
    if target == "dealer" and hide_hole and payload.get("sequence") == 2:
        return _("dealer a face-down card")
    if target == "dealer":
        return _("dealer %(card)s") % {"card": card}
    if target == "seat":
        if seats is not None and payload.get("seat") not in seats:
            return None
        return _("seat %(seat)s %(card)s") % {"seat": payload.get("seat"), "card": card}
    if target == "stream":
        return _("extra card %(card)s") % {"card": card}
    return _("shared %(card)s") % {"card": card}


def _steps(round: Round, names: _Names, *, seats: set[int] | None, staff: bool,
           hide_hole: bool = False) -> tuple[list[Step], bool]:
    """The round's events in order as steps; a run of cards is one step."""
    steps: list[Step] = []
    cards: list[str] = []
    cards_at: datetime | None = None

    def flush() -> None:
        nonlocal cards, cards_at
        if cards and cards_at is not None:
            steps.append(Step(cards_at, _("Cards dealt: %(cards)s.") % {"cards": ", ".join(cards)}))
        cards, cards_at = [], None

    events = RoundEvent.objects.filter(round=round).order_by("id").values_list("kind", "at", "payload")
    for kind, at, payload in events.iterator(chunk_size=500):
        payload = payload or {}
        if kind == "card":
            shown = _card_to(payload, seats, hide_hole)
            if shown:
                cards_at = cards_at or at
                cards.append(shown)
            continue
        text = _event_text(kind, payload, names, staff=staff)
        if text is None:
            continue
        flush()
        steps.append(Step(at, text))
        if len(steps) >= SUMMARY_STEPS:
            return steps, True
    flush()
    return steps, False


def _event_text(kind: str, p: dict[str, Any], names: _Names, *, staff: bool) -> str | None:
    if kind == "opened":
        return _("The round opened (shoe %(shoe)s).") % {"shoe": p.get("shoe")}
    if kind == "bets_placed":
        spot = p.get("spot") or {}
        who = names.of(spot.get("id"), seat=spot.get("seat"))
        if who is None:
            return None
        return _("%(who)s bet %(bets)s.") % {"who": who, "bets": _bets_text(p.get("bets", []),
                                                                              spot.get("currency", ""))}
    if kind == "state":
        return {RoundState.BETTING_CLOSED: _("Betting closed."), RoundState.DEALER: _("The dealer's turn."),
                RoundState.INSURANCE: _("Insurance was offered.")}.get(p.get("to"))
    if kind == "decision":
        who = names.of(p.get("spot"))
        if who is None:
            return None
        taken = p.get("effective") or p.get("action", "")
        return _("%(who)s, hand %(hand)s: %(action)s.") % {"who": who, "hand": int(p.get("hand") or 0) + 1,
                                                          "action": action_label(taken)}
    if kind == "timeout":
        mine = [names.of(s) for s in p.get("spots", [])]
        mine = [m for m in mine if m]
        if not mine:
            return None
        return _("Time ran out for %(who)s: the timeout rule decided.") % {"who": ", ".join(mine)}
    if kind == "settled":
        return _("Settled: every bet was paid or lost.")
    if kind == "voided":
        return _("The round was voided: %(why)s") % {"why": p.get("reason", "")}
    if kind == "reversed":
        return _("The settled round was reversed: %(why)s") % {"why": p.get("reason", "")}
    if kind == "refunded" and p.get("done"):
        return (_("Every adjustment of the reversal was made.") if "adjustments" in p
                else _("Every stake was refunded."))
    if kind == "spot_voided":
        who = names.of(p.get("spot"))
        if who is None:
            return None
        return _("%(who)s got %(bets)s back (%(why)s).") % {
            "who": who, "bets": _returned_bets(p.get("bets", [])) or _("the bets"),
            "why": spot_void_reason_text(p.get("reason", ""))}
    if kind == "bets_returned":
        return _bets_returned_text(p, names)
    if kind == "spot_moved":
        who = names.who(p.get("spot"))
        return None if who is None else _("%(who)s moved from seat %(from)s to seat %(to)s.") % {
            "who": who, "from": p.get("from_seat"), "to": p.get("to_seat")}
    if kind == "malfunction":
        return _("A malfunction was found: %(why)s") % {"why": p.get("reason", "")}
    if kind == "paused":
        return _("The table paused.")
    if kind == "resumed":
        return _("The table resumed.")
    if kind == "continuation_started":
        who = names.of(p.get("spot"))
        return None if who is None else _("%(who)s disconnected: the position continues apart.") % {"who": who}
    if kind == "continuation_settled":
        who = names.of(p.get("spot"))
        return None if who is None else _("%(who)s: the continuation settled.") % {"who": who}
    if kind == "attention_needed" and staff:
        return _("The worker gave up: %(why)s") % {"why": p.get("reason", "")}
    if kind == "attention_retried" and staff:
        return _("Staff retried it: %(why)s") % {"why": p.get("reason", "")}
    return None


def _returned_bets(bet_ids: list[int]) -> str:
    """The bets given back, each with its amount ("Main 10.00 EUR, 21+3 5.00 EUR")."""
    bets = list(RoundBet.objects.filter(pk__in=bet_ids).order_by("id").values("kind", "amount", "currency"))
    return _bets_text(bets, bets[0]["currency"]) if bets else ""


def _bets_returned_text(p: dict[str, Any], names: _Names) -> str | None:
    """Some bets of a spot given back, the spot staying (an undo, bets not confirmed): per spot, which."""
    # Only the spots the reader may see named (the player's own; a bounded number for staff): bets not confirmed
    # at the close of a common draw may be thousands players' in one event.
    bets = RoundBet.objects.filter(pk__in=p.get("bets", []), spot_id__in=list(names.spots)).order_by("id").values(
        "spot_id", "kind", "amount", "currency")
    per_spot: dict[int, list[dict[str, Any]]] = {}
    for bet in bets:
        per_spot.setdefault(bet["spot_id"], []).append(bet)
    parts = []
    for spot_id, spot_bets in per_spot.items():
        who = names.of(spot_id)
        if who is not None:
            parts.append(_("%(who)s got %(bets)s back") % {"who": who,
                                                            "bets": _bets_text(spot_bets, spot_bets[0]["currency"])})
    if not parts:
        return None
    return _("%(returns)s (%(why)s).") % {"returns": "; ".join(parts), "why": return_reason_text(p.get("reason", ""))}


def stakes_held(*, round: Round) -> list[dict[str, Any]]:
    """The round's stakes per currency with how many players and bets: what voiding it gives back."""
    return list(RoundBet.objects.filter(round=round).values("currency").annotate(
        staked=Sum("amount"), players=Count("spot__player", distinct=True), bets=Count("id")).order_by("currency"))


def round_summary(*, round: Round, player=None) -> RoundSummary:
    """The summary of the round for staff (player None: every player, the first SUMMARY_PLAYERS named) or for
    one player (their own positions only)."""
    spots_query = Spot.objects.filter(round=round).select_related("player").order_by("seat", "behind", "id")
    if player is not None:
        spots_query = spots_query.filter(player=player)
    summary = RoundSummary(headline=_headline(round))
    player_ids: list[int] = []
    seats_of: dict[int, list[tuple[int | None, bool]]] = {}
    named_spots: dict[int, Spot] = {}
    for spot in spots_query[: SUMMARY_PLAYERS * 8]:
        if spot.player_id not in seats_of:
            if len(player_ids) >= SUMMARY_PLAYERS:
                continue
            player_ids.append(spot.player_id)
            seats_of[spot.player_id] = []
        seats_of[spot.player_id].append((spot.seat, spot.behind))
        named_spots[spot.pk] = spot
    users = get_user_model().objects.in_bulk(player_ids)
    for player_id in player_ids:
        row = game_rows(player=users[player_id], rounds=[round])[0]
        summary.players.append(PlayerMoney(player=users[player_id], where=_where(seats_of[player_id]), row=row))
    if player is None:
        summary.totals = stakes_held(round=round)
        everyone = sum(t["players"] for t in summary.totals)
        summary.more_players = max(0, everyone - len(summary.players))
    seats = None if player is None else {seat for seats in seats_of.values() for seat, _b in seats if seat}
    names = _Names(named_spots if player is not None else _all_named(round, named_spots), player)
    from rounds.selectors import hole_card_hidden

    summary.steps, summary.more_steps = _steps(round, names, seats=seats, staff=player is None,
                                               hide_hole=player is not None and hole_card_hidden(round))
    return summary


def _all_named(round: Round, named: dict[int, Spot]) -> dict[int, Spot]:
    """For staff every spot is named; beyond the players in the table, the steps name them too (a bounded read:
    the steps stop at SUMMARY_STEPS)."""
    if len(named) < SUMMARY_PLAYERS:
        return named
    return {spot.pk: spot for spot in Spot.objects.filter(round=round).select_related("player")[:2000]}

"""The names people read for the codes a round stores: bet kinds, hand outcomes, decisions, card targets, audit
event kinds, who acted, how a round was voided and why a player's bets went back. The round pages, the game
history (pages and CSV), the audit trail in words and the round summary name a code here; a table's
configuration codes are tables.labels."""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy

from rounds.models import ActorKind, ReturnReason, Round, VoidKind

BET_LABELS = {
    "main": "Main", "golden_chip": "Golden Chip", "bet_behind": "Bet Behind", "any_pair": "Any Pair",
    "21+3": "21+3", "hot3": "Hot 3", "perfect_pairs": "Perfect Pairs", "insurance": "Insurance",
    "double": "Double", "split": "Split", "tip": "Tip",
}

OUTCOME_LABELS = {
    "win": "won", "blackjack": "blackjack", "charlie": "Charlie", "push": "push", "dealer_22": "push on dealer 22",
    "lose": "lost", "bust": "bust", "dealer_blackjack": "lost to dealer blackjack", "refund": "refunded",
}

ACTION_LABELS = {
    "hit": "hit", "stand": "stand", "double": "double", "split": "split", "timeout": "no decision in time",
    "take": "take insurance", "decline": "no insurance", "free_double": "free double", "free_split": "free split",
    "follow": "follow the seat",
}

# Lazy: the player's game page reads them in the reader's language (locale/sv), the back office in English.
TARGET_LABELS = {"dealer": gettext_lazy("the dealer"), "player": gettext_lazy("the players' shared cards"),
                 "stream": gettext_lazy("the stream"), "seat": gettext_lazy("seat")}

ACTOR_LABELS = {ActorKind.PLAYER: "the player", ActorKind.DEALER: "the dealer", ActorKind.SYSTEM: "the system",
                ActorKind.STAFF: "staff"}

EVENT_LABELS = {
    "opened": "Round opened", "bets_placed": "Bets placed", "confirmed": "Bets confirmed", "state": "State changed",
    "card": "Card dealt", "decision": "Decision", "timeout": "Time ran out", "disconnected": "Player disconnected",
    "settled": "Settled", "voided": "Voided", "refunded": "Stakes refunded", "reversed": "Reversed",
    "spot_voided": "Player's bets returned", "malfunction": "Malfunction", "paused": "Table paused",
    "resumed": "Table resumed", "cut_card": "Cut card came out", "attention_needed": "Needs staff attention",
    "attention_retried": "Retried by staff", "continuation_started": "Continuation started",
    "continuation_cards": "Continuation cards", "continuation_decision": "Continuation decision",
    "continuation_bet": "Continuation bet", "continuation_settled": "Continuation settled",
    "continuation_reconnected": "Player came back",
    "bets_returned": "Bets taken back", "unconfirmed_returned": "Unconfirmed bets returned",
    "bets_confirmed": "Bets confirmed", "spot_moved": "Seat changed",
}


def bet_label(kind: str) -> str:
    return BET_LABELS.get(kind, kind.replace("_", " "))


def action_label(action: str) -> str:
    return ACTION_LABELS.get(action, action.replace("_", " "))


def event_label(kind: str) -> str:
    return EVENT_LABELS.get(kind, kind.replace("_", " ").capitalize())


def hand_title(*, cards: list[str], total: int, soft: bool, split: bool = False) -> str:
    """What a hand's heading says of its total: "Blackjack" for an ace and a ten-value card as the first two of an
    unsplit hand (a natural, whatever it paid: against a dealer blackjack it pushes), otherwise "soft 17", "20",
    "bust 24"."""
    if not split and len(cards) == 2 and total == 21:
        return "Blackjack"
    if total > 21:
        return f"bust {total}"
    return f"soft {total}" if soft else str(total)


def void_reason_text(round: Round) -> str:
    """The void's reason once: a malfunction's reason was stored as "Malfunction: ..." and pages put the kind in
    front of it already."""
    reason = round.void_reason or ""
    prefix = f"{VoidKind(round.void_kind).label}: " if round.void_kind in VoidKind.values else ""
    return reason.removeprefix(prefix) if prefix else reason


def staff_name(user) -> str:
    """A staff member as pages name them: "maria (support)", "olof (operator)"."""
    from accounts.selectors import user_role

    if user is None:
        return "the system"
    role = user_role(user)
    return f"{user.get_username()} ({role})" if role else user.get_username()


def void_kind_text(round: Round) -> str:
    """How the round was voided, saying who once: "Voided by maria (support)", "Voided by the system: a
    malfunction", "Voided because olof (operator) closed the table", "Reversed by olof (operator)"."""
    who = staff_name(round.voided_by) if round.voided_by_id else ""
    if round.void_kind == VoidKind.STAFF:
        return f"Voided by {who}" if who else "Voided by staff"
    if round.void_kind == VoidKind.REVERSAL:
        return f"Reversed by {who} after it was settled" if who else "Reversed after it was settled"
    if round.void_kind == VoidKind.TABLE_CLOSED:
        return f"Voided because {who} closed the table" if who else "Voided because the table closed"
    if round.void_kind == VoidKind.MALFUNCTION:
        return "Voided by the system: a malfunction"
    return "Voided"


def return_reason_text(reason: str) -> str:
    """Why bets went back while betting was open (BetReturn.reason), in the reader's language."""
    return {ReturnReason.UNDO: gettext("undone"),
            ReturnReason.UNCONFIRMED: gettext("not confirmed before betting closed")}.get(reason, reason)


# A spot voided while betting was open says why in the service's English words (rounds.services: betting,
# dealing, returns, seats); these are the ones a player reads about their own bets.
_SPOT_VOID_REASONS = {
    "undone by the player": ReturnReason.UNDO,
    "bets not confirmed by the close": ReturnReason.UNCONFIRMED,
}


def spot_void_reason_text(reason: str) -> str:
    """A spot's void reason (Spot.void_reason, the spot_voided event) in the reader's language; a reason this
    does not know (a staff member's own words) as it was written."""
    if reason in _SPOT_VOID_REASONS:
        return return_reason_text(_SPOT_VOID_REASONS[reason])
    if reason == "player disconnected while betting was open":
        return gettext("disconnected while betting was open")
    if reason == "the seat player placed no bet":
        return gettext("the player on the seat placed no bet")
    gave_up = re.fullmatch(r"the player gave up seat (\d+)", reason)
    if gave_up:
        return gettext("seat %(seat)s given up") % {"seat": gave_up.group(1)}
    return reason

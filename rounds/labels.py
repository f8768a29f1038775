"""The names people read for the codes a round stores: bet kinds, hand outcomes, decisions, card targets, audit
event kinds, who acted, how a round was voided and why a player's bets went back. The round pages, the game
history (pages and CSV), the audit trail in words and the round summary name a code here; a table's
configuration codes are tables.labels."""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from rounds.models import ActorKind, ReturnReason, Round, RoundState, VoidKind
from wallet.models import Outcome

# Every name below is lazy: read through the functions (or str()) it is in the language active when the page
# renders: English in the back office, the CSV and the APIs (nothing there switches language), the reader's on
# the player's pages (players.language). A context tells apart an English word with two Swedish ones.
BET_LABELS = {
    "main": gettext_lazy("Main"), "golden_chip": gettext_lazy("Golden Chip"), "bet_behind": gettext_lazy("Bet Behind"),
    "any_pair": gettext_lazy("Any Pair"), "21+3": "21+3", "hot3": gettext_lazy("Hot 3"),
    "perfect_pairs": gettext_lazy("Perfect Pairs"), "insurance": gettext_lazy("Insurance"),
    "double": gettext_lazy("Double"), "split": gettext_lazy("Split"), "tip": gettext_lazy("Tip"),
}

OUTCOME_LABELS = {
    "win": pgettext_lazy("hand outcome", "won"), "blackjack": pgettext_lazy("hand outcome", "blackjack"),
    "charlie": pgettext_lazy("hand outcome", "Charlie"), "push": pgettext_lazy("hand outcome", "push"),
    "dealer_22": pgettext_lazy("hand outcome", "push on dealer 22"), "lose": pgettext_lazy("hand outcome", "lost"),
    "bust": pgettext_lazy("hand outcome", "bust"),
    "dealer_blackjack": pgettext_lazy("hand outcome", "lost to dealer blackjack"),
    "refund": pgettext_lazy("hand outcome", "refunded"),
}

ACTION_LABELS = {
    "hit": gettext_lazy("hit"), "stand": gettext_lazy("stand"), "double": gettext_lazy("double"),
    "split": gettext_lazy("split"), "timeout": gettext_lazy("no decision in time"),
    "take": gettext_lazy("take insurance"), "decline": gettext_lazy("no insurance"),
    "free_double": gettext_lazy("free double"), "free_split": gettext_lazy("free split"),
    "follow": gettext_lazy("follow the seat"),
}

# A hand's notes ("doubled", "free bet") and a round's result as the game history words it (game_history).
NOTE_LABELS = {"doubled": pgettext_lazy("hand note", "doubled"), "free bet": pgettext_lazy("hand note", "free bet")}
RESULT_LABELS = {
    "won": pgettext_lazy("round result", "won"), "lost": pgettext_lazy("round result", "lost"),
    "even": pgettext_lazy("round result", "even"), "no bet": pgettext_lazy("round result", "no bet"),
    "in play": pgettext_lazy("round result", "in play"),
    "bets returned": pgettext_lazy("round result", "bets returned"),
    "voided, stakes refunded": pgettext_lazy("round result", "voided, stakes refunded"),
    "voided, refund pending": pgettext_lazy("round result", "voided, refund pending"),
    "non-live continuation in play": pgettext_lazy("round result", "non-live continuation in play"),
    "reversed": pgettext_lazy("round result", "reversed"),
    "reversal in progress": pgettext_lazy("round result", "reversal in progress"),
    "bets returned to the player, stakes refunded": pgettext_lazy(
        "round result", "bets returned to the player, stakes refunded"),
    "round voided, stakes refunded": pgettext_lazy("round result", "round voided, stakes refunded"),
    "round voided, refund pending": pgettext_lazy("round result", "round voided, refund pending"),
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
    return str(BET_LABELS.get(kind, kind.replace("_", " ")))


def action_label(action: str) -> str:
    return str(ACTION_LABELS.get(action, action.replace("_", " ")))


def outcome_label(outcome: str) -> str:
    """A hand's outcome from the engine ("win", "dealer_22") in words: "won", "push on dealer 22"."""
    return str(OUTCOME_LABELS.get(outcome, outcome))


def note_label(note: str) -> str:
    return str(NOTE_LABELS.get(note, note))


def result_label(result: str) -> str:
    """A game-history result ("won", "voided, stakes refunded", "reversed: gave back ...") in the page's
    language; a reversal's own sentences after the colon are the reversal's (rounds.reversal)."""
    head, colon, rest = str(result).partition(": ")
    return f"{RESULT_LABELS[head]}: {rest}" if colon and head in RESULT_LABELS else str(RESULT_LABELS.get(result, result))


def _choice_label(choices, code) -> str:
    """A model choice's label (lazy, in the models) in the page's language."""
    try:
        return str(choices(code).label)
    except ValueError:
        return str(code)


def round_state_label(state: str) -> str:
    return _choice_label(RoundState, state)


def actor_kind_label(kind: str) -> str:
    return _choice_label(ActorKind, kind)


def bet_outcome_label(outcome: str) -> str:
    """A wallet bet's outcome (won, lost, pushed...) as the bets table names it."""
    return _choice_label(Outcome, outcome)


def event_label(kind: str) -> str:
    return EVENT_LABELS.get(kind, kind.replace("_", " ").capitalize())


def hand_title(*, cards: list[str], total: int, soft: bool, split: bool = False) -> str:
    """What a hand's heading says of its total: "Blackjack" for an ace and a ten-value card as the first two of an
    unsplit hand (a natural, whatever it paid: against a dealer blackjack it pushes), otherwise "soft 17", "20",
    "bust 24"."""
    if not split and len(cards) == 2 and total == 21:
        return gettext("Blackjack")
    if total > 21:
        return gettext("bust %(total)s") % {"total": total}
    return gettext("soft %(total)s") % {"total": total} if soft else str(total)


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

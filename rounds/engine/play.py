"""Playing one player's hands: decision points, legal actions, the timeout rule and the balance fallbacks.

`PlayerPlay` is a small state machine. It is driven by decisions (`apply`) and fed cards from the position's
stream: in common draw each player's k-th requested card is stream[k], so a player's hands are a pure function
of (first cards, decision log, stakes, balance, stream). The live server rebuilds it from the recorded log to
ask what is legal next (`player_turn`); settlement replays whole logs (`play_log`).

A request for a card is: a hit, the double card, the second card of split hand 1, its hits, then the second
card of split hand 2 and its hits (split hand 1 is played to the end first). Seated Free Bet deals the other way
(`Rules.split_seconds_first`): the second card of hand 1, the second card of hand 2, then hand 1's hits, then
hand 2's hits.

Decisions the rules contract left open (docs/rules.md writes them down):
- Unfunded paid split: docs/rules.md says HIT below 11 and STAND above 11. A pair never totals exactly 11 (A-A is
  soft 12), so the gap cannot occur; the code treats 11 as HIT, like the timeout rule ("11 or less").
- A paid double or split costs the position's main bet (a Golden Chip position pays it in cash).
- A Bet Behind that follows a seat's split with only hand 1 plays that hand as a split hand (A+10 is 21, not
  blackjack), because its cards are the seat's split hand. Where both second cards come first, it skips the
  seat's hand 2 card in the stream (that card is on the seat's hand 2, which it does not hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import EngineError
from .hands import Hand, is_hard, is_splittable_pair
from .rules import Rules

HIT, STAND, DOUBLE, SPLIT, TIMEOUT = "hit", "stand", "double", "split", "timeout"
ACTIONS = (HIT, STAND, DOUBLE, SPLIT, TIMEOUT)
# Effective actions, as the trace records them after the timeout rule and the fallbacks decided.
FREE_DOUBLE, FREE_SPLIT = "free_double", "free_split"
HIT_AND_STAND, SPLIT_HAND_ONE = "hit_and_stand", "split_hand_one"

DECISION, NEEDS_CARD, FINISHED = "decision", "needs_card", "finished"


@dataclass(frozen=True, slots=True)
class Decision:
    """What the player may do at the current decision point (plus what a timeout would do)."""

    hand_index: int
    cards: tuple[Card, ...]
    total: int
    soft: bool
    actions: tuple[str, ...]
    double: str | None  # "free", "paid" or None when no double is offered
    split: str | None  # "free", "paid" or None
    double_cost: int
    split_cost: int
    double_funded: bool
    split_funded: bool
    timeout_action: str


class PlayerPlay:
    """One player's (or one Bet Behind's) hands on a position, played against the position's card stream."""

    def __init__(
        self,
        rules: Rules,
        first_cards: Sequence[Card],
        *,
        main: int = 0,
        golden: int = 0,
        balance: int | None = None,
        stream: Sequence[Card] = (),
        follow: Sequence[tuple[int, str]] | None = None,
    ) -> None:
        if len(first_cards) != 2:
            raise EngineError("a position starts with exactly two cards")
        self.rules = rules
        self.unit = main + golden
        self.balance = balance
        self.hands = [Hand(list(first_cards), stake=main, golden=golden, charlie_cards=rules.charlie)]
        self.current = 0
        self.used = 0
        self.decisions_taken = 0
        self.trace: list[tuple[int, str]] = []
        self._stream = stream
        self._pending = False
        self._follow = follow
        self._follow_at = 0
        self._hand_one_only = False
        self._skip_hand_two_card = False

    # --- state ---------------------------------------------------------------------------------------------
    @property
    def next_card_index(self) -> int:
        """Index in the stream of the next card this player requests (= cards it has taken)."""
        return self.used

    def supply(self, stream: Sequence[Card]) -> None:
        """Swap in a longer stream (live play: the dealer drew the card a player asked for)."""
        self._stream = stream

    def advance(self) -> str:
        """Deal what is due without a decision; return DECISION, NEEDS_CARD or FINISHED."""
        while True:
            hand = self.hands[self.current]
            if self._pending or len(hand.cards) < 2:
                if self.used >= len(self._stream):
                    self._pending = True
                    return NEEDS_CARD
                hand.cards.append(self._stream[self.used])
                self.used += 1
                self._pending = False
                if self._skip_hand_two_card and len(hand.cards) == 2:
                    self._skip_hand_two_card = False
                    self.used += 1
                continue
            if self.rules.split_seconds_first:
                waiting = next((other for other in self.hands if len(other.cards) < 2), None)
                if waiting is not None:
                    if self.used >= len(self._stream):
                        return NEEDS_CARD
                    waiting.cards.append(self._stream[self.used])
                    self.used += 1
                    continue
            if not hand.finished:
                return DECISION
            if self.current + 1 < len(self.hands) and not self._hand_one_only:
                self.current += 1
                continue
            return FINISHED

    def decision(self) -> Decision | None:
        """The current decision point, or None when the player must wait for a card or is finished."""
        if self.advance() != DECISION:
            return None
        hand = self.hands[self.current]
        may_double, may_split = self._may_double(hand), self._may_split(hand)
        free_double = may_double and self._is_free_double(hand)
        free_split = may_split and self._is_free_split(hand)
        actions = (HIT, STAND) + ((DOUBLE,) if may_double else ()) + ((SPLIT,) if may_split else ())
        return Decision(
            hand_index=self.current,
            cards=tuple(hand.cards),
            total=hand.total,
            soft=hand.soft,
            actions=actions,
            double=None if not may_double else "free" if free_double else "paid",
            split=None if not may_split else "free" if free_split else "paid",
            double_cost=self.unit if may_double and not free_double else 0,
            split_cost=self.unit if may_split and not free_split else 0,
            double_funded=free_double or self._funded(self.unit),
            split_funded=free_split or self._funded(self.unit),
            timeout_action=self._timeout_action(hand),
        )

    def legal_actions(self) -> tuple[str, ...]:
        """Decisions the server may accept now (TIMEOUT is always acceptable at a decision point)."""
        point = self.decision()
        return () if point is None else point.actions + (TIMEOUT,)

    # --- decisions -----------------------------------------------------------------------------------------
    def apply(self, action: str) -> str:
        """Apply one logged decision at the current decision point; returns the effective action."""
        if self.advance() != DECISION:
            raise EngineError(f"no decision is due, got {action!r}")
        hand = self.hands[self.current]
        effective = self._resolve(hand, action)
        self.trace.append((self.current, effective))
        self._perform(hand, effective)
        self.decisions_taken += 1
        return effective

    def follow_seat(self) -> str:
        """Bet Behind: apply the seat's decisions (its trace) until this player needs a card or is finished."""
        assert self._follow is not None
        while (status := self.advance()) == DECISION:
            if self._follow_at >= len(self._follow):
                raise EngineError("the seat's decisions end before the Bet Behind hands do")
            hand_index, seat_action = self._follow[self._follow_at]
            self._follow_at += 1
            if hand_index != self.current:
                raise EngineError("the Bet Behind hands do not match the seat's hands")
            effective = self._resolve_follow(self.hands[self.current], seat_action)
            self.trace.append((self.current, effective))
            self._perform(self.hands[self.current], effective)
            self.decisions_taken += 1
        return status

    def _resolve(self, hand: Hand, action: str) -> str:
        if action == TIMEOUT:
            return self._timeout_action(hand)
        if action in (HIT, STAND):
            return action
        if action == DOUBLE:
            if not self._may_double(hand):
                raise EngineError(f"illegal action double on hand {self.current + 1} ({hand.describe()})")
            if self._is_free_double(hand):
                return FREE_DOUBLE
            return DOUBLE if self._funded(self.unit) else HIT
        if action == SPLIT:
            if not self._may_split(hand):
                raise EngineError(f"illegal action split on hand {self.current + 1} ({hand.describe()})")
            if self._is_free_split(hand):
                return FREE_SPLIT
            if self._funded(self.unit):
                return SPLIT
            return HIT if hand.total <= 11 else STAND
        raise EngineError(f"unknown action {action!r}")

    def _resolve_follow(self, hand: Hand, seat_action: str) -> str:
        if seat_action in (DOUBLE, FREE_DOUBLE) and not self._may_double(hand):
            raise EngineError("the Bet Behind cannot follow the seat's double")
        if seat_action in (SPLIT, FREE_SPLIT) and not self._may_split(hand):
            raise EngineError("the Bet Behind cannot follow the seat's split")
        if seat_action == DOUBLE:
            return DOUBLE if self._funded(self.unit) else HIT_AND_STAND
        if seat_action == SPLIT:
            return SPLIT if self._funded(self.unit) else SPLIT_HAND_ONE
        return seat_action

    def _perform(self, hand: Hand, action: str) -> None:
        if action == STAND:
            hand.stood = True
            return
        self._pending = True  # every other action deals this hand a card next
        if action == DOUBLE:
            self._spend(self.unit)
            hand.double = self.unit
            hand.doubled = True
        elif action == FREE_DOUBLE:
            hand.free = self.unit
            hand.free_double = True
            hand.doubled = True
        elif action == HIT_AND_STAND:
            hand.hit_and_stand = True
        elif action in (SPLIT, FREE_SPLIT, SPLIT_HAND_ONE):
            self._split(hand, action)
        elif action != HIT:
            raise EngineError(f"unknown action {action!r}")

    def _split(self, hand: Hand, action: str) -> None:
        first, second = hand.cards
        aces = first.points == 1
        hand.cards = [first]
        hand.from_split = True
        hand.split_aces = aces
        if action == SPLIT_HAND_ONE:
            self._hand_one_only = True
            self._skip_hand_two_card = self.rules.split_seconds_first
            return
        paid = action == SPLIT
        if paid:
            self._spend(self.unit)
        self.hands.append(
            Hand(
                [second],
                stake=self.unit if paid else 0,
                free=0 if paid else self.unit,
                from_split=True,
                split_aces=aces,
                charlie_cards=self.rules.charlie,
            )
        )

    # --- rule questions ------------------------------------------------------------------------------------
    def _may_double(self, hand: Hand) -> bool:
        return len(hand.cards) == 2 and (not hand.from_split or self.rules.double_after_split)

    def _may_split(self, hand: Hand) -> bool:
        return len(self.hands) == 1 and not hand.from_split and is_splittable_pair(hand.cards)

    def _is_free_double(self, hand: Hand) -> bool:
        return self.rules.free_double and is_hard(hand.cards) and hand.total in self.rules.free_double_totals

    def _is_free_split(self, hand: Hand) -> bool:
        # 10-value pairs split with real money; every other pair splits free where the profile offers it.
        return self.rules.free_split and hand.cards[0].points != 10

    def _timeout_action(self, hand: Hand) -> str:
        if self.rules.timeout == "hit_11_or_less" and hand.total <= 11:
            return HIT
        return STAND

    def _funded(self, cost: int) -> bool:
        return self.balance is None or self.balance >= cost

    def _spend(self, cost: int) -> None:
        if self.balance is not None:
            self.balance -= cost


def play_log(
    rules: Rules,
    first_cards: Sequence[Card],
    actions: Sequence[str],
    stream: Sequence[Card],
    *,
    main: int = 0,
    golden: int = 0,
    balance: int | None = None,
) -> PlayerPlay:
    """Play a complete decision log; every decision must be used and every hand must end.

    A player who was never offered a decision (a natural blackjack) may still have one logged `stand`:
    the recorded vectors log it, and it changes nothing.
    """
    play = PlayerPlay(rules, first_cards, main=main, golden=golden, balance=balance, stream=stream)
    taken = 0
    while (status := play.advance()) == DECISION:
        if taken >= len(actions):
            hand = play.hands[play.current]
            raise EngineError(f"missing decision for hand {play.current + 1} ({hand.describe()})")
        play.apply(actions[taken])
        taken += 1
    if status == NEEDS_CARD:
        raise _stream_short(play, stream)
    check_no_surplus(actions[taken:], decided=taken > 0)
    return play


def check_no_surplus(rest: Sequence[str], *, decided: bool) -> None:
    if not rest or (not decided and list(rest) == [STAND]):
        return
    raise EngineError(f"surplus action {rest[0]!r}: the player has no decision left")


def follow_log(
    rules: Rules,
    first_cards: Sequence[Card],
    seat_trace: Sequence[tuple[int, str]],
    stream: Sequence[Card],
    *,
    main: int = 0,
    golden: int = 0,
    balance: int | None = None,
) -> PlayerPlay:
    """A Bet Behind on a seat: same cards, the seat's effective decisions, its own stakes and fallbacks."""
    play = PlayerPlay(
        rules, first_cards, main=main, golden=golden, balance=balance, stream=stream, follow=seat_trace
    )
    if play.follow_seat() == NEEDS_CARD:
        raise _stream_short(play, stream)
    return play


def _stream_short(play: PlayerPlay, stream: Sequence[Card]) -> EngineError:
    return EngineError(f"missing stream card: card {play.used + 1} is requested but the stream has {len(stream)}")


def player_turn(
    rules: Rules,
    first_cards: Sequence[Card],
    actions: Sequence[str],
    stream: Sequence[Card],
    *,
    main: int = 0,
    golden: int = 0,
    balance: int | None = None,
) -> PlayerPlay:
    """Live play: replay the decisions logged so far and stop where the player is now.

    Then `status = turn.advance()`: DECISION (see `turn.decision()` / `turn.legal_actions()`), NEEDS_CARD
    (the player's next card is stream[`turn.next_card_index`]) or FINISHED. Raises EngineError if the log holds
    an illegal decision or more decisions than the hands allow.
    """
    play = PlayerPlay(rules, first_cards, main=main, golden=golden, balance=balance, stream=stream)
    for taken, action in enumerate(actions):
        status = play.advance()
        if status == NEEDS_CARD:
            raise EngineError(f"decision {action!r} logged before the card it waits for was dealt")
        if status == FINISHED:
            check_no_surplus(actions[taken:], decided=taken > 0)
            break
        play.apply(action)
    play.advance()  # deal what is already in the stream, so `hands` shows every card the player holds
    return play

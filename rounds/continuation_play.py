"""The non-live continuation's play (rules.md, Disconnection: `non_live`), as plain data: no database here.

A continuation is a one-position round whose cards are the carried-over cards followed by cards drawn from its
own shoe; it plays, settles and replays through the same engine as a live round (a round script describes it).
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rounds.engine.bets import PlayerEntry
from rounds.engine.cards import ALL_CARDS, DEFAULT_DECKS, parse_card
from rounds.engine.dealer import dealer_needs_card
from rounds.engine.play import DECISION, FINISHED, NEEDS_CARD, PlayerPlay, player_turn
from rounds.engine.rules import Rules
from rounds.engine.settle import PlayerResult, settle_round


def continuation_shoe(dealt: list[str]) -> list[str]:
    """8 decks less every card dealt in the round so far, shuffled by the operating system's CSPRNG."""
    left = Counter({str(card): DEFAULT_DECKS for card in ALL_CARDS})
    left.subtract(Counter(dealt))
    cards = [text for text, count in sorted(left.items()) for _ in range(max(count, 0))]
    secrets.SystemRandom().shuffle(cards)
    return cards


@dataclass
class ContinuationState:
    rules: Rules
    label: str
    main: int
    golden: int
    insurance: bool
    first: list[str]
    stream: list[str]
    dealer: list[str]
    actions: list[str]
    funded: list[bool]
    unit: int
    insurance_stake: int
    shoe: list[str]
    drawn: list[tuple[str, str]] = field(default_factory=list)  # (where, card) drawn by the last `advance`

    def balance(self) -> int | None:
        """As the live round's: unlimited until a paid double or split could not be held (rounds.engine_adapter)."""
        if all(self.funded):
            return None
        return self.funded.index(False) * self.unit + self.insurance_stake

    def turn(self) -> PlayerPlay:
        return player_turn(self.rules, [parse_card(c) for c in self.first], self.actions,
                           [parse_card(c) for c in self.stream], main=self.main, golden=self.golden,
                           balance=self._balance_after_insurance())

    def _balance_after_insurance(self) -> int | None:
        balance = self.balance()
        return None if balance is None else balance - self.insurance_stake

    def _draw(self, where: list[str], name: str) -> None:
        card = self.shoe.pop(0)
        where.append(card)
        self.drawn.append((name, card))

    def advance(self) -> str:
        """Draw every card due before the next decision (and the dealer's, once the hands are done)."""
        while len(self.first) < 2:
            self._draw(self.first, "player")
        while True:
            status = self.turn().advance()
            if status == NEEDS_CARD:
                self._draw(self.stream, "stream")
                continue
            if status == DECISION:
                return DECISION
            break
        self._dealer_complete()
        return FINISHED

    def _dealer_complete(self) -> None:
        hands = self.turn().hands
        up = parse_card(self.dealer[0]) if self.dealer else None
        live = any(hand.live for hand in hands)
        second = self.insurance or any(
            hand.blackjack or (up is not None and up.points in (1, 10) and hand.charlie
                               and not self.rules.charlie_beats_dealer_blackjack) for hand in hands)
        while dealer_needs_card(self.rules, [parse_card(c) for c in self.dealer], any_live_hand=live,
                                needs_second=second):
            self._draw(self.dealer, "dealer")

    def entry(self) -> PlayerEntry:
        return PlayerEntry(id=self.label, main=self.main, golden_chip=self.golden, side_bets=(),
                           insurance=self.insurance, balance=self.balance(), actions=tuple(self.actions))

    def settle(self) -> PlayerResult:
        cards = [parse_card(c) for c in self.first]
        outcome = settle_round(self.rules, cards, [parse_card(c) for c in self.dealer],
                               [parse_card(c) for c in self.stream], [self.entry()])
        return outcome.players[self.label]

    def script(self, *, name: str, overrides: dict[str, Any], expect: dict[str, Any] | None) -> dict[str, Any]:
        """The continuation as a round script (docs/round-script.md): replay_round settles it alone."""
        player: dict[str, Any] = {"id": self.label, "bets": {}, "insurance": self.insurance,
                                  "balance": self.balance(), "actions": list(self.actions)}
        if self.golden:
            player["bets"]["golden_chip"] = self.golden
        if self.main:
            player["bets"]["main"] = self.main
        script: dict[str, Any] = {
            "id": name, "rules": self.rules.name, "overrides": overrides,
            "note": "non-live continuation: carried-over cards, then the cards the server drew",
            "cards": {"player": list(self.first), "dealer": list(self.dealer), "stream": list(self.stream)},
            "players": [player],
        }
        if expect is not None:
            script["expect"] = {self.label: expect}
        return script

"""Settlement in integer minor units: hands, insurance, side bets, and a whole position's round.

Every component reports what a wallet needs to resolve its held stake exactly:
`cash_stake` (held cash), `golden_stake` (held Golden Chips), `free_stake` (no money behind it), `net` (the
game result shown to the player), `cash_return` (cash to credit: returned stake plus winnings) and
`golden_return` (chips back to the Golden Chip balance).

Golden Chips: `net` is reported like a cash hand (win +stake, blackjack +1.5 stake, loss -stake, push 0), but the
money moves differently: a win credits only the winnings in cash and spends the chips, a loss spends the chips,
a push returns the chips. So for a Golden Chip hand the cash moved is not the net: credit the returns.

Decisions the rules contract left open (docs/rules.md writes them down):
- A Bet Behind whose seat has no bet is refunded: its hand reports 0 (and each side bet 0, refunded).
- A peeked dealer blackjack ends the round before any decision, so a player's log must then be empty
  (one logged `stand` is tolerated, as for a natural blackjack).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .bets import PlayerEntry, check_entry, side_bet_stakes
from .cards import Card, validate_card_counts
from .dealer import DealerHand, check_dealer_cards, dealer_hand, peeked_blackjack
from .errors import EngineError
from .hands import Hand
from .play import check_no_surplus, follow_log, play_log
from .rules import Rules
from .sidebets import side_bet_outcome


@dataclass(frozen=True, slots=True)
class HandResult:
    cards: tuple[str, ...]
    outcome: str  # win, blackjack, charlie, push, dealer_22, lose, bust, dealer_blackjack, refund
    cash_stake: int
    golden_stake: int
    free_stake: int
    double_stake: int  # the paid double, included in cash_stake
    net: int
    cash_return: int
    golden_return: int


@dataclass(frozen=True, slots=True)
class StakeResult:
    """Insurance or one side bet."""

    stake: int
    net: int
    outcome: str | None  # the paytable line, "win"/"lose" for insurance, "refund", or None for a loss

    @property
    def cash_return(self) -> int:
        return self.stake + self.net


@dataclass(frozen=True, slots=True)
class PlayerResult:
    hands: tuple[HandResult, ...]
    insurance: StakeResult | None
    side_bets: tuple[tuple[str, StakeResult], ...]
    refunded: bool = False

    @property
    def net(self) -> int:
        components = [hand.net for hand in self.hands] + [result.net for _name, result in self.side_bets]
        return sum(components) + (self.insurance.net if self.insurance else 0)

    def to_script(self) -> dict[str, Any]:
        """The round-script RESULT: a key for each thing staked."""
        result: dict[str, Any] = {}
        if self.hands:
            result["hands"] = [hand.net for hand in self.hands]
        if self.insurance is not None:
            result["insurance"] = self.insurance.net
        for name, side in self.side_bets:
            result[name] = side.net
        return result


@dataclass(frozen=True, slots=True)
class RoundResult:
    players: dict[str, PlayerResult]
    dealer: DealerHand
    stream_used: int

    def to_script(self, script_id: Any) -> dict[str, Any]:
        return {
            "id": script_id,
            "players": {player_id: result.to_script() for player_id, result in self.players.items()},
            "dealer": {"cards": [str(card) for card in self.dealer.cards], "total": self.dealer.total},
        }


# --- one hand ------------------------------------------------------------------------------------------------
def settle_hand(rules: Rules, hand: Hand, dealer: DealerHand) -> HandResult:
    """Settle one finished hand against the dealer's final hand."""
    if hand.bust:
        return _lose(hand, "bust")
    if hand.blackjack:
        return _push(hand, "push") if dealer.blackjack else _blackjack(hand)
    if hand.charlie and (not dealer.blackjack or rules.charlie_beats_dealer_blackjack):
        return _win(hand, "charlie")
    if dealer.blackjack:
        return _lose_to_dealer_blackjack(rules, hand, dealer)
    if rules.dealer_22_push and dealer.total == 22:
        return _push(hand, "dealer_22")
    if dealer.total > 21 or hand.total > dealer.total:
        return _win(hand, "win")
    if hand.total == dealer.total:
        return _push(hand, "push")
    return _lose(hand, "lose")


def _result(hand: Hand, outcome: str, net: int, cash_return: int, golden_return: int) -> HandResult:
    return HandResult(
        cards=tuple(str(card) for card in hand.cards),
        outcome=outcome,
        cash_stake=hand.stake + hand.double,
        golden_stake=hand.golden,
        free_stake=hand.free,
        double_stake=hand.double,
        net=net,
        cash_return=cash_return,
        golden_return=golden_return,
    )


def _win(hand: Hand, outcome: str) -> HandResult:
    # Golden Chips win their value in cash and are spent; free bets win like real ones.
    cash = hand.stake + hand.double
    winnings = cash + hand.golden + hand.free
    return _result(hand, outcome, winnings, cash + winnings, 0)


def _blackjack(hand: Hand) -> HandResult:
    winnings = (hand.stake + hand.golden) * 3 // 2  # exact: main bets are even
    return _result(hand, "blackjack", winnings, hand.stake + winnings, 0)


def _push(hand: Hand, outcome: str) -> HandResult:
    return _result(hand, outcome, 0, hand.stake + hand.double, hand.golden)


def _lose(hand: Hand, outcome: str) -> HandResult:
    return _result(hand, outcome, -(hand.stake + hand.double + hand.golden), 0, 0)


def _lose_to_dealer_blackjack(rules: Rules, hand: Hand, dealer: DealerHand) -> HandResult:
    # EU-style 10 up: the doubled portion of a live hand comes back; with an ace up every real stake is taken.
    returned = hand.double if dealer.up.points == 10 and rules.ten_up_blackjack_returns_double else 0
    lost = hand.stake + hand.golden + hand.double - returned
    return _result(hand, "dealer_blackjack", -lost, returned, 0)


# --- insurance and side bets ---------------------------------------------------------------------------------
def settle_insurance(stake: int, dealer: DealerHand) -> StakeResult:
    if dealer.blackjack:
        return StakeResult(stake, 2 * stake, "win")
    return StakeResult(stake, -stake, "lose")


def settle_side_bet(
    rules: Rules, name: str, stake: int, player_cards: Sequence[Card], up: Card
) -> StakeResult:
    first, second = player_cards
    outcome = side_bet_outcome(name, (first, second), up)
    if outcome is None:
        return StakeResult(stake, -stake, None)
    paytable = dict(dict(rules.paytables)[name])
    if outcome not in paytable:
        raise EngineError(f"paytable for {name} has no line {outcome!r}")
    return StakeResult(stake, stake * paytable[outcome], outcome)


# --- a whole position --------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Played:
    hands: tuple[Hand, ...]
    used: int
    trace: tuple[tuple[int, str], ...]
    has_bet: bool = True
    refunded: bool = False


def memo_key(entry: PlayerEntry) -> tuple[Any, ...]:
    """Players with equal keys get equal results. The first four items decide the hands (the play key)."""
    balance = entry.balance
    if balance is not None:
        balance = _balance_class(entry)
    return (entry.actions, entry.main, entry.golden_chip, balance, entry.side_bets, entry.insurance)


def _balance_class(entry: PlayerEntry) -> Any:
    # Every paid double or split costs exactly one main bet, and a play spends at most three (split plus a
    # double on each hand), so only min(balance // unit, 3) can change a decision's outcome.
    balance = entry.balance
    if not entry.unit or not isinstance(balance, int) or isinstance(balance, bool):
        return ("raw", balance)  # nothing to play, or a bad value that validation must see
    remaining = balance - entry.insurance_stake
    return min(remaining // entry.unit, 3) if remaining >= 0 else ("raw", balance)


class _Position:
    """Plays and settles every player on one position; identical players are computed once when memoising."""

    def __init__(
        self,
        rules: Rules,
        player_cards: tuple[Card, ...],
        dealer_cards: tuple[Card, ...],
        stream: tuple[Card, ...],
    ) -> None:
        self.rules = rules
        self.player_cards = player_cards
        self.dealer_cards = dealer_cards
        self.stream = stream
        self.up = dealer_cards[0]
        self.peeked = peeked_blackjack(rules, dealer_cards)
        self._plays: dict[tuple[Any, ...], _Played] = {}
        self._hands: dict[tuple[Any, ...], tuple[HandResult, ...]] = {}
        self._stakes: dict[tuple[str, int], StakeResult] = {}

    def play(self, entry: PlayerEntry, play_key: tuple[Any, ...] | None) -> _Played:
        if play_key is not None and (cached := self._plays.get(play_key)) is not None:
            return cached
        try:
            played = self._play(entry)
        except EngineError as error:
            raise EngineError(f"{entry.id}: {error}") from None
        if play_key is not None:
            self._plays[play_key] = played
        return played

    def _unplayed(self, entry: PlayerEntry) -> _Played:
        """No decision is due: no main bet, or a peeked dealer blackjack ended the round."""
        check_no_surplus(entry.actions, decided=False)
        if not entry.unit:
            return _Played((), 0, (), has_bet=False)
        return _Played((Hand(list(self.player_cards), stake=entry.main, golden=entry.golden_chip),), 0, ())

    def _play(self, entry: PlayerEntry) -> _Played:
        if not entry.unit or self.peeked:
            return self._unplayed(entry)
        play = play_log(
            self.rules,
            self.player_cards,
            entry.actions,
            self.stream,
            main=entry.main,
            golden=entry.golden_chip,
            balance=entry.balance_after_insurance(),
        )
        return _Played(tuple(play.hands), play.used, tuple(play.trace))

    def follow(self, entry: PlayerEntry, seat: _Played) -> _Played:
        if not seat.has_bet:
            return _Played((), 0, (), refunded=True)
        if not entry.unit or self.peeked:
            return self._unplayed(entry)
        try:
            play = follow_log(
                self.rules,
                self.player_cards,
                seat.trace,
                self.stream,
                main=entry.main,
                golden=entry.golden_chip,
                balance=entry.balance,
            )
        except EngineError as error:
            raise EngineError(f"{entry.id}: {error}") from None
        return _Played(tuple(play.hands), play.used, tuple(play.trace))

    def settle(
        self, entry: PlayerEntry, played: _Played, dealer: DealerHand, play_key: tuple[Any, ...] | None
    ) -> PlayerResult:
        side_bets = side_bet_stakes(entry)
        if played.refunded:
            return _refund(entry, side_bets)
        hands = self._hands.get(play_key) if play_key is not None else None
        if hands is None:
            hands = tuple(settle_hand(self.rules, hand, dealer) for hand in played.hands)
            if play_key is not None:
                self._hands[play_key] = hands
        insurance = settle_insurance(entry.insurance_stake, dealer) if entry.insurance else None
        sides = tuple((name, self._side_bet(name, stake)) for name, stake in side_bets)
        return PlayerResult(hands, insurance, sides)

    def _side_bet(self, name: str, stake: int) -> StakeResult:
        # One outcome for everyone on the position: only the stake differs.
        result = self._stakes.get((name, stake))
        if result is None:
            result = self._stakes[(name, stake)] = settle_side_bet(
                self.rules, name, stake, self.player_cards, self.up
            )
        return result


def _refund(entry: PlayerEntry, side_bets: Sequence[tuple[str, int]]) -> PlayerResult:
    hands: tuple[HandResult, ...] = ()
    if entry.unit:
        hands = (
            HandResult((), "refund", entry.main, entry.golden_chip, 0, 0, 0, entry.main, entry.golden_chip),
        )
    sides = tuple((name, StakeResult(stake, 0, "refund")) for name, stake in side_bets)
    return PlayerResult(hands, None, sides, refunded=True)


def settle_round(
    rules: Rules,
    player_cards: Sequence[Card],
    dealer_cards: Sequence[Card],
    stream: Sequence[Card],
    players: Sequence[PlayerEntry],
    *,
    memo: bool = True,
    untrusted: bool = False,
) -> RoundResult:
    """Play and settle every player on one position (common-draw players, or a seat and its Bet Behinds).

    Raises EngineError for any record that is not a correct round: the caller voids the round. Entries are
    checked one per memo group (below); `untrusted` (a round script) checks every one, before any is hashed.
    With `memo`, players with identical logs and bets are computed once; the result is the same either way
    (a property test compares both paths).
    """
    player_cards, dealer_cards, stream = tuple(player_cards), tuple(dealer_cards), tuple(stream)
    if len(player_cards) != 2:
        raise EngineError("the position needs exactly two first cards")
    if not dealer_cards:
        raise EngineError("the dealer has no card")
    validate_card_counts(player_cards + dealer_cards + stream, rules.decks)
    _check_players(players)
    if untrusted:
        for entry in players:
            check_entry(rules, entry, dealer_cards[0])
    position = _Position(rules, player_cards, dealer_cards, stream)
    # Identical players (equal memo keys) are played and settled once; the first of them stands for all.
    keys = [memo_key(entry) if memo and not entry.behind else None for entry in players]
    first_of: dict[tuple[Any, ...], int] = {}
    # Each player's group, as the index of the player who stands for it: each key is hashed once.
    group: list[int] = []
    try:
        for index, key in enumerate(keys):
            group.append(index if key is None else first_of.setdefault(key, index))
    except TypeError:
        # A value that cannot be hashed (a list for a stake or a flag) is a wrong-typed entry: say which.
        for entry in players:
            check_entry(rules, entry, dealer_cards[0])
        raise
    deciding = [index for index, first in enumerate(group) if first == index]
    # The first player of each group is checked for all of it: checking each of thousands of identical common-draw
    # players costs the memo a third of its speed. Equal keys compare by value (1000 == 1000.0): entries that may
    # be wrong-typed come with `untrusted` and were all checked above.
    for index in deciding:
        check_entry(rules, players[index], dealer_cards[0])
    played = _play_all(position, players, keys, deciding)
    _check_stream(played.values(), stream)
    _check_dealer(rules, position, [players[index] for index in deciding], played.values())
    dealer = dealer_hand(rules, dealer_cards)
    settled = {
        index: position.settle(players[index], played[index], dealer, _play_key(keys[index]))
        for index in deciding
    }
    results = {entry.id: settled[first] for entry, first in zip(players, group, strict=True)}
    return RoundResult(results, dealer, max((p.used for p in played.values()), default=0))


def _play_key(key: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    return None if key is None else key[:4]


def _check_players(players: Sequence[PlayerEntry]) -> None:
    if not players:
        raise EngineError("the position has no player")
    ids = [entry.id for entry in players]
    if len(set(ids)) != len(ids):
        raise EngineError("player ids must be unique")
    for player_id in ids:
        if not isinstance(player_id, str) or not player_id:
            raise EngineError(f"player id must be a non-empty string, not {player_id!r}")


def _play_all(
    position: _Position, players: Sequence[PlayerEntry], keys: list[Any], deciding: list[int]
) -> dict[int, _Played]:
    played: dict[int, _Played] = {}
    for index in deciding:
        if not players[index].behind:
            played[index] = position.play(players[index], _play_key(keys[index]))
    seat = next((played[index] for index in deciding if not players[index].behind), None)
    for index in deciding:
        if players[index].behind:
            if seat is None:
                raise EngineError(f"{players[index].id}: a Bet Behind needs a seat player to follow")
            played[index] = position.follow(players[index], seat)
    return played


def _check_stream(played: Iterable[_Played], stream: tuple[Card, ...]) -> None:
    used = max((p.used for p in played), default=0)
    if used < len(stream):
        unused = " ".join(str(card) for card in stream[used:])
        raise EngineError(f"unused stream card(s) {unused}: the players requested only {used}")


def _check_dealer(
    rules: Rules, position: _Position, players: Sequence[PlayerEntry], played: Iterable[_Played]
) -> None:
    # Distinct plays are enough: identical players share one _Played object.
    hands = [hand for p in {id(p): p for p in played}.values() for hand in p.hands]
    must_complete = not position.peeked and any(hand.live for hand in hands)
    up_can_blackjack = position.up.points in (1, 10)
    needs_second = (
        any(entry.insurance for entry in players)
        or any(hand.blackjack for hand in hands)
        or (
            up_can_blackjack
            and not rules.charlie_beats_dealer_blackjack
            and any(hand.charlie for hand in hands)
        )
    )
    check_dealer_cards(rules, position.dealer_cards, must_complete=must_complete, needs_second=needs_second)

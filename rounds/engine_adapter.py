"""A round's record as plain data, and everything the rules engine makes of it: live play, settlement, the
split of each result over the held wallet bets, and round scripts. No database access here: selectors load a
`RoundRecord` from the tables (live play, settlement) or from the audit trail alone (replay), and both go
through these same functions, so a replay that matches proves the audit trail holds the whole round.

Decisions where the issue is silent:
- A spot's balance for the rules' fallbacks is not a snapshot of the wallet: each paid double or split tries
  to hold its stake, and once one could not be held, every later paid action of that spot in the round falls
  back too (no new hold is tried). So the engine's single `balance` reproduces the live play exactly:
  it is (paid actions funded before the first unfunded one) x main bet (+ the insurance stake), or unlimited.
- A hand's return is split over the held bets of that hand in proportion to their stakes (the whole stake on a
  win, cash stakes on a push or loss, the doubles alone when a ten-up dealer blackjack returns the double);
  a free split hand has no held bet, so its return goes to the spot's first main bet. The remainder of the
  integer division goes to the largest stake. The sum always equals the engine's return exactly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from rounds.engine.bets import PlayerEntry
from rounds.engine.cards import Card, parse_card
from rounds.engine.hands import hand_total
from rounds.engine.play import (
    NEEDS_CARD,
    SPLIT,
    SPLIT_HAND_ONE,
    PlayerPlay,
    player_turn,
)
from rounds.engine.rules import Rules
from rounds.engine.settle import HandResult, PlayerResult, settle_round
from rounds.errors import SettlementMismatch

# Mirrors of the model choices, so this module stays free of Django.
MAIN_KINDS = ("main", "golden_chip", "bet_behind")
SIDE_KINDS = ("any_pair", "21+3", "hot3", "perfect_pairs")
GOLDEN = "golden_chips"


# The records are named tuples, not frozen dataclasses: a big common draw loads 45,000 bets, 20,000 decisions
# and 10,000 spots for its settlement, and a tuple is built in a fifth of the time.
class BetRecord(NamedTuple):
    id: int
    spot_id: int
    kind: str
    hand_index: int
    amount: int
    funding: str
    wallet_bet_id: int


class DecisionRecord(NamedTuple):
    spot_id: int
    sequence: int
    kind: str  # action, follow, insurance
    action: str
    effective: str
    hand_index: int
    funded: bool | None


class SpotRecord(NamedTuple):
    id: int
    player_id: int
    seat: int | None
    behind: bool
    currency: str
    voided: bool

    @property
    def label(self) -> str:
        return spot_label(seat=self.seat, behind=self.behind, player_id=self.player_id)


def spot_label(*, seat: int | None, behind: bool, player_id: int) -> str:
    """The player id a spot has in the engine, in round scripts and in the stored settlement."""
    if seat is None:
        return f"p{player_id}"
    return f"seat{seat}-behind-p{player_id}" if behind else f"seat{seat}"


_bet_id = _spot_id = attrgetter("id")
_bet_kind = attrgetter("kind")
_bet_amount = attrgetter("amount")
_decision_kind = attrgetter("kind")
_decision_action = attrgetter("action")
_decision_funded = attrgetter("funded")
# What a spot's entry depends on besides its label: its bets' kinds and stakes, its decisions' kinds, actions and
# funding, in order (the two kinds of items have different lengths, so one flat key reads one way only).
_bet_entry_key = attrgetter("kind", "amount")
_decision_entry_key = attrgetter("kind", "action", "funded")
# What the split of a result over a spot's bets depends on besides the result: each bet's kind, hand, stake, funding.
_bet_pattern = itemgetter(2, 3, 4, 5)
_decision_sequence = attrgetter("sequence")


@dataclass
class RoundRecord:
    rules: Rules
    common_draw: bool
    # (target, seat) -> cards in recording order; target is dealer, player, stream or seat (seat 0 unless seat).
    cards: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    spots: list[SpotRecord] = field(default_factory=list)
    bets: list[BetRecord] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)
    # Spots whose position left the live round for a non-live continuation: the live round settles only their
    # side bets (on the live cards); the continuation settles the rest.
    departed: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.reindex()

    def reindex(self) -> None:
        """Forget the per-spot indexes: call after appending bets or decisions."""
        self._bets_by_spot: dict[int, list[BetRecord]] | None = None
        self._decisions_by_spot: dict[int, list[DecisionRecord]] | None = None
        self._entries: dict[tuple[Any, ...], tuple[Any, ...]] | None = None
        self._entries_exact: bool | None = None

    def entry_memo(self) -> dict[tuple[Any, ...], tuple[Any, ...]] | None:
        """spot_entry's memo of entries by their spots' bets and decisions, or None when some stake, kind, action or
        funded flag is not of its exact type (a record rebuilt from an audit trail may hold 1000.0 or True for a
        stake): equal keys would then not mean identical entries, and the engine must see each value as it is."""
        if self._entries_exact is None:
            bets, decisions = self.bets, self.decisions
            self._entries_exact = (
                set(map(type, map(_bet_kind, bets))) <= {str}
                and set(map(type, map(_bet_amount, bets))) <= {int}
                and set(map(type, map(_decision_kind, decisions))) <= {str}
                and set(map(type, map(_decision_action, decisions))) <= {str}
                and set(map(type, map(_decision_funded, decisions))) <= {bool, type(None)}
            )
            self._entries = {}
        return self._entries if self._entries_exact else None

    def bets_of(self, spot_id: int) -> list[BetRecord]:
        index = self._bets_by_spot
        if index is None:
            index = self._bet_index()
        return index.get(spot_id, [])

    def _bet_index(self) -> dict[int, list[BetRecord]]:
        """spot id -> its bets, in id order; only spots with a bet have a key."""
        if self._bets_by_spot is None:
            grouped: dict[int, list[BetRecord]] = defaultdict(list)
            for bet in self.bets:
                grouped[bet.spot_id].append(bet)
            # Each spot's few bets sorted apart: the loaded rows come in id order, so this is a check, not a sort
            # of 40,000 rows with a key function.
            for bets in grouped.values():
                bets.sort(key=_bet_id)
            self._bets_by_spot = grouped
        return self._bets_by_spot

    def decisions_of(self, spot_id: int, kind: str | None = None) -> list[DecisionRecord]:
        if self._decisions_by_spot is None:
            grouped: dict[int, list[DecisionRecord]] = defaultdict(list)
            for decision in self.decisions:
                grouped[decision.spot_id].append(decision)
            for decisions in grouped.values():
                decisions.sort(key=_decision_sequence)
            self._decisions_by_spot = grouped
        decisions = self._decisions_by_spot.get(spot_id, [])
        return decisions if kind is None else [d for d in decisions if d.kind == kind]

    def cards_of(self, target: str, seat: int = 0) -> list[Card]:
        return [parse_card(text) for text in self.cards.get((target, seat), [])]

    @property
    def dealer_cards(self) -> list[Card]:
        return self.cards_of("dealer")

    def live_spots(self) -> list[SpotRecord]:
        with_bets = self._bet_index()
        return [spot for spot in sorted(self.spots, key=_spot_id) if not spot.voided and spot.id in with_bets]

    def spot(self, spot_id: int) -> SpotRecord:
        for spot in self.spots:
            if spot.id == spot_id:
                return spot
        raise KeyError(spot_id)


@dataclass(frozen=True)
class Position:
    """One dealt position of the engine: the common draw, or a seat with its Bet Behinds (seat first)."""

    seat: int | None
    spots: tuple[SpotRecord, ...]

    @property
    def name(self) -> str:
        return "common" if self.seat is None else f"seat{self.seat}"


# --- positions and engine entries -------------------------------------------------------------------------

def active_seats(record: RoundRecord) -> list[int]:
    return sorted({spot.seat for spot in record.live_spots() if spot.seat is not None and not spot.behind})


def positions(record: RoundRecord) -> list[Position]:
    live = record.live_spots()
    if record.common_draw:
        return [Position(None, tuple(live))] if live else []
    result = []
    for seat in active_seats(record):
        seat_spots = [s for s in live if s.seat == seat and not s.behind]
        behind = [s for s in live if s.seat == seat and s.behind]
        result.append(Position(seat, tuple(seat_spots + behind)))
    return result


def position_cards(record: RoundRecord, seat: int | None) -> tuple[list[Card], list[Card]]:
    """(first two player cards, the position's stream of requested cards)."""
    if seat is None:
        return record.cards_of("player"), record.cards_of("stream")
    cards = record.cards_of("seat", seat)
    return cards[:2], cards[2:]


def stake_totals(record: RoundRecord, spot_id: int) -> dict[str, int]:
    return _stake_totals(record.bets_of(spot_id))


def _stake_totals(bets: list[BetRecord]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for bet in bets:
        totals[bet.kind] += bet.amount
    return totals


def spot_unit(record: RoundRecord, spot_id: int) -> int:
    totals = stake_totals(record, spot_id)
    return totals["main"] + totals["golden_chip"] + totals["bet_behind"]


def spot_balance(record: RoundRecord, spot: SpotRecord) -> int | None:
    """The engine balance that reproduces the live funding of paid doubles and splits (see the module doc)."""
    return _balance(record.decisions_of(spot.id), stake_totals(record, spot.id))


def _balance(decisions: list[DecisionRecord], totals: dict[str, int]) -> int | None:
    funded_first = 0
    for decision in decisions:
        if decision.kind not in ("action", "follow") or decision.funded is None:
            continue
        if not decision.funded:
            unit = totals["main"] + totals["golden_chip"] + totals["bet_behind"]
            return funded_first * unit + totals["insurance"]
        funded_first += 1
    return None


def spot_entry(record: RoundRecord, spot: SpotRecord) -> PlayerEntry:
    # Once per spot of a settlement (10,000 in a big common draw, most of them alike): an entry's stakes, balance
    # and actions are worked out once per distinct set of bets and decisions.
    bets = record.bets_of(spot.id)
    decisions = record.decisions_of(spot.id)
    memo = record.entry_memo()
    if memo is None:
        return PlayerEntry(spot.label, *_entry_fields(bets, decisions), spot.behind)
    key = (*map(_bet_entry_key, bets), *map(_decision_entry_key, decisions))
    fields = memo.get(key)
    if fields is None:
        fields = memo[key] = _entry_fields(bets, decisions)
    return PlayerEntry(spot.label, *fields, spot.behind)


def _entry_fields(bets: list[BetRecord], decisions: list[DecisionRecord]) -> tuple[Any, ...]:
    """The entry's fields between its id and its Bet Behind flag, in PlayerEntry's order."""
    totals = _stake_totals(bets)
    return (
        totals["main"] + totals["bet_behind"],
        totals["golden_chip"],
        tuple([(name, totals[name]) for name in SIDE_KINDS if totals[name]]),
        totals["insurance"] > 0,
        _balance(decisions, totals),
        tuple([d.action for d in decisions if d.kind == "action"]),
    )


def spot_turn(record: RoundRecord, spot: SpotRecord, *, unfunded_now: bool = False) -> PlayerPlay:
    """The spot's hands as far as its logged decisions go (live play; not for Bet Behinds).

    `unfunded_now`: the next paid double or split could not be held, so the rules' fallback applies to it.
    """
    first, stream = position_cards(record, spot.seat)
    entry = spot_entry(record, spot)
    play = player_turn(
        record.rules, first, entry.actions, stream, main=entry.main, golden=entry.golden_chip,
        balance=entry.balance_after_insurance(),
    )
    if unfunded_now:
        play.balance = 0
    return play


def turn_status(play: PlayerPlay) -> tuple[str, int | None]:
    """(status, the stream index the spot waits for, if it waits for a card)."""
    status = play.advance()
    return status, (play.next_card_index if status == NEEDS_CARD else None)


def behind_has_hand(record: RoundRecord, spot: SpotRecord, hand_index: int) -> bool:
    """A Bet Behind holds the seat's hand 2 only if it could follow the seat's split."""
    if hand_index == 0:
        return True
    follows = record.decisions_of(spot.id, "follow")
    return any(d.effective in (SPLIT, "free_split") for d in follows) and not any(
        d.effective == SPLIT_HAND_ONE for d in follows
    )


def behind_unfunded(record: RoundRecord, spot: SpotRecord) -> bool:
    return any(d.funded is False for d in record.decisions_of(spot.id))


# --- settlement --------------------------------------------------------------------------------------------

def settle_record(record: RoundRecord) -> dict[int, PlayerResult]:
    """Play and settle every live spot with the engine; raises EngineError for a bad record."""
    results: dict[int, PlayerResult] = {}
    dealer = record.dealer_cards
    for position in positions(record):
        first, stream = position_cards(record, position.seat)
        entries = [spot_entry(record, spot) for spot in position.spots]
        outcome = settle_round(record.rules, first, dealer, stream, entries)
        players = outcome.players
        for spot, entry in zip(position.spots, entries, strict=True):
            results[spot.id] = players[entry.id]
    return results


def _proportional(total: int, bets: Sequence[BetRecord], weights: Sequence[int]) -> dict[int, int]:
    if sum(weights) == 0:
        weights = [bet.amount for bet in bets]
    weight_sum = sum(weights)
    shares = {bet.id: total * weight // weight_sum for bet, weight in zip(bets, weights, strict=True)}
    remainder = total - sum(shares.values())
    if remainder:
        largest = max(range(len(bets)), key=lambda i: (weights[i], -bets[i].id))
        shares[bets[largest].id] += remainder
    return shares


def _hand_of(bet: BetRecord) -> int:
    if bet.kind in MAIN_KINDS:
        return 0
    return bet.hand_index


def _hand_returns(hand: HandResult, held: list[BetRecord], label: str, index: int) -> dict[int, tuple[int, int]]:
    cash_held = sum(b.amount for b in held if b.funding != GOLDEN)
    golden_held = sum(b.amount for b in held if b.funding == GOLDEN)
    if (cash_held, golden_held) != (hand.cash_stake, hand.golden_stake):
        raise SettlementMismatch(
            f"{label} hand {index + 1}: held {cash_held} cash and {golden_held} in Golden Chips, "
            f"but the engine settles {hand.cash_stake} cash and {hand.golden_stake} in Golden Chips"
        )
    if hand.golden_return not in (0, hand.golden_stake):
        raise SettlementMismatch(f"{label} hand {index + 1}: Golden Chips come back whole or not at all")
    if hand.outcome == "dealer_blackjack":
        weights = [b.amount if b.kind == "double" else 0 for b in held]
    elif hand.outcome in ("win", "blackjack", "charlie"):
        weights = [b.amount for b in held]
    else:
        weights = [b.amount if b.funding != GOLDEN else 0 for b in held]
    cash = _proportional(hand.cash_return, held, weights) if hand.cash_return else {b.id: 0 for b in held}
    return {
        b.id: (cash[b.id], b.amount if b.funding == GOLDEN and hand.golden_return else 0) for b in held
    }


def _stake_returns(name: str, stake: int, cash_return: int, held: list[BetRecord], label: str):
    if sum(b.amount for b in held) != stake:
        raise SettlementMismatch(f"{label} {name}: held {sum(b.amount for b in held)}, the engine settles {stake}")
    shares = _proportional(cash_return, held, [b.amount for b in held]) if cash_return else {}
    return {b.id: (shares.get(b.id, 0), 0) for b in held}


def spot_bet_returns(record: RoundRecord, spot: SpotRecord, result: PlayerResult) -> dict[int, tuple[int, int]]:
    """bet id -> (cash_return, chips_return) for every held bet of the spot; sums equal the engine's exactly."""
    bets = record.bets_of(spot.id)
    returns: dict[int, tuple[int, int]] = {}
    hand_bets = [b for b in bets if b.kind in MAIN_KINDS or b.kind in ("double", "split")]
    carry = 0
    for index, hand in enumerate(result.hands):
        held = [b for b in hand_bets if _hand_of(b) == index]
        if not held:
            if hand.cash_stake or hand.golden_stake:
                raise SettlementMismatch(f"{spot.label} hand {index + 1} has stakes but no held bet")
            carry += hand.cash_return  # a free split hand: no money of its own behind it
            continue
        returns.update(_hand_returns(hand, held, spot.label, index))
    if carry:
        first_main = next(b for b in hand_bets if b.kind in MAIN_KINDS)
        cash, chips = returns[first_main.id]
        returns[first_main.id] = (cash + carry, chips)
    insurance = [b for b in bets if b.kind == "insurance"]
    if insurance or result.insurance is not None:
        if result.insurance is None:
            raise SettlementMismatch(f"{spot.label}: insurance held but the engine settles none")
        returns.update(_stake_returns("insurance", result.insurance.stake, result.insurance.cash_return,
                                      insurance, spot.label))
    settled_sides = dict(result.side_bets)
    for name in SIDE_KINDS:
        held = [b for b in bets if b.kind == name]
        if not held and name not in settled_sides:
            continue
        if name not in settled_sides:
            raise SettlementMismatch(f"{spot.label}: {name} held but the engine settles none")
        side = settled_sides[name]
        returns.update(_stake_returns(name, side.stake, side.cash_return, held, spot.label))
    missing = [b.id for b in bets if b.id not in returns]
    if missing:
        raise SettlementMismatch(f"{spot.label}: bets {missing} have no place in the engine's result")
    return returns


def side_bet_returns(record: RoundRecord, spot: SpotRecord, result: PlayerResult) -> dict[int, tuple[int, int]]:
    """A departed spot's side bets, settled on the live cards; its other bets belong to its continuation."""
    returns: dict[int, tuple[int, int]] = {}
    settled_sides = dict(result.side_bets)
    bets = record.bets_of(spot.id)
    for name in SIDE_KINDS:
        held = [b for b in bets if b.kind == name]
        if held:
            side = settled_sides[name]
            returns.update(_stake_returns(name, side.stake, side.cash_return, held, spot.label))
    return returns


def bet_returns(record: RoundRecord, results: dict[int, PlayerResult]) -> dict[int, tuple[int, int]]:
    """bet id -> (cash_return, chips_return) for every held bet of the round's live spots.

    A common draw of 10,000 players has a few hundred distinct (engine result, held bets) pairs: the engine
    gives players with identical entries the same result object, and the split of a result over bets of the
    same kinds, hands, stakes and funding (in id order) is the same. Each pair is split once and its returns
    reused by position; tests/rounds/test_settlement.py compares this with splitting every spot.
    """
    # pattern -> (the positions of the bets with a return, None when every bet has one (all but departed
    # spots), and those returns). The bets and their returns are gathered in two flat lists and paired once at
    # the end: an update per spot cost four times as much.
    split: dict[tuple[Any, ...], tuple[list[int] | None, list[tuple[int, int]]]] = {}
    departed_spots = record.departed
    bets_of = record.bets_of
    returned_bets: list[BetRecord] = []
    returned_values: list[tuple[int, int]] = []
    add_bets, add_values = returned_bets.extend, returned_values.extend
    for spot in record.live_spots():
        spot_id = spot.id
        result = results[spot_id]
        bets = bets_of(spot_id)
        departed = spot_id in departed_spots
        # id(result): the results dict keeps every result alive, so no id is reused while this runs.
        key = (id(result), departed, *map(_bet_pattern, bets))
        pattern = split.get(key)
        if pattern is None:
            spot_returns = (side_bet_returns if departed else spot_bet_returns)(record, spot, result)
            found = [spot_returns.get(b.id) for b in bets]
            returned = [value for value in found if value is not None]
            at = None if len(returned) == len(bets) else [i for i, value in enumerate(found) if value is not None]
            pattern = split[key] = (at, returned)
        at, values = pattern
        add_bets(bets if at is None else [bets[i] for i in at])
        add_values(values)
    return dict(zip(map(_bet_id, returned_bets), returned_values, strict=True))


def settlement_summary(record: RoundRecord, results: dict[int, PlayerResult]) -> dict[str, Any]:
    """What the round stores (and audits) as its settlement: the dealer's hand and the script result and net
    per spot. Not the returns per bet: those are the ledger's bet resolutions, written in the same transaction
    and append-only, and the replay (rounds.selectors.replay) checks each one against the audit trail. They were
    a third of a 10,000-player round's settlement JSON, encoded, stored and copied into the audit event
    (docs/benchmarks.md)."""
    spots = {}
    # One script per engine result: players the engine grouped share it (the summary is encoded, not edited).
    scripts: dict[int, tuple[dict[str, Any], int]] = {}
    departed = record.departed
    for spot in record.live_spots():
        spot_id = spot.id
        result = results[spot_id]
        script = scripts.get(id(result))
        if script is None:
            script = scripts[id(result)] = (result.to_script(), result.net)
        summary = spots[spot.label] = {
            "spot": spot_id,
            "player": spot.player_id,
            "currency": spot.currency,
            "result": script[0],
            "net": script[1],
        }
        if spot_id in departed:
            # The live seat played on by the timeout rule; only its side bets' money is the live round's.
            sides = dict(result.side_bets)
            summary["continuation"] = True
            summary["net"] = sum(side.net for side in sides.values())
    dealer = record.dealer_cards
    return {
        "dealer": {"cards": [str(card) for card in dealer], "total": hand_total(dealer) if dealer else 0},
        "spots": spots,
    }


# --- scripts -----------------------------------------------------------------------------------------------

def rules_overrides(rules: Rules) -> dict[str, Any]:
    data = rules.to_dict()
    data.pop("profile")
    data.pop("dealing")
    return data


def spot_script_player(record: RoundRecord, spot: SpotRecord) -> dict[str, Any]:
    entry = spot_entry(record, spot)
    bets: dict[str, int] = {}
    if entry.golden_chip:
        bets["golden_chip"] = entry.golden_chip
    if entry.main:
        bets["main"] = entry.main
    bets.update(dict(entry.side_bets))
    player: dict[str, Any] = {
        "id": spot.label,
        "bets": bets,
        "insurance": entry.insurance,
        "balance": entry.balance,
        "actions": list(entry.actions),
    }
    if spot.behind:
        player["behind"] = True
    return player


def round_scripts(record: RoundRecord, *, name: str, expect: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One round script per dealt position (docs/round-script.md), with `expect` from a recorded settlement."""
    scripts = []
    for position in positions(record):
        first, stream = position_cards(record, position.seat)
        script: dict[str, Any] = {
            "id": f"{name}/{position.name}",
            "rules": record.rules.name,
            "overrides": rules_overrides(record.rules),
            "cards": {
                "player": [str(card) for card in first],
                "dealer": [str(card) for card in record.dealer_cards],
                "stream": [str(card) for card in stream],
            },
            "players": [spot_script_player(record, spot) for spot in position.spots],
        }
        if expect is not None:
            script["expect"] = {spot.label: expect[spot.label] for spot in position.spots if spot.label in expect}
        scripts.append(script)
    return scripts


def dealer_outlook(record: RoundRecord) -> tuple[bool, bool]:
    """(some hand is live, the dealer's second card must be shown) once every spot has played its hands."""
    rules = record.rules
    dealer = record.dealer_cards
    up = dealer[0] if dealer else None
    any_live = needs_second = False
    for spot in record.live_spots():
        if spot.behind:
            continue  # a Bet Behind holds the seat's cards: the seat already answers for them
        entry = spot_entry(record, spot)
        needs_second = needs_second or entry.insurance
        if not entry.unit:
            continue
        for hand in spot_turn(record, spot).hands:
            any_live = any_live or hand.live
            needs_second = needs_second or hand.blackjack or (
                up is not None and up.points in (1, 10) and hand.charlie
                and not rules.charlie_beats_dealer_blackjack
            )
    return any_live, needs_second

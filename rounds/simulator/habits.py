"""Simulated players: bankrolls, betting habits and playing styles, and the optimal strategy some of them follow.

Every choice a player makes is drawn from the player's own random generator, and only that player's actions
draw from it, so a run gives the same choices whatever order the players act in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from random import Random
from typing import Any

from rounds.engine.play import DOUBLE, HIT, SPLIT, STAND
from rounds.engine.rules import Rules

# How players play their hands. "optimal" follows the strategy chart of the table's rules; the others are the
# hunches one sees at a real table.
OPTIMAL, CAUTIOUS, HUNCH, RECKLESS = "optimal", "cautious", "hunch", "reckless"
STYLES = (OPTIMAL, OPTIMAL, OPTIMAL, CAUTIOUS, HUNCH, HUNCH, RECKLESS)
# Bankrolls in major units (EUR): most players bring little, a few bring a lot.
BANKROLLS = (50, 100, 100, 200, 200, 300, 500, 500, 1_000, 2_500, 5_000)
DEMO_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory",
              "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "yvonne")


@dataclass
class Habits:
    style: str
    stand_on: int  # hunch players hit below this total and stand from it
    afk: float  # chance that a decision is left to the timer
    plays: float  # chance of playing a given round
    bet_fraction: float  # of the bankroll, for the main bet
    side_bets: float  # chance of adding each offered side bet
    insurance: float  # chance of taking insurance when offered
    tips: float  # chance of tipping the dealer after a win
    bet_behind: float  # seated tables: chance of betting behind a seat rather than sitting
    multi_seat: float  # chance of playing a second seat where the table offers Multi Seat
    repeat: float  # chance of using "repeat my last bets"
    double_bets: float  # chance of pressing "double all my bets" after placing
    deal_now: float  # chance of confirming at once at a Deal Now table
    reload: bool  # deposits again when the bankroll runs out
    cash_out: float  # chance of withdrawing part of a winning balance after a round
    undo: float  # chance of pressing UNDO after placing (and placing again)
    seat_change: float  # Multi Seat tables: chance of moving to a free seat before the deal
    # The later moves, drawn from the player's second generator (`moves_habits_draw`), so the draws above and
    # every game choice of a seed stay as they were before these moves existed.
    confirm_by_hand: bool = False  # auto-confirmation switched off in their settings: they press Confirm
    forget_confirm: float = 0.0  # of a by-hand confirmer's rounds, those they forget to confirm (bets go back)
    chat: float = 0.0  # chance of writing a line in the table's chat in a round
    switch_tables: float = 0.0  # multi-table runs: chance of switching to another table between rounds, and back


def habits_draw(rng: Random) -> Habits:
    style = rng.choice(STYLES)
    return Habits(
        style=style,
        stand_on=rng.choice((12, 13, 14, 15, 16, 17, 17)),
        afk=rng.choice((0.0, 0.0, 0.01, 0.02, 0.05)),
        plays=rng.choice((0.7, 0.85, 0.95, 1.0, 1.0)),
        bet_fraction=rng.choice((0.01, 0.02, 0.03, 0.05, 0.08)),
        side_bets=rng.choice((0.0, 0.0, 0.1, 0.3, 0.6)),
        insurance=0.0 if style == OPTIMAL else rng.choice((0.0, 0.2, 0.5, 1.0)),
        tips=rng.choice((0.0, 0.0, 0.0, 0.05, 0.2)),
        bet_behind=rng.choice((0.0, 0.1, 0.3, 0.6)),
        multi_seat=rng.choice((0.0, 0.0, 0.3)),
        repeat=rng.choice((0.0, 0.2, 0.5)),
        double_bets=rng.choice((0.0, 0.0, 0.05)),
        deal_now=rng.choice((0.3, 0.8, 1.0)),
        reload=rng.random() < 0.5,
        cash_out=rng.choice((0.0, 0.0, 0.02, 0.05)),
        undo=rng.choice((0.0, 0.1, 0.3)),
        seat_change=rng.choice((0.0, 0.0, 0.2)),
    )


def moves_habits_draw(rng: Random, habits: Habits) -> None:
    """The habits of the later moves (confirming by hand, chat, switching tables), from their own generator."""
    habits.confirm_by_hand = rng.random() < 0.4
    habits.forget_confirm = rng.choice((0.05, 0.1, 0.25))
    habits.chat = rng.choice((0.0, 0.05, 0.1, 0.25))
    habits.switch_tables = rng.choice((0.0, 0.0, 0.05, 0.15))


CHAT_LINES = ("Good luck everyone!", "Nice hand!", "Come on, dealer, be kind.", "Hi all", "That was close.",
              "Lucky seat tonight", "gl hf", "Thanks, dealer!", "One more round and then dinner.", "Wow!")


@dataclass
class SimPlayer:
    """One simulated player: who they are, where they play, their wallet's start and their habits."""

    index: int
    username: str
    table_index: int
    bankroll: int  # minor units deposited at the start
    golden_chips: int  # minor units granted at the start (tables with Golden Chips)
    habits: Habits
    rng: Random
    user: Any = None
    deposits: int = 0  # reloads after the first deposit
    rounds_played: int = 0
    # The later moves' generator (confirming, chat, switching tables): its draws never shift `rng`'s.
    moves_rng: Random = field(default_factory=Random)


def players_draw(*, count: int, tables: int, seed: int, prefix: str, names: tuple[str, ...] = ()) -> list[SimPlayer]:
    """`count` players, spread over the tables in turn, each with a generator derived from the seed."""
    players = []
    for index in range(count):
        rng = Random(f"{seed}:player:{index}")
        if index < len(names):
            username = names[index]
        else:
            username = f"{prefix.lower()}_p{index + 1:05d}"
        bankroll = rng.choice(BANKROLLS) * 100
        player = SimPlayer(
            index=index, username=username, table_index=index % tables, bankroll=bankroll,
            golden_chips=rng.choice((0, 0, 0, 2_000, 5_000)), habits=habits_draw(rng), rng=rng,
            moves_rng=Random(f"{seed}:moves:{index}"),
        )
        moves_habits_draw(player.moves_rng, player.habits)
        players.append(player)
    return players


# --- playing a hand --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Offer:
    """A decision a player is asked for: one hand of one of their spots, as the game client shows it."""

    spot_id: int
    seat: int | None
    hand_index: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    actions: tuple[str, ...]
    double: str | None  # "free", "paid" or None
    split: str | None
    free_hand: bool  # the hand carries only a free bet (hand 2 of a free split)
    up: str  # the dealer's up card


def _up_label(card: str) -> str:
    rank = card[0]
    return "A" if rank == "A" else "T" if rank in "TJQK" else rank


def _pair_label(cards: tuple[str, ...]) -> str | None:
    if len(cards) != 2:
        return None
    first, second = (_up_label(card) for card in cards)
    return first if first == second else None


@lru_cache(maxsize=32)
def _chart(rules: Rules) -> dict[str, Any]:
    from rounds.engine.rtp.strategy import strategy_chart

    return strategy_chart(rules)


def optimal_action(rules: Rules, offer: Offer) -> str:
    """The strategy chart's action for this hand (total-dependent, from the RTP maths of the table's rules)."""
    chart = _chart(rules)
    up = _up_label(offer.up)
    pair = _pair_label(offer.cards)
    if pair is not None and SPLIT in offer.actions:
        code = chart["pairs"][pair][up]
        if code in ("P", "FP"):
            return SPLIT
    section = chart["free_split_hand"] if offer.free_hand and "free_split_hand" in chart else chart
    kind = "soft" if offer.soft else "hard"
    code = section[kind].get(offer.total, {}).get(up, "S" if offer.total >= 17 else "H")
    exceptions = chart.get("charlie_exceptions", {}).get(len(offer.cards), {})
    code = exceptions.get(kind, {}).get(offer.total, {}).get(up, code)
    if code in ("D", "FD", "Ds", "FDs"):
        if DOUBLE in offer.actions:
            return DOUBLE
        return STAND if code.endswith("s") else HIT
    if code in ("P", "FP"):  # a pair cell that cannot be split here: play the total
        return HIT if offer.total < 17 else STAND
    return HIT if code == "H" else STAND


def habit_action(habits: Habits, rng: Random, offer: Offer) -> str:
    """A hunch player's action: hit below their number, and a few favourite doubles and splits."""
    pair = _pair_label(offer.cards)
    if habits.style == RECKLESS:
        if SPLIT in offer.actions and rng.random() < 0.7:
            return SPLIT
        if DOUBLE in offer.actions and offer.total in (9, 10, 11, 12) and rng.random() < 0.8:
            return DOUBLE
        return HIT if offer.total < 18 else STAND
    if habits.style == CAUTIOUS:
        if SPLIT in offer.actions and pair in ("A", "8"):
            return SPLIT
        if DOUBLE in offer.actions and offer.total == 11 and not offer.soft:
            return DOUBLE
        return HIT if offer.total < 12 else STAND
    if SPLIT in offer.actions and pair in ("A", "8", "9") and rng.random() < 0.8:
        return SPLIT
    if DOUBLE in offer.actions and offer.total in (10, 11) and not offer.soft and rng.random() < 0.7:
        return DOUBLE
    return HIT if offer.total < habits.stand_on else STAND


def player_action(rules: Rules, player: SimPlayer, offer: Offer) -> str | None:
    """What the player does at this decision point; None leaves it to the decision timer."""
    rng = player.rng
    if rng.random() < player.habits.afk:
        return None
    if player.habits.style == OPTIMAL:
        return optimal_action(rules, offer)
    return habit_action(player.habits, rng, offer)


def stake_from_chips(amount: int, *, chips: list[int], low: int, high: int, even: bool) -> int | None:
    """A stake a player can make from the table's chips: a multiple of the smallest chip within the limits
    (even for a main bet, so 3:2 and half-bet insurance pay exactly); None if the limits leave no such stake."""
    unit = max(1, min(chips) if chips else low)
    stake = max(low, min(high, (amount // unit) * unit))
    if even and stake % 2:
        stake = stake + 1 if stake + 1 <= high else stake - 1
    return stake if low <= stake <= high else None

"""The memoised settlement (one computation per distinct player) equals the plain one, player by player."""

from itertools import product

import pytest

from rounds.engine.bets import PlayerEntry
from rounds.engine.cards import parse_card
from rounds.engine.errors import EngineError
from rounds.engine.rules import rules_for
from rounds.engine.settle import memo_key, settle_round


def cards(text: str) -> list:
    return [parse_card(card) for card in text.split()]


def test_balance_classes_and_insurance_share_results_only_when_equal() -> None:
    rules = rules_for("classic_eu")
    first, dealer, stream = cards("9h 9d"), cards("As 6c"), cards("2c Kd 7h 4s")
    everything = PlayerEntry("all", main=1000, actions=("split", "double", "double"))  # takes all 4 cards
    logs = [
        ("split", "double", "double"),
        ("double",),
        ("split", "stand", "stand"),
        ("hit", "stand"),
        ("split", "double", "stand"),
        ("stand",),
        ("double", "stand"),
        ("split", "hit", "stand"),
    ]
    balances = [None, 0, 499, 500, 999, 1000, 1499, 1999, 2000, 2500, 2999, 3000, 3500, 10**6]
    legal = []
    for index, (log, balance, insured) in enumerate(product(logs, balances, (False, True))):
        player = PlayerEntry(f"p{index}", main=1000, balance=balance, insurance=insured, actions=log)
        try:
            alone = settle_round(rules, first, dealer, stream, [everything, player], memo=False)
        except EngineError:
            continue  # a fallback made the rest of this log illegal
        legal.append((player, alone.players[player.id]))
    assert len(legal) > 100
    players = [everything] + [player for player, _result in legal]
    fast = settle_round(rules, first, dealer, stream, players, memo=True)
    assert fast == settle_round(rules, first, dealer, stream, players, memo=False)
    assert all(fast.players[player.id] == result for player, result in legal)
    assert len({memo_key(player) for player in players}) < len(players) / 2


def test_invalid_players_are_reported_even_when_they_share_a_key() -> None:
    rules = rules_for("free_bet")
    good = PlayerEntry("good", main=1000, actions=("stand",))
    bad = PlayerEntry("bad", main=1000, actions=("stand",), balance=-5)
    with pytest.raises(EngineError, match="bad: balance must be a whole number"):
        settle_round(rules, cards("Th 9d"), cards("7s Tc"), [], [good, bad])
    nobet = PlayerEntry("nobet", balance=-1)
    with pytest.raises(EngineError, match="nobet: balance"):
        settle_round(rules, cards("Th 9d"), cards("7s Tc"), [], [good, PlayerEntry("idle"), nobet])

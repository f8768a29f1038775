"""Round scripts (docs/round-script.md): parse, validate, settle, and compare with `expect`.

Decisions the rules contract left open (docs/round-script.md writes them down):
- Unknown keys on the script or a player are ignored (room for notes); an unknown bet name is an error.
- A player with an empty result (no stake at all) matches an `expect` that leaves the player out.
- `expect` may also hold a `dealer` entry ({"cards": [...], "total": N}); it is then compared too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .bets import PlayerEntry
from .cards import Card, parse_cards
from .errors import EngineError
from .rules import Rules, rules_for
from .settle import RoundResult, settle_round
from .sidebets import SIDE_BETS

MAIN_BETS = ("main", "golden_chip")


@dataclass(frozen=True, slots=True)
class Script:
    id: Any
    rules: Rules
    player_cards: tuple[Card, ...]
    dealer_cards: tuple[Card, ...]
    stream: tuple[Card, ...]
    players: tuple[PlayerEntry, ...]
    expect: dict[str, Any] | None


def script_label(data: Any) -> str:
    """How a script is named in messages, even when it is too broken to parse."""
    if (
        isinstance(data, dict)
        and isinstance(data.get("id"), str | int)
        and not isinstance(data.get("id"), bool)
    ):
        return str(data["id"])
    return "(no id)"


def parse_script(data: Any) -> Script:
    if not isinstance(data, dict):
        raise EngineError("a script must be a JSON object")
    if "id" not in data:
        raise EngineError("the script has no id")
    if script_label(data) == "(no id)":
        raise EngineError(f"the script id must be a string or a whole number, not a {type(data['id']).__name__}")
    rules_name = data.get("rules")
    if not isinstance(rules_name, str):
        raise EngineError("the script needs 'rules' naming a profile")
    rules = rules_for(rules_name, data.get("overrides") or None)
    cards = data.get("cards")
    if not isinstance(cards, dict):
        raise EngineError("the script needs 'cards' with player, dealer and stream")
    player_cards = tuple(parse_cards(cards.get("player")))
    if len(player_cards) != 2:
        raise EngineError(f"cards.player must hold exactly two cards, not {len(player_cards)}")
    dealer_cards = tuple(parse_cards(cards.get("dealer")))
    stream = tuple(parse_cards(cards.get("stream", [])))
    raw_players = data.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        raise EngineError("the script needs a non-empty 'players' list")
    players = tuple(_parse_player(raw) for raw in raw_players)
    expect = data.get("expect")
    if expect is not None and not isinstance(expect, dict):
        raise EngineError("'expect' must be an object keyed by player id")
    return Script(data["id"], rules, player_cards, dealer_cards, stream, players, expect)


def _parse_player(raw: Any) -> PlayerEntry:
    if not isinstance(raw, dict):
        raise EngineError("each player must be a JSON object")
    player_id = raw.get("id")
    if not isinstance(player_id, str | int) or isinstance(player_id, bool) or player_id == "":
        raise EngineError(f"player id must be a non-empty string, not {player_id!r}")
    player_id = str(player_id)
    bets = raw.get("bets", {})
    if not isinstance(bets, dict):
        raise EngineError(f"{player_id}: bets must be an object")
    for name in bets:
        if name not in MAIN_BETS and name not in SIDE_BETS:
            raise EngineError(f"{player_id}: unknown bet {name!r}")
    actions = raw.get("actions") or []
    if not isinstance(actions, list):
        raise EngineError(f"{player_id}: actions must be a list")
    behind = raw.get("behind", False)
    if not isinstance(behind, bool):
        raise EngineError(f"{player_id}: behind must be true or false")
    insurance = raw.get("insurance", False)
    return PlayerEntry(
        id=player_id,
        main=bets.get("main", 0),
        golden_chip=bets.get("golden_chip", 0),
        side_bets=tuple((name, stake) for name, stake in bets.items() if name in SIDE_BETS),
        insurance=False if insurance is None else insurance,
        balance=raw.get("balance"),
        actions=tuple(actions),
        behind=behind,
    )


def run_script(script: Script) -> RoundResult:
    return settle_round(script.rules, script.player_cards, script.dealer_cards, script.stream, script.players,
                        untrusted=True)


def settle_script(data: Any) -> dict[str, Any]:
    """Settle one round script and return the RESULT object of docs/round-script.md.

    Raises EngineError whose message starts with the script id: "<id>: <plain reason>".
    """
    try:
        script = parse_script(data)
        return run_script(script).to_script(script.id)
    except EngineError as error:
        raise EngineError(f"{script_label(data)}: {error}") from None


def expect_differences(expect: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Each difference between a script's `expect` and its result, as 'where: expected X, got Y'."""
    players = result["players"]
    wanted = dict(expect)
    differences: list[str] = []
    if "dealer" in wanted and "dealer" not in players:
        differences += _compare_dealer(wanted.pop("dealer"), result["dealer"])
    for player_id in sorted(set(wanted) | set(players)):
        want, got = wanted.get(player_id, {}), players.get(player_id)
        if got is None:
            differences.append(f"{player_id}: expected {_show(want)}, but the script has no such player")
        elif not isinstance(want, dict):
            differences.append(f"{player_id}: expected {_show(want)}, got {_show(got)}")
        else:
            differences += _compare_player(player_id, want, got)
    return differences


def _compare_player(player_id: str, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    differences = []
    for key in sorted(set(want) | set(got)):
        if key not in got:
            differences.append(f"{player_id}.{key}: expected {_show(want[key])}, got nothing (not staked)")
        elif key not in want:
            differences.append(f"{player_id}.{key}: expected nothing, got {_show(got[key])}")
        elif want[key] != got[key]:
            differences.append(f"{player_id}.{key}: expected {_show(want[key])}, got {_show(got[key])}")
    return differences


def _compare_dealer(want: Any, got: dict[str, Any]) -> list[str]:
    if not isinstance(want, dict):
        return [f"dealer: expected {_show(want)}, got {_show(got)}"]
    return [
        f"dealer.{key}: expected {_show(want[key])}, got {_show(got.get(key))}"
        for key in sorted(want)
        if want[key] != got.get(key)
    ]


def _show(value: Any) -> str:
    return json.dumps(value)

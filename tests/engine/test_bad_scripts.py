"""Invalid scripts: one plain line naming file and script id on stderr, no result, no traceback, exit 1."""

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from rounds.engine.replay import replay_paths

REPO = Path(__file__).resolve().parents[2]
GOOD: dict[str, Any] = {
    "id": "G1",
    "rules": "free_bet",
    "cards": {"player": ["8h", "8d"], "dealer": ["Ts", "7c"], "stream": ["3c", "Th", "Td"]},
    "players": [{"id": "p1", "bets": {"main": 1000}, "actions": ["split", "hit", "stand"]}],
    "expect": {"p1": {"hands": [1000, 1000]}},
}


def _bad(script_id: str, path: str, value: Any) -> dict[str, Any]:
    script = copy.deepcopy(GOOD)
    script["id"] = script_id
    *parents, last = path.split(".")
    target = script
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[int(last) if isinstance(target, list) else last] = value
    return script


BAD_SCRIPTS = [
    (_bad("BAD-CARD", "cards.player", ["8h", "1x"]), "unknown card '1x'"),
    (_bad("NINTH", "cards.stream", ["3c", "Th", "Td"] + ["8h"] * 8), "8h appears 9 times"),
    (_bad("ILLEGAL", "players.0.actions", ["split", "hit", "double"]), "illegal action double"),
    (_bad("MISSING-ACTION", "players.0.actions", ["split", "hit"]), "missing decision for hand 2"),
    (_bad("SURPLUS-ACTION", "players.0.actions", ["split", "hit", "stand", "hit"]), "surplus action 'hit'"),
    (_bad("MISSING-CARD", "cards.stream", ["3c", "Th"]), "missing stream card"),
    (_bad("UNUSED-CARD", "cards.stream", ["3c", "Th", "Td", "4c"]), "unused stream card(s) 4c"),
    (_bad("DEALER-17", "cards.dealer", ["Ts", "7c", "2d"]), "dealer drew 2d on 17"),
    (_bad("DEALER-SHORT", "cards.dealer", ["Ts", "5c"]), "dealer card is missing"),
    (
        _bad("UNKNOWN-ACTION", "players.0.actions", ["split", "hit", "surrender"]),
        "unknown action 'surrender'",
    ),
    (_bad("RULES", "rules", "spanish21"), "unknown rules 'spanish21'"),
    (_bad("FLAG", "overrides", {"no_such_flag": True}), "unknown table flag 'no_such_flag'"),
    (_bad("DEALING", "overrides", {"dealing": "eu"}), "rules free_bet deal ace_peek"),
    (_bad("ODD", "players.0.bets", {"main": 1001}), "even number"),
    (_bad("HUGE", "players.0.bets", {"main": 10**12 + 2}), "above the largest stake the tables accept"),
    (_bad("INS-TEN", "players.0.insurance", True), "insurance is offered only with an ace up"),
    (_bad("SIDE-OFFER", "players.0.bets", {"main": 1000, "perfect_pairs": 100}), "not offered"),
    (_bad("SIDE-ALONE", "players.0.bets", {"any_pair": 100}), "needs a main bet"),
    (
        _bad("BB-FREE", "players", GOOD["players"] + [{"id": "bb", "bets": {"main": 100}, "behind": True}]),
        "Bet Behind is not offered",
    ),
    # Wrong-typed values are refused by name before the settlement's memo keys hash them.
    (_bad("MAIN-NULL", "players.0", GOOD["players"][0] | {"bets": {"main": None}, "balance": 5000}),
     "main bet must be a whole number of minor units, not None"),
    (_bad("MAIN-LIST", "players.0.bets", {"main": [1000]}), "main bet must be a whole number"),
    (_bad("INS-LIST", "players.0.insurance", []), "insurance must be true or false, not []"),
    (_bad("INS-DICT", "players.0.insurance", {}), "insurance must be true or false"),
    (_bad("ACTION-LIST", "players.0.actions", [["split"], "hit"]), "unknown action ['split']"),
    (_bad("ACTIONS-DICT", "players.0.actions", {"split": 1}), "actions must be a list"),
    (_bad("HUGE-STAKE", "players.0.bets", {"main": 10**30}), "above the largest stake the tables accept"),
    (_bad("HUGE-SIDE", "players.0.bets", {"main": 1000, "hot3": 10**12 + 2}), "above the largest stake"),
]


@pytest.mark.parametrize(("script", "reason"), BAD_SCRIPTS, ids=[s["id"] for s, _ in BAD_SCRIPTS])
def test_bad_script_reports_one_plain_line(tmp_path: Path, script: dict[str, Any], reason: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(script))
    out, err = io.StringIO(), io.StringIO()
    assert replay_paths([file], check=True, out=out, err=err) == 1
    assert out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{file}: {script['id']}: ")
    assert reason in lines[0]


def test_no_insurance_for_bet_behind(tmp_path: Path) -> None:
    script = copy.deepcopy(GOOD) | {"id": "BB-INS", "rules": "classic_eu"}
    script["cards"] = {"player": ["Th", "9d"], "dealer": ["As", "7c"], "stream": []}
    script["players"] = [
        {"id": "seat", "bets": {"main": 1000}, "actions": ["stand"]},
        {"id": "bb", "bets": {"main": 1000}, "behind": True, "insurance": True},
    ]
    file = tmp_path / "bb.json"
    file.write_text(json.dumps(script))
    err = io.StringIO()
    assert replay_paths([file], check=False, out=io.StringIO(), err=err) == 1
    assert err.getvalue() == f"{file}: BB-INS: bb: a Bet Behind cannot be insured\n"


def test_check_names_each_difference(tmp_path: Path) -> None:
    script = copy.deepcopy(GOOD)
    script["expect"] = {"p1": {"hands": [1000, 0], "any_pair": 800}}
    file = tmp_path / "diff.json"
    file.write_text(json.dumps([script, copy.deepcopy(GOOD) | {"id": "G2"}]))
    out, err = io.StringIO(), io.StringIO()
    assert replay_paths([tmp_path], check=True, out=out, err=err) == 1
    assert len(out.getvalue().splitlines()) == 2
    assert err.getvalue().splitlines() == [
        f"{file}: G1: p1.any_pair: expected 800, got nothing (not staked)",
        f"{file}: G1: p1.hands: expected [1000, 0], got [1000, 1000]",
    ]
    assert replay_paths([tmp_path], check=False, out=io.StringIO(), err=io.StringIO()) == 0


def test_unreadable_file_and_missing_path(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    err = io.StringIO()
    assert replay_paths([tmp_path, tmp_path / "nope.json"], check=False, out=io.StringIO(), err=err) == 1
    lines = err.getvalue().splitlines()
    assert lines[0].startswith(f"{tmp_path / 'broken.json'}: cannot read a JSON script file")
    assert lines[1] == f"{tmp_path / 'nope.json'}: no such file or folder"


def _manage(*args: str) -> subprocess.CompletedProcess[str]:
    # An unreachable database proves the command never touches it.
    env = os.environ | {"SECRET_KEY": "test", "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none"}
    return subprocess.run(
        [sys.executable, "manage.py", "replay_round", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )


def test_command_reports_bad_scripts_without_traceback(tmp_path: Path, django_db_blocker) -> None:
    """Run in this process, not in a second Python that starts Django again (about 2 s of CPU): the exit is the
    command's SystemExit, and any other exception, which manage.py would print as a traceback, fails the test.
    With the database blocked, a query the command made (its own, or a migration check) raises, as the
    unreachable database of a manage.py run would."""
    scripts = [script for script, _reason in BAD_SCRIPTS] + [GOOD]
    (tmp_path / "all.json").write_text(json.dumps(scripts))
    out, err = io.StringIO(), io.StringIO()
    with django_db_blocker.block(), pytest.raises(SystemExit) as exited:
        call_command("replay_round", str(tmp_path), "--check", stdout=out, stderr=err)
    assert exited.value.code == 1
    assert "Traceback" not in err.getvalue()
    assert len(err.getvalue().splitlines()) == len(BAD_SCRIPTS)
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == ["G1"]


# make check replays the vectors with this same command itself, so the fast check leaves the test to make test.
@pytest.mark.slow
def test_command_checks_every_vector() -> None:
    vectors = REPO / "tests" / "vectors"
    done = _manage(str(vectors), "--check")
    assert done.returncode == 0, done.stderr
    assert all(json.loads(line)["dealer"]["cards"] for line in done.stdout.splitlines())


def test_largest_stake_still_settles(tmp_path: Path) -> None:
    script = _bad("MAX", "players.0.bets", {"main": 10**12})
    script["expect"] = {"p1": {"hands": [10**12, 10**12]}}
    (tmp_path / "max.json").write_text(json.dumps(script))
    out, err = io.StringIO(), io.StringIO()
    assert replay_paths([tmp_path], check=True, out=out, err=err) == 0, err.getvalue()
    assert json.loads(out.getvalue())["players"]["p1"]["hands"] == [10**12, 10**12]


def test_script_id_must_be_a_name(tmp_path: Path) -> None:
    file = tmp_path / "id.json"
    file.write_text(json.dumps(copy.deepcopy(GOOD) | {"id": ["G1"]}))
    err = io.StringIO()
    assert replay_paths([file], check=False, out=io.StringIO(), err=err) == 1
    assert err.getvalue() == f"{file}: (no id): the script id must be a string or a whole number, not a list\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "cannot read a JSON script file (Expecting property name"),
        ("[" * 1000 + "]" * 1000, "cannot read a JSON script file (nested too deep)"),
        ('{"id": "X", "bets": ' + "9" * 4400 + "}", "cannot read a JSON script file (a number has too many digits)"),
    ],
    ids=["syntax", "deep", "long-integer"],
)
def test_unreadable_file_hides_no_other_result(tmp_path: Path, text: str, reason: str) -> None:
    (tmp_path / "a_good.json").write_text(json.dumps(GOOD))
    (tmp_path / "b_broken.json").write_text(text)
    (tmp_path / "c_good.json").write_text(json.dumps(copy.deepcopy(GOOD) | {"id": "G2"}))
    out, err = io.StringIO(), io.StringIO()
    assert replay_paths([tmp_path], check=True, out=out, err=err) == 1
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == ["G1", "G2"]
    assert err.getvalue().startswith(f"{tmp_path / 'b_broken.json'}: {reason}")
    assert len(err.getvalue().splitlines()) == 1


def test_deep_value_inside_a_script_is_a_plain_reason(tmp_path: Path) -> None:
    deep = "[" * 900 + "]" * 900
    bad = _bad("DEEP", "players.0.insurance", "@")
    text = json.dumps([bad, GOOD]).replace('"@"', deep)
    (tmp_path / "deep.json").write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert replay_paths([tmp_path], check=True, out=out, err=err) == 1
    assert err.getvalue().startswith(f"{tmp_path / 'deep.json'}: DEEP: ")
    assert len(err.getvalue().splitlines()) == 1
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == ["G1"]


def test_no_insurance_for_a_golden_chip_position(tmp_path: Path) -> None:
    script = copy.deepcopy(GOOD) | {"id": "GC-INS", "rules": "classic_eu"}
    script["cards"] = {"player": ["Th", "7h"], "dealer": ["As", "Kd"], "stream": []}
    script["players"] = [{"id": "p1", "bets": {"golden_chip": 2000}, "insurance": True, "actions": ["stand"]}]
    file = tmp_path / "gc.json"
    file.write_text(json.dumps(script))
    err = io.StringIO()
    assert replay_paths([file], check=False, out=io.StringIO(), err=err) == 1
    assert err.getvalue() == f"{file}: GC-INS: p1: a Golden Chip bet cannot be insured\n"


def test_every_player_of_a_script_is_checked_even_beside_an_equal_valid_one(tmp_path: Path) -> None:
    """settle_round checks one player per group of equal players; 1000.0 equals 1000, so a script (untrusted)
    must have each checked: the second player's float stake is refused, not settled like the first's."""
    script = copy.deepcopy(GOOD) | {"id": "EQ-FLOAT", "rules": "free_bet"}
    first = script["players"][0]
    script["players"] = [first, copy.deepcopy(first) | {"id": "p2"}]
    script["players"][1]["bets"] = dict(first["bets"]) | {"main": float(first["bets"]["main"])}
    script.pop("expect", None)
    file = tmp_path / "eq.json"
    file.write_text(json.dumps(script))
    err = io.StringIO()
    assert replay_paths([file], check=False, out=io.StringIO(), err=err) == 1
    assert err.getvalue().startswith(f"{file}: EQ-FLOAT: p2: ")

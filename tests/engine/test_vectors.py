"""Every round script in tests/vectors (the contract's vectors and our own hand-worked ones), globbed at
collection time, settles exactly as its `expect` says."""

import json
from pathlib import Path
from typing import Any

import pytest

from rounds.engine.script import expect_differences, settle_script

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
# The contract's files, copied unchanged; own.json holds the cases they do not cover (tests/vectors/README.md).
CONTRACT_FILES = (
    "bet_behind.json", "classic_eu.json", "classic_us.json", "common_draw.json", "free_bet.json",
    "free_bet_seated.json",
)


def _scripts(files: list[Path]) -> list[Any]:
    params = []
    for file in files:
        data = json.loads(file.read_text())
        for script in data if isinstance(data, list) else [data]:
            params.append(pytest.param(script, id=f"{file.name}:{script.get('id')}"))
    return params


@pytest.mark.parametrize("script", _scripts(sorted(VECTORS.glob("*.json"))))
def test_vector(script: dict[str, Any]) -> None:
    result = settle_script(script)
    assert result["id"] == script["id"]
    assert expect_differences(script["expect"], result) == []


def test_every_vector_file_is_found() -> None:
    found = {file.name for file in VECTORS.glob("*.json")}
    assert found >= {*CONTRACT_FILES, "own.json"}
    assert len(_scripts([VECTORS / name for name in CONTRACT_FILES])) >= 50
    assert len(_scripts([VECTORS / "own.json"])) >= 39


def test_own_vectors_say_how_they_were_worked() -> None:
    # Their expectations are worked by hand from docs/rules.md; the note is the working, never engine output.
    scripts = json.loads((VECTORS / "own.json").read_text())
    assert [script["id"] for script in scripts if not script.get("note")] == []
    assert len({script["id"] for script in scripts}) == len(scripts)

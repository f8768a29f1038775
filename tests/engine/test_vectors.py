"""Every shared settlement vector (../shared/vectors, globbed at collection time) and our own vectors."""

import json
from pathlib import Path
from typing import Any

import pytest

from rounds.engine.script import expect_differences, settle_script

from .own_vectors import VECTORS

SHARED_VECTORS = Path(__file__).resolve().parents[2].parent / "shared" / "vectors"


def _shared_scripts() -> list[Any]:
    params = []
    for file in sorted(SHARED_VECTORS.glob("*.json")):
        data = json.loads(file.read_text())
        for script in data if isinstance(data, list) else [data]:
            params.append(pytest.param(script, id=f"{file.name}:{script.get('id')}"))
    return params


def _assert_matches_expect(script: dict[str, Any]) -> None:
    result = settle_script(script)
    assert result["id"] == script["id"]
    assert expect_differences(script["expect"], result) == []


@pytest.mark.parametrize("script", _shared_scripts())
def test_shared_vector(script: dict[str, Any]) -> None:
    _assert_matches_expect(script)


@pytest.mark.parametrize("script", [pytest.param(v, id=v["id"]) for v in VECTORS])
def test_own_vector(script: dict[str, Any]) -> None:
    _assert_matches_expect(script)


def test_shared_vectors_are_found() -> None:
    assert len(_shared_scripts()) >= 50

"""The project's own round scripts in tests/vectors (round-script.md), each against its `expect`."""

import json
from pathlib import Path
from typing import Any

import pytest

from rounds.engine.script import expect_differences, settle_script

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _scripts() -> list[Any]:
    params = []
    for file in sorted(VECTORS.glob("*.json")):
        data = json.loads(file.read_text())
        for script in data if isinstance(data, list) else [data]:
            params.append(pytest.param(script, id=f"{file.name}:{script.get('id')}"))
    return params


@pytest.mark.parametrize("script", _scripts())
def test_project_vector(script: dict[str, Any]) -> None:
    result = settle_script(script)
    assert expect_differences(script["expect"], result) == []

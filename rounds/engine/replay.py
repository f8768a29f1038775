"""Replaying round scripts from files: the logic behind `manage.py replay_round` (no Django, no database).

Output contract (docs/round-script.md): one JSON result per valid script on stdout, one line each. An invalid script
prints `<file>: <script id>: <reason>` on stderr and no result; with `check`, each difference from `expect`
prints `<file>: <script id>: <difference>` on stderr. The exit code is 1 if anything was invalid or differed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from .errors import EngineError
from .script import expect_differences, script_label, settle_script


class Writer(Protocol):
    """A text stream: sys.stdout, io.StringIO or a Django command's OutputWrapper."""

    def write(self, text: str, /) -> Any: ...


def load_scripts(path: Path) -> list[tuple[str, Any]]:
    """(file label, script object) for every script in a file, or in every *.json of a folder (sorted)."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    scripts: list[tuple[str, Any]] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise EngineError(f"{file}: cannot read a JSON script file ({error})") from None
        items = data if isinstance(data, list) else [data]
        scripts.extend((str(file), item) for item in items)
    return scripts


def replay_scripts(scripts: Iterable[tuple[str, Any]], check: bool, out: Writer, err: Writer) -> int:
    """Settle each (label, script); print results and problems; return the exit code."""
    failed = False
    for label, data in scripts:
        try:
            result = settle_script(data)
        except EngineError as error:
            err.write(f"{label}: {error}\n")
            failed = True
            continue
        out.write(json.dumps(result) + "\n")
        expect = data.get("expect") if check else None
        if expect is not None:
            for difference in expect_differences(expect, result):
                err.write(f"{label}: {script_label(data)}: {difference}\n")
                failed = True
    return 1 if failed else 0


def replay_paths(
    paths: Sequence[str | Path], check: bool, out: Writer | None = None, err: Writer | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    scripts: list[tuple[str, Any]] = []
    failed = False
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            err.write(f"{raw}: no such file or folder\n")
            failed = True
            continue
        try:
            scripts.extend(load_scripts(path))
        except EngineError as error:
            err.write(f"{error}\n")
            failed = True
    code = replay_scripts(scripts, check, out, err)
    return 1 if failed else code

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


def load_file(file: Path) -> list[Any]:
    """The scripts of one file; EngineError naming the file when it cannot be read as JSON."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except RecursionError:
        raise EngineError(f"{file}: cannot read a JSON script file (nested too deep)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EngineError(f"{file}: cannot read a JSON script file ({error})") from None
    except ValueError:
        # Python refuses to convert integers of more than 4,300 digits; no stake or balance is that long.
        raise EngineError(f"{file}: cannot read a JSON script file (a number has too many digits)") from None
    return data if isinstance(data, list) else [data]


def load_scripts(path: Path, err: Writer | None = None) -> list[tuple[str, Any]]:
    """(file label, script object) for every script in a file, or in every *.json of a folder (sorted).

    With `err`, an unreadable file is reported there and the others are still loaded; without it the first
    unreadable file raises EngineError.
    """
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    scripts: list[tuple[str, Any]] = []
    for file in files:
        try:
            items = load_file(file)
        except EngineError as error:
            if err is None:
                raise
            err.write(f"{error}\n")
            continue
        scripts.extend((str(file), item) for item in items)
    return scripts


def _settle_or_reason(data: Any) -> dict[str, Any]:
    try:
        return settle_script(data)
    except RecursionError:
        raise EngineError(f"{script_label(data)}: a value is nested too deep to be a round script") from None


def replay_scripts(scripts: Iterable[tuple[str, Any]], check: bool, out: Writer, err: Writer) -> int:
    """Settle each (label, script); print results and problems; return the exit code."""
    failed = False
    for label, data in scripts:
        try:
            result = _settle_or_reason(data)
        except EngineError as error:
            err.write(f"{label}: {error}\n")
            failed = True
            continue
        out.write(json.dumps(result) + "\n")
        expect = data.get("expect") if check else None
        if expect is not None:
            try:
                differences = expect_differences(expect, result)
            except RecursionError:
                differences = ["expect is nested too deep to compare"]
            for difference in differences:
                err.write(f"{label}: {script_label(data)}: {difference}\n")
                failed = True
    return 1 if failed else 0


class _Counting:
    """A writer that counts what it passes on (an unreadable file makes the call fail)."""

    def __init__(self, inner: Writer) -> None:
        self.inner = inner
        self.count = 0

    def write(self, text: str, /) -> Any:
        self.count += 1
        return self.inner.write(text)


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
        problems = _Counting(err)
        scripts.extend(load_scripts(path, problems))
        failed = failed or problems.count > 0
    code = replay_scripts(scripts, check, out, err)
    return 1 if failed else code

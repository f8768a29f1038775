"""A built wheel holds every app of ours: each one in INSTALLED_APPS is matched by the package list."""

import fnmatch
import tomllib
from pathlib import Path

from django.apps import apps

REPO = Path(__file__).resolve().parents[1]


def _package_patterns() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    return config["tool"]["setuptools"]["packages"]["find"]["include"]


def _our_apps() -> list[str]:
    # Ours: the app's package lives in this repository (not in the virtualenv's site-packages).
    return sorted(config.name for config in apps.get_app_configs()
                  if REPO in Path(config.path).resolve().parents and ".venv" not in Path(config.path).parts)


def test_every_app_of_ours_is_packaged() -> None:
    patterns = _package_patterns()
    ours = _our_apps()
    assert {"accounts", "tables", "wallet", "rounds", "players", "backoffice"} <= set(ours)
    missing = [name for name in ours if not any(fnmatch.fnmatchcase(name, p) for p in patterns)]
    assert missing == [], f"pyproject.toml [tool.setuptools.packages.find] include leaves out {missing}"


def test_the_project_package_is_packaged() -> None:
    assert any(fnmatch.fnmatchcase("casino", p) for p in _package_patterns())

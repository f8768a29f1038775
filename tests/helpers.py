"""Plain helpers the tests import (fixtures live in tests/fixtures/, factories in tests/factories.py)."""

import time
from pathlib import Path

from wallet import selectors as wallet_selectors
from wallet.models import AccountKind

REPO = Path(__file__).resolve().parents[1]
# Logs of the worker and screenshots of the browser tests.
OUTPUT = REPO / "var" / "test-output"


def wait_for(predicate, *, timeout: float = 20.0, interval: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def cash(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency)


def chips(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency, kind=AccountKind.PLAYER_GOLDEN_CHIPS)

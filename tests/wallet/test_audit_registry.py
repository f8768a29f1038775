"""The audit is one, and extensible: other apps register checks with it; the wallet imports none of our apps."""

import ast
from pathlib import Path

import pytest

from wallet import audit

WALLET = Path(audit.__file__).parent
# accounts and casino are the shared kernel (users, permissions); the apps that use the wallet are not.
OUR_APPS = {"backoffice", "players", "rounds", "tables"}


def test_the_wallet_imports_none_of_our_other_apps():
    found = []
    for path in WALLET.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {name}" for name in names if name.split(".")[0] in OUR_APPS]
    assert found == []


def test_the_rounds_app_registers_its_stranded_money_check():
    assert audit._checks["rounds_stranded_money"][0] == audit.STRANDED_MONEY
    assert {name for name, (group, _) in audit._checks.items() if group == audit.LEDGER} == {
        "player_balances", "transactions", "bets"}
    with pytest.raises(ValueError, match="belongs to"):
        audit.audit_check_register(name="x", group="elsewhere", check=lambda *, now: [])

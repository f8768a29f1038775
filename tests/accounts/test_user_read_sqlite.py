"""`make run` plays on SQLite: the one statement that reads a user with their permissions and roles must be SQL
that SQLite runs (PostgreSQL's form uses LATERAL, which SQLite has not), or no one signed in could open a page."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
from accounts.backends import RoleBackend
from accounts.services import roles_sync, user_create

roles_sync()
user = user_create(username="sqlite_support", password=None, role="support")
read = RoleBackend().get_user(user.pk)
print("READ", read.username, sorted(read._group_names), "accounts.lookup_players" in read._perm_cache)
"""


@pytest.mark.slow
def test_a_user_and_their_role_are_read_on_sqlite(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}", "DEBUG": "0",
           "SECRET_KEY": "test-only-not-a-secret", "FAST_PASSWORD_HASHER": "1"}
    env.pop("REDIS_URL", None)
    manage = [sys.executable, str(REPO / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    done = subprocess.run([*manage, "shell", "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "READ sqlite_support ['support'] True" in done.stdout

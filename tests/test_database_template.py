"""The xdist workers' test databases are copies of one migrated template (tests/fixtures/database.py)."""

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_each_worker_database_is_a_copy_of_the_template_migrated_once():
    """A cold run on two workers migrates the template alone: the workers' migration records are the template's,
    timestamps included (a worker that had migrated its own database would have recorded its own times). A second
    --reuse-db run keeps the template as it is and gives each worker a fresh copy: what a worker's database held
    at the end of the first run (here a table left in it) is not there any more."""
    settings = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.fail("the test databases are PostgreSQL (make check and make test set DATABASE_URL)")
    name = f"casino_template_check_{os.getpid()}"
    server = f"postgresql://{settings['USER'] or 'postgres'}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}"
    template, workers = f"test_{name}_template", [f"test_{name}_gw0", f"test_{name}_gw1"]
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env["DATABASE_URL"] = f"{server}/{name}"

    def run_on_two_workers() -> None:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/wallet/test_audit_after_tests.py", "-q", "-n", "2", "--reuse-db",
             "-p", "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    def migrations(database: str) -> list[tuple]:
        with psycopg.connect(f"{server}/{database}") as db:
            return db.execute("SELECT app, name, applied FROM django_migrations ORDER BY id").fetchall()

    def left_over(database: str) -> bool:
        with psycopg.connect(f"{server}/{database}") as db:
            return db.execute("SELECT to_regclass('left_by_the_last_run') IS NOT NULL").fetchone()[0]

    try:
        run_on_two_workers()
        recorded = migrations(template)
        assert len(recorded) > 10
        for worker in workers:
            assert migrations(worker) == recorded, worker
            with psycopg.connect(f"{server}/{worker}", autocommit=True) as db:
                db.execute("CREATE TABLE left_by_the_last_run (id int)")

        run_on_two_workers()
        assert migrations(template) == recorded
        for worker in workers:
            assert migrations(worker) == recorded, worker
            assert not left_over(worker), f"{worker} was kept from the last run, not copied afresh"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as db:
            for database in [*workers, template]:
                db.execute(f'DROP DATABASE IF EXISTS "{database}"')

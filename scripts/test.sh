#!/usr/bin/env bash
# The whole suite on PostgreSQL and Redis with a real Celery worker (started by the tests' session fixture),
# then the short soak test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh

source scripts/test-env.sh

# The named database itself (tests use test_<name>); makemigrations checks its history against the files.
db_name="${DATABASE_URL##*/}"
psql "${DATABASE_URL%/*}/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db_name'" | grep -q 1 \
  || psql "${DATABASE_URL%/*}/postgres" -qc "CREATE DATABASE \"$db_name\""

.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python manage.py makemigrations --check --dry-run
.venv/bin/python manage.py replay_round tests/vectors --check >/dev/null
# The soak test's short form (workers killed, the database and the broker restarted, tasks delivered twice; a few
# minutes; its own PostgreSQL cluster and Redis server on ports of their own), after a full run only; it runs
# before pytest so that the suite's summary closes the output. Its races (bets against a disconnection and against
# the table maximum) run too.
if [ "$#" -eq 0 ] && [ "${SOAK:-1}" != 0 ]; then
  .venv/bin/python bench/soak.py --short
fi

# In parallel (pytest-xdist): each worker process has its own test database, Celery worker, queue and cache keys
# (casino/testing.py, tests/fixtures/worker.py). loadgroup keeps the tests sharing one costly module fixture
# (`xdist_group`) on one worker. TEST_WORKERS=0 runs the suite in this one process.
.venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadgroup "$@"


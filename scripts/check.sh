#!/usr/bin/env bash
# The fast check beside `make test`: lint, types, the round-script vectors, and every test that needs neither
# the Celery worker nor the browser (tests/conftest.py marks those from their fixtures) nor seconds each
# (`slow`: simulator runs, the exact RTP solver, the hostile-input and persona walks; their completeness tests
# stay), in parallel, each worker on a fresh copy of a kept template database. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh
source scripts/test-env.sh
# Compiled modules and pytest's rewritten test modules are kept between runs (under var/, not beside the sources),
# even where the environment asks Python not to write them: recompiling them costs every run, and each xdist
# worker, seconds of CPU.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PWD/var/pycache"

.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python manage.py replay_round tests/vectors --check >/dev/null
# --reuse-db keeps the migrated template database between runs (only newer migrations are applied to it); each
# worker's database is a fresh copy of it every run (tests/fixtures/database.py says why).
.venv/bin/python -m pytest -q -m "not worker and not browser and not slow" -n "${CHECK_WORKERS:-auto}" --reuse-db \
  "$@"

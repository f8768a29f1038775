#!/usr/bin/env bash
# The soak test: simulated tables on a PostgreSQL cluster and a Redis server of its own while Celery workers are
# killed and the database and broker restarted (bench/soak.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh
export SECRET_KEY="soak-only-not-a-secret" FAST_PASSWORD_HASHER=1
.venv/bin/python bench/soak.py "$@"

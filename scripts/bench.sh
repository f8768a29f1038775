#!/usr/bin/env bash
# Benchmarks need the same services as the tests (PostgreSQL for the wallet and settlement figures).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh
export SECRET_KEY="bench-only-not-a-secret" FAST_PASSWORD_HASHER=1
.venv/bin/python bench/run_all.py "$@"

#!/usr/bin/env bash
# The production web server: granian serving casino.wsgi, one process per CPU with WEB_THREADS threads each.
# Environment: every variable of README's table, plus WEB_BIND (0.0.0.0:8000), WEB_WORKERS (the CPUs),
# WEB_THREADS (4). bench/http_bench.py and tests/test_web_server.py start the server through this file.
#
# Why granian and not gunicorn's sync workers (docs/benchmarks.md, "Seventh session"): its HTTP parsing is Rust,
# not Python, and it keeps a game client's connection open between bets where a sync worker closes it after
# every response. Alternating on one 2-CPU host with pgbench beside each run: 554-566 bets/s against 496-519 at
# 50 clients, 547-559 against 482-487 at 200; the server's CPU per bet 1.74-1.85 ms against 1.90-1.96, the
# load generator's 0.12 against 0.34, GET /healthz 0.31 ms against 0.61. Threads: a request spends much of its
# time waiting on PostgreSQL with the GIL released, so WEB_THREADS requests of one process overlap; each
# thread keeps its own database connection.
set -euo pipefail
cd "$(dirname "$0")/.."
bind="${WEB_BIND:-0.0.0.0:8000}"
exec "${WEB_PYTHON_BIN:-.venv/bin}/granian" --interface wsgi casino.wsgi:application \
    --host "${bind%:*}" --port "${bind##*:}" \
    --workers "${WEB_WORKERS:-$(nproc)}" --blocking-threads "${WEB_THREADS:-4}" \
    --respawn-failed-workers --log-level "$(echo "${LOG_LEVEL:-info}" | tr '[:upper:]' '[:lower:]')" "$@"

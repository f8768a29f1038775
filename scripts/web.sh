#!/usr/bin/env bash
# The production web server: granian serving casino.wsgi, one process per CPU with WEB_THREADS threads each.
# Environment: every variable of README's table, plus WEB_BIND (0.0.0.0:8000), WEB_WORKERS (the CPUs),
# WEB_THREADS (4). bench/http_bench.py and tests/test_web_server.py start the server through this file.
#
# Why granian and not gunicorn's sync workers (docs/benchmarks.md, "The web server"): its HTTP parsing is Rust,
# not Python, and it keeps a game client's connection open between bets where a sync worker closes it after
# every response. On the same 2-CPU host, in the same hour: 610-618 bets/s against 516 at 50 clients, the server's
# CPU per bet 1.71-1.73 ms against 1.89-1.93, GET /healthz 0.31 ms against 0.61. Threads: a request spends
# most of its time waiting on PostgreSQL with the GIL released, so WEB_THREADS requests of one process overlap.
set -euo pipefail
cd "$(dirname "$0")/.."
bind="${WEB_BIND:-0.0.0.0:8000}"
exec "${WEB_PYTHON_BIN:-.venv/bin}/granian" --interface wsgi casino.wsgi:application \
    --host "${bind%:*}" --port "${bind##*:}" \
    --workers "${WEB_WORKERS:-$(nproc)}" --blocking-threads "${WEB_THREADS:-4}" \
    --respawn-failed-workers --log-level "$(echo "${LOG_LEVEL:-info}" | tr '[:upper:]' '[:lower:]')" "$@"

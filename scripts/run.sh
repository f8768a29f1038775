#!/usr/bin/env bash
# The embedded default: SQLite, a real Celery worker on the file-system broker, demo data, the web server.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG="${DEBUG:-1}"
PY=.venv/bin/python
mkdir -p var/broker var/broker-control var/celery-results var/cache

$PY manage.py migrate --noinput
# With DEBUG on WhiteNoise serves static/ as it is; DEBUG=0 pages link the hashed names collectstatic writes.
if [ "$DEBUG" = 0 ]; then $PY manage.py collectstatic --noinput -v 0; fi
$PY manage.py demo_data

# -B runs the periodic sweeps (decision timers, stuck settlements) inside this one worker.
$PY -m celery -A casino worker -B --schedule var/celerybeat-schedule --loglevel WARNING --concurrency 2 \
    --without-gossip --without-mingle --without-heartbeat -n "casino-run@%h" &
worker=$!
stop() {
  trap - INT TERM EXIT
  kill -TERM "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true
}
trap stop INT TERM EXIT

echo
echo "  Live Blackjack back office: http://127.0.0.1:8000/"
echo "  Celery worker pid $worker on the file-system broker (var/broker). Ctrl-C stops both."
echo
$PY manage.py runserver 127.0.0.1:8000 --noreload

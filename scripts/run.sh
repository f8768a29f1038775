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

# -B runs the periodic sweeps (decision timers, stuck settlements) inside the settlement worker. The long tasks
# (RTP runs and previews, casino/settings.py CELERY_TASK_ROUTES) have a queue and a worker of their own, one
# process (solo pool), so a settlement never waits behind them.
read -r queue long_queue < <($PY -c 'from casino import settings as s, worker_process as w
print(s.CELERY_TASK_DEFAULT_QUEUE, w.long_queue(s.CELERY_TASK_DEFAULT_QUEUE))')
$PY -m celery -A casino worker -Q "$queue" -B --schedule var/celerybeat-schedule --loglevel WARNING \
    --concurrency 2 --without-gossip --without-mingle --without-heartbeat -n "casino-run@%h" &
worker=$!
$PY -m celery -A casino worker -Q "$long_queue" --pool solo --loglevel WARNING \
    --without-gossip --without-mingle --without-heartbeat -n "casino-run-long@%h" &
long_worker=$!
stop() {
  trap - INT TERM EXIT
  kill -TERM "$worker" "$long_worker" 2>/dev/null || true
  wait "$worker" "$long_worker" 2>/dev/null || true
}
trap stop INT TERM EXIT

echo
echo "  Live Blackjack back office: http://127.0.0.1:8000/"
echo "  Celery workers pid $worker (settlements) and $long_worker (RTP runs) on the file-system broker (var/broker)."
echo "  Ctrl-C stops them all."
echo
$PY manage.py runserver 127.0.0.1:8000 --noreload

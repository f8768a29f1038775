#!/usr/bin/env bash
# The soak test: simulated tables on a PostgreSQL cluster and a Redis server of its own while Celery workers are
# killed and the database and broker restarted (bench/soak.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/services.sh
export SECRET_KEY="soak-only-not-a-secret" FAST_PASSWORD_HASHER=1
case " $* " in
  *" --hosts"*)  # the test hosts are network namespaces: `ip` from iproute2 (bench/soak_hosts.py)
    if ! command -v ip >/dev/null; then
      echo "soak: --hosts needs \`ip\` (iproute2) for its network namespaces; installing iproute2" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
    fi ;;
esac
if [ "${1:-}" = "--hosts-compare" ]; then
  shift
  exec .venv/bin/python bench/soak_hosts.py "$@"
fi
.venv/bin/python bench/soak.py "$@"

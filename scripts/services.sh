#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on loopback: start them if installed but down, install them if missing.
set -euo pipefail

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done
  echo "services: nothing answers on 127.0.0.1:$1 after 30 s" >&2; return 1
}

if ! port_open 5432; then
  command -v pg_ctlcluster >/dev/null || apt_install postgresql
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  echo "services: starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  wait_port 5432
fi

if ! port_open 6379; then
  command -v redis-server >/dev/null || apt_install redis-server
  echo "services: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
  wait_port 6379
fi

# Browser tests drive Debian's Chromium (Playwright's own browser download cannot work here).
if [ ! -x /usr/bin/chromium ]; then
  echo "services: installing Debian's chromium for the browser tests"
  apt_install chromium
fi

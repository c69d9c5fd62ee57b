#!/usr/bin/env bash
# Makes sure redis-server, memcached and PostgreSQL are installed and running on loopback.
# Idempotent and quiet when all is well; says what failed and how to fix it otherwise.
# Exports nothing: .ci/run sets DATABASE_URL to the database this script prepares.
set -euo pipefail

PG_DATABASE="${PG_DATABASE:-platform_test}"
PG_PASSWORD="${PG_PASSWORD:-postgres}"

SETUP_NAME=services
# shellcheck source=lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  local port=$1 name=$2
  for _ in $(seq 1 100); do port_open "$port" && return 0; sleep 0.1; done
  fail "$name did not start listening on 127.0.0.1:$port"
}

# python3-grpcio: the C-core gRPC client of the rate limit service's grpcio test.
ensure_packages redis-server redis-tools memcached postgresql postgresql-client nghttp2-client wrk openssl python3-grpcio

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  say "starting redis-server on 127.0.0.1:6379"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || fail "redis-server failed: see /var/log/redis/ci.log"
  wait_port 6379 redis-server
fi

if ! port_open 11211; then
  say "starting memcached on 127.0.0.1:11211"
  memcached -d -l 127.0.0.1 -p 11211 -U 0 -m 64 -u "$(id -un)" || fail "memcached failed to start"
  wait_port 11211 memcached
fi

if ! port_open 5432; then
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$version" ] || fail "no PostgreSQL cluster under /etc/postgresql (is the postgresql package installed?)"
  say "starting PostgreSQL $version"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start \
    || fail "pg_ctlcluster $version main start failed: see /var/log/postgresql/"
  wait_port 5432 PostgreSQL
fi

# A password lets the tests connect over TCP whatever the pg_hba method (trust, md5 or scram).
psql_admin() { as_root su postgres -s /bin/sh -c "psql -X -q -v ON_ERROR_STOP=1 $*"; }
psql_admin "-c \"ALTER USER postgres PASSWORD '$PG_PASSWORD'\"" >/dev/null \
  || fail "could not set the postgres password"
if ! psql_admin "-tAc \"SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'\"" | grep -q 1; then
  psql_admin "-c 'CREATE DATABASE $PG_DATABASE'" >/dev/null || fail "could not create database $PG_DATABASE"
fi

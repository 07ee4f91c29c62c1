#!/usr/bin/env bash
# Start a private PostgreSQL cluster for the tests (Unix socket only, no TCP port to collide on)
# and print its SQLAlchemy URL. Idempotent: a running cluster is reused. On failure it prints
# nothing on stdout and the reason on stderr, and the PostgreSQL tests skip saying so.
set -euo pipefail
root="/tmp/banco-pg-$(printf %s "$PWD" | md5sum | cut -c1-10)"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [ -z "$bin" ]; then echo "postgres: no PostgreSQL server installed (Debian package postgresql)" >&2; exit 1; fi
if [ "$(id -u)" = 0 ]; then
    as_owner() { runuser -u postgres -- "$@"; }
    mkdir -p "$root" && chown postgres: "$root"
else
    as_owner() { "$@"; }
    mkdir -p "$root"
fi
if [ ! -f "$root/data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$root/data" -A trust -U postgres >"$root/initdb.log" 2>&1 \
      || { echo "postgres: initdb failed, see $root/initdb.log" >&2; exit 1; }
fi
if ! as_owner "$bin/pg_ctl" -D "$root/data" status >/dev/null 2>&1; then
    # fsync off: these are throw-away test databases; durability is tested on SQLite.
    as_owner "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 30 \
      -o "-c listen_addresses='' -k $root -c fsync=off -c max_connections=200" start >/dev/null \
      || { echo "postgres: the server did not start, see $root/server.log" >&2; exit 1; }
fi
echo "postgresql+psycopg://postgres@/postgres?host=$root"

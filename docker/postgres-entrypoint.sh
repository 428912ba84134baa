#!/bin/sh
# The cluster profile's PostgreSQL (docker/postgres.Dockerfile): makes the
# database cluster on the first start, then runs the server in the
# foreground (SIGTERM stops it cleanly).
set -eu
if [ -z "${WEBNNM_PG_PASSWORD:-}" ]; then
  echo "postgres: set WEBNNM_PG_PASSWORD (the webnnm role's password)" >&2
  exit 2
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$WEBNNM_PG_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U webnnm --pwfile="$pwfile" -E UTF8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "host all all ::/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  createdb -U webnnm webnnm
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c max_connections=200

#!/usr/bin/env bash
# A journey store with a streaming replica on this machine, for the tests of the journey API's
# read replica: two PostgreSQL clusters of acktrail's own (Debian's pg_createcluster), so that
# neither the main cluster's configuration nor its data (the tests' and benchmarks' databases)
# is touched:
#
#   acktrail_primary  port 5434  a fresh cluster that keeps 512 MB of WAL for its replica
#   acktrail_replica  port 5433  a pg_basebackup of it (-R: standby.signal, primary_conninfo),
#                                replaying over streaming replication
#
# Both take the login role acktrail/acktrail as the main cluster does (scripts/services.sh). No
# replication slot: a replica left stopped never makes the primary keep WAL beyond that;
# `ensure` rebuilds a replica that can no longer follow.
#
#   pg-replica.sh ensure    create what is missing, start both, wait until the replica streams
#   pg-replica.sh stop      stop the replica (as a crash of that server would)
#   pg-replica.sh start     start the replica again and wait until it streams
#   pg-replica.sh pause     pause the replica's replay (it receives WAL, applies none: it lags)
#   pg-replica.sh resume    resume its replay
#   pg-replica.sh restart-primary  restart the primary as a failover or an upgrade does (fast:
#                           every client connection ended with 57P01), and wait until it answers
#   pg-replica.sh drop      stop both and delete them
set -euo pipefail

say() { printf 'pg-replica: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

PRIMARY=acktrail_primary
PRIMARY_PORT=5434
REPLICA=acktrail_replica
REPLICA_PORT=5433
[ "$(id -u)" = 0 ] || die "run as root (the clusters belong to the postgres user)"
VERSION=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
[ -n "$VERSION" ] || die "PostgreSQL is not installed (scripts/services.sh installs it)"

as_postgres() { su postgres -c "$*"; }
sql() { as_postgres "psql -X -q -At -p $1 -d postgres -c \"$2\""; }
etc() { echo "/etc/postgresql/$VERSION/$1"; }
data() { echo "/var/lib/postgresql/$VERSION/$1"; }
running() { pg_isready -q -h 127.0.0.1 -p "$1"; }
streaming() { [ "$(sql "$REPLICA_PORT" "SELECT status FROM pg_stat_wal_receiver" 2>/dev/null)" = streaming ]; }
ctl() { pg_ctlcluster --skip-systemctl-redirect "$VERSION" "$@"; }

wait_until() {
  local what=$1 deadline=$((SECONDS + 60))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

create_primary() {
  say "creating $PRIMARY (port $PRIMARY_PORT)"
  pg_createcluster "$VERSION" "$PRIMARY" -p "$PRIMARY_PORT" >/dev/null
  local hba
  hba="$(etc "$PRIMARY")/pg_hba.conf"
  cat >"$hba" <<EOF
local replication postgres peer
local all postgres peer
local all all trust
host all all 127.0.0.1/32 scram-sha-256
EOF
  chown postgres:postgres "$hba"
  cat >"$(etc "$PRIMARY")/conf.d/acktrail.conf" <<EOF
listen_addresses = '127.0.0.1'
wal_keep_size = '512MB'
EOF
  ctl "$PRIMARY" start
  wait_until "$PRIMARY" running "$PRIMARY_PORT" || die "$PRIMARY does not start"
  sql "$PRIMARY_PORT" "CREATE ROLE acktrail LOGIN PASSWORD 'acktrail' CREATEDB CREATEROLE" >/dev/null
}

create_replica() {
  say "creating $REPLICA (port $REPLICA_PORT) from a base backup of $PRIMARY"
  [ -d "$(etc "$REPLICA")" ] || pg_createcluster "$VERSION" "$REPLICA" -p "$REPLICA_PORT" >/dev/null
  cp "$(etc "$PRIMARY")/pg_hba.conf" "$(etc "$REPLICA")/pg_hba.conf"
  cp "$(etc "$PRIMARY")/conf.d/acktrail.conf" "$(etc "$REPLICA")/conf.d/acktrail.conf"
  local dir
  dir=$(data "$REPLICA")
  rm -rf "$dir"
  install -d -m 700 -o postgres -g postgres "$dir"
  as_postgres "pg_basebackup -D $dir -R -X stream -c fast -p $PRIMARY_PORT"
}

start_replica() {
  running "$REPLICA_PORT" || ctl "$REPLICA" start
  wait_until "$REPLICA streaming" streaming
}

drop_cluster() {
  if [ -d "$(etc "$1")" ]; then
    ctl "$1" stop -m fast 2>/dev/null || true
    pg_dropcluster "$VERSION" "$1"
  fi
  rm -rf "$(data "$1")"
}

ensure() {
  [ -d "$(etc "$PRIMARY")" ] || create_primary
  running "$PRIMARY_PORT" || ctl "$PRIMARY" start
  wait_until "$PRIMARY" running "$PRIMARY_PORT" || die "$PRIMARY does not start"
  [ -f "$(data "$REPLICA")/standby.signal" ] || create_replica
  if ! start_replica; then
    say "$REPLICA does not stream (too far behind?): building it again"
    drop_cluster "$REPLICA"
    create_replica
    start_replica || die "$REPLICA does not stream; see /var/log/postgresql/postgresql-$VERSION-$REPLICA.log"
  fi
}

case "${1:-}" in
  ensure) ensure ;;
  stop) if running "$REPLICA_PORT"; then ctl "$REPLICA" stop -m fast; fi ;;
  start) start_replica || die "$REPLICA does not stream" ;;
  pause) sql "$REPLICA_PORT" "SELECT pg_wal_replay_pause()" >/dev/null ;;
  resume) sql "$REPLICA_PORT" "SELECT pg_wal_replay_resume()" >/dev/null ;;
  restart-primary)
    ctl "$PRIMARY" restart -m fast
    wait_until "$PRIMARY" running "$PRIMARY_PORT" || die "$PRIMARY does not start again"
    ;;
  drop)
    drop_cluster "$REPLICA"
    drop_cluster "$PRIMARY"
    ;;
  *) die "usage: pg-replica.sh ensure | stop | start | pause | resume | restart-primary | drop" ;;
esac

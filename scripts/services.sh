#!/usr/bin/env bash
# Makes sure the local services acktrail needs are installed, running and answering:
# RabbitMQ (with the management and prometheus plugins), PostgreSQL (with the acktrail role) and
# Prometheus with promtool, VictoriaMetrics with vmalert, Chromium for the dashboard's browser
# tests, docker-compose to validate the compose file, and Celery with Redis for the Celery tests.
# RabbitMQ 4.0 in a Debian 13 chroot and the newest Debian packages in an unstable one, on ports of
# their own (scripts/rabbitmq4.sh).
# The three-node RabbitMQ cluster (scripts/rabbitmq-cluster.sh) and the PostgreSQL replica
# (scripts/pg-replica.sh) are started by the tests that need them.
# With --demo, only what the demo runs: RabbitMQ, PostgreSQL and Prometheus.
# Idempotent and quiet when all is well; installs from the OS packages when missing (needs root).
set -euo pipefail

say() { printf 'services: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found; install $* by hand"
  [ "$(id -u)" = 0 ] || die "$* missing and not running as root; install it by hand"
  if [ "$APT_UPDATED" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# wait_for DESCRIPTION TIMEOUT_S COMMAND...: retries COMMAND until it succeeds or TIMEOUT_S passes.
wait_for() {
  local what=$1 timeout=$2; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || die "$what did not answer within ${timeout}s"
    sleep 0.5
  done
}

ensure_postgres() {
  if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    apt_install postgresql postgresql-client
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    say "starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    wait_for "PostgreSQL" 60 pg_isready -q -h 127.0.0.1 -p 5432
  fi
  # The role the tests and the demo use. Created through the postgres superuser over the local
  # socket, so it works whether or not TCP trust auth is configured.
  if ! PGPASSWORD=acktrail psql -h 127.0.0.1 -U acktrail -d postgres -tAc 'SELECT 1' >/dev/null 2>&1 \
    && ! su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname = 'acktrail'\"" | grep -q 1; then
    say "creating PostgreSQL role acktrail"
    su postgres -c "psql -q -c \"CREATE ROLE acktrail LOGIN PASSWORD 'acktrail' CREATEDB CREATEROLE\""
  fi
}

# The node (the Erlang VM), which can run without its application: `rabbitmqctl stop_app`, as
# test/start-order.int.test.ts does, leaves it so when that test is interrupted (`status` then
# fails, and starting another node beside it cannot work).
rabbit_running() { rabbitmqctl -q ping >/dev/null 2>&1; }
rabbit_app_running() { [ "$(rabbitmqctl -q eval 'rabbit:is_running().' 2>/dev/null)" = true ]; }
management_up() { curl -fsS -o /dev/null -u guest:guest http://127.0.0.1:15672/api/overview; }
prometheus_plugin_up() { curl -fsS -o /dev/null http://127.0.0.1:15692/metrics; }

ensure_rabbitmq() {
  # Fast path: both plugin endpoints answer, so the broker runs with what we need.
  if management_up 2>/dev/null && prometheus_plugin_up 2>/dev/null; then return; fi
  command -v rabbitmq-server >/dev/null || apt_install rabbitmq-server
  if ! rabbit_running; then
    say "starting RabbitMQ"
    rabbitmq-server -detached >/dev/null 2>&1 || true
    rabbitmqctl -q wait --timeout 60 "/var/lib/rabbitmq/mnesia/rabbit@$(hostname -s).pid" >/dev/null 2>&1 \
      || wait_for "RabbitMQ" 60 rabbit_running
  fi
  if ! rabbit_app_running; then
    say "starting the RabbitMQ application (its node ran without it)"
    rabbitmqctl -q start_app >/dev/null
  fi
  local plugin
  for plugin in rabbitmq_management rabbitmq_prometheus; do
    if ! rabbitmq-plugins -q list -e "^${plugin}\$" 2>/dev/null | grep -q "$plugin"; then
      say "enabling $plugin"
      rabbitmq-plugins -q enable "$plugin" >/dev/null
    fi
  done
  wait_for "RabbitMQ management API" 60 management_up
  wait_for "RabbitMQ prometheus endpoint" 60 prometheus_plugin_up
}

# What the demo runs beside the pipeline: Prometheus (and curl for the waits).
ensure_demo_tools() {
  command -v curl >/dev/null || apt_install curl
  # Prometheus (the demo's and the tests' server) and promtool (metric and rule checks).
  command -v promtool >/dev/null && command -v prometheus >/dev/null || apt_install prometheus
}

ensure_tools() {
  ensure_demo_tools
  # Headless Chromium for the dashboard's browser tests (driven by playwright-core).
  [ -x /usr/bin/chromium ] || apt_install chromium
  # docker-compose (Debian's, v1) validates docker-compose.yml in the tests; no engine needed.
  command -v docker-compose >/dev/null || apt_install docker-compose
  # buildah and debootstrap build and run the images (scripts/images.sh, test/images.int.test.ts).
  command -v buildah >/dev/null && command -v debootstrap >/dev/null || apt_install buildah debootstrap
  # jsonnet renders the mixin's entry point (test/mixin-jsonnet.test.ts).
  command -v jsonnet >/dev/null || apt_install jsonnet
  # kubectl's kustomize renders deploy/ (test/kubernetes.test.ts, test/kube-prometheus-stack.test.ts).
  command -v kubectl >/dev/null || apt_install kubectl
  # VictoriaMetrics and vmalert: the tests' remote_write target, read by the dashboard and the
  # Grafana queries as a Prometheus would be (each test starts its own; no service runs).
  command -v victoria-metrics >/dev/null && command -v vmalert >/dev/null || apt_install victoria-metrics
  # The OpenMetrics reference parser (client_python's), which checks the OpenMetrics exposition
  # with its exemplars: promtool reads only the text format.
  /usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null || apt_install python3-prometheus-client
  # PgBouncer with transaction pooling in front of the journey store (each test starts its own).
  command -v pgbouncer >/dev/null || apt_install pgbouncer
}

# Celery's tests: a real Celery 5 worker from Debian's packages (run with /usr/bin/python3) and
# Redis as its result backend (chords need one).
ensure_celery() {
  /usr/bin/python3 -c 'import celery, redis' 2>/dev/null || apt_install python3-celery python3-redis
  command -v redis-server >/dev/null || apt_install redis-server
  if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
    say "starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/acktrail.log
    wait_for "Redis" 30 redis-cli -h 127.0.0.1 ping
  fi
}

# `services.sh --demo`: only what `npm run demo` runs (RabbitMQ, PostgreSQL, Prometheus).
if [ "${1:-}" = --demo ]; then
  ensure_demo_tools
  ensure_postgres
  ensure_rabbitmq
  exit 0
fi
ensure_tools
ensure_celery
ensure_postgres
ensure_rabbitmq
# RabbitMQ 4.0 as the official image ships it, beside the default node (test/rabbitmq4.int.test.ts),
# and the newest that Debian packages (unstable), as compose pins it (the collector tests).
bash "$(dirname "$0")/rabbitmq4.sh" ensure
bash "$(dirname "$0")/rabbitmq4.sh" --newest ensure
# Prometheus 3 (Debian unstable's package, from that chroot) beside 2.42, for the tests that run
# both (test/prometheus-live.int.test.ts).
bash "$(dirname "$0")/prometheus3.sh" ensure >/dev/null

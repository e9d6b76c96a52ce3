#!/usr/bin/env bash
# A three-node RabbitMQ cluster on this machine, for the tests that need one (the default
# single node on 5672 stays as it is for the rest). Each node has its own name, ports and data
# directory, and the second and third are joined to the first:
#
#   node                  AMQP   management   prometheus   distribution
#   acktrail-c1@localhost 5681   15681        15701        25681
#   acktrail-c2@localhost 5682   15682        15702        25682
#   acktrail-c3@localhost 5683   15683        15703        25683
#
#   rabbitmq-cluster.sh ensure      start what is not running, (re)join, wait until all 3 run
#   rabbitmq-cluster.sh stop N      stop node N (1-3), as a crash of that machine would
#   rabbitmq-cluster.sh start N     start node N again and wait for it to rejoin
#   rabbitmq-cluster.sh down        stop every node of the cluster
#   rabbitmq-cluster.sh reset       stop every node and delete the cluster's data
#   rabbitmq-cluster.sh queues N ARGS...   rabbitmq-queues ARGS against node N (move a leader)
#   rabbitmq-cluster.sh ctl N ARGS...      rabbitmqctl ARGS against node N
#
# With --rabbitmq4 first (rabbitmq-cluster.sh --rabbitmq4 ensure, ...), the same three nodes run
# RabbitMQ 4.0 as the official image ships it, in the chroot of scripts/rabbitmq4.sh (made and
# mounted by it), with that chroot's epmd port (4391) and the metrics collector off:
#
#   node                   AMQP   management   prometheus   distribution
#   acktrail-r4c1@localhost 5694  15694        15714        25694
#   acktrail-r4c2@localhost 5695  15695        15715        25695
#   acktrail-r4c3@localhost 5696  15696        15716        25696
#
# The nodes run as the rabbitmq user with its Erlang cookie, like the default node (root runs
# them through su). Data lives under /var/lib/rabbitmq/acktrail-cluster (of the chroot, for
# RabbitMQ 4); `ensure` starts over from empty directories when the nodes it finds cannot form
# the cluster.
set -euo pipefail

V4=
if [ "${1:-}" = --rabbitmq4 ]; then
  V4=1
  shift
fi

say() { printf 'rabbitmq-cluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

BASE=/var/lib/rabbitmq/acktrail-cluster
NODES=(1 2 3)
if [ -n "$V4" ]; then
  ROOT4=${ACKTRAIL_RABBITMQ4_ROOT:-/var/lib/acktrail/rabbitmq4}
  node_name() { echo "acktrail-r4c$1@localhost"; }
  OFF=13 # node 1: 5694, 15694, 15714, 25694
  EXTRA_CONF='management_agent.disable_metrics_collector = true'
else
  node_name() { echo "acktrail-c$1@localhost"; }
  OFF=0 # node 1: 5681, 15681, 15701, 25681
  EXTRA_CONF=
fi
amqp_port() { echo $((5680 + OFF + $1)); }
management_port() { echo $((15680 + OFF + $1)); }
prometheus_port() { echo $((15700 + OFF + $1)); }
dist_port() { echo $((25680 + OFF + $1)); }

as_rabbitmq() {
  if [ -n "$V4" ]; then
    [ "$(id -u)" = 0 ] || die "RabbitMQ 4's cluster runs in a chroot: run as root"
    chroot "$ROOT4" env ERL_EPMD_PORT=4391 su rabbitmq -s /bin/sh -c \
      "cd /var/lib/rabbitmq && HOME=/var/lib/rabbitmq ERL_EPMD_PORT=4391 $*"
  elif [ "$(id -u)" = 0 ]; then
    su rabbitmq -s /bin/sh -c "cd /var/lib/rabbitmq && HOME=/var/lib/rabbitmq $*"
  elif [ "$(id -un)" = rabbitmq ]; then
    (cd /var/lib/rabbitmq && HOME=/var/lib/rabbitmq sh -c "$*")
  else
    die "run as root or as the rabbitmq user"
  fi
}

ctl() { local n=$1; shift; as_rabbitmq "/usr/lib/rabbitmq/bin/rabbitmqctl -q -n $(node_name "$n") $*"; }

running() { ctl "$1" status >/dev/null 2>&1; }

# The node's own config: listeners on loopback, on its ports.
write_config() {
  local n=$1 dir="$BASE/c$1"
  as_rabbitmq "mkdir -p $dir/mnesia $dir/log"
  as_rabbitmq "cat > $dir/rabbitmq.conf" <<EOF
listeners.tcp.local = 127.0.0.1:$(amqp_port "$n")
management.tcp.ip = 127.0.0.1
management.tcp.port = $(management_port "$n")
prometheus.tcp.ip = 127.0.0.1
prometheus.tcp.port = $(prometheus_port "$n")
loopback_users = none
$EXTRA_CONF
EOF
  as_rabbitmq "echo '[rabbitmq_management,rabbitmq_prometheus].' > $dir/enabled_plugins"
  # An env file of its own, so that /etc/rabbitmq/rabbitmq-env.conf (the default node's name)
  # does not apply.
  as_rabbitmq "cat > $dir/rabbitmq-env.conf" <<EOF
NODENAME=$(node_name "$n")
EOF
}

start_node() {
  local n=$1 dir="$BASE/c$1"
  running "$n" && return
  write_config "$n"
  say "starting $(node_name "$n")"
  as_rabbitmq "RABBITMQ_CONF_ENV_FILE=$dir/rabbitmq-env.conf RABBITMQ_NODENAME=$(node_name "$n") \
    RABBITMQ_NODE_PORT=$(amqp_port "$n") RABBITMQ_DIST_PORT=$(dist_port "$n") RABBITMQ_CONFIG_FILE=$dir/rabbitmq.conf \
    RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins RABBITMQ_MNESIA_BASE=$dir/mnesia \
    RABBITMQ_MNESIA_DIR=$dir/mnesia/node RABBITMQ_LOG_BASE=$dir/log \
    RABBITMQ_PID_FILE=$dir/node.pid ERL_EPMD_ADDRESS=127.0.0.1 \
    ERL_FLAGS='-kernel inet_dist_use_interface {127,0,0,1}' \
    /usr/lib/rabbitmq/bin/rabbitmq-server -detached" >/dev/null 2>&1
}

wait_booted() {
  local n=$1
  ctl "$n" wait --timeout 120 "$BASE/c$n/node.pid" >/dev/null 2>&1 \
    || die "$(node_name "$n") did not start (log: $BASE/c$n/log)"
}

# cluster_status of node N as JSON, one field of it: running_nodes or disk_nodes.
status_field() {
  ctl "$1" cluster_status --formatter json 2>/dev/null \
    | python3 -c "import json,sys; print(' '.join(json.load(sys.stdin).get('$2', [])))" 2>/dev/null || true
}

members() { status_field 1 running_nodes | wc -w; }

join() {
  local n=$1
  ctl "$n" stop_app >/dev/null
  ctl "$n" join_cluster "$(node_name 1)" >/dev/null
  ctl "$n" start_app >/dev/null
}

ensure() {
  if [ -n "$V4" ]; then
    # The chroot made, /proc mounted, its epmd running (the single node).
    bash "$(dirname "$0")/rabbitmq4.sh" ensure
  else
    command -v rabbitmq-server >/dev/null || die "rabbitmq-server is not installed (scripts/services.sh installs it)"
  fi
  local n
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_booted "$n"; done
  for n in 2 3; do
    if ! status_field "$n" disk_nodes | grep -qw "$(node_name 1)"; then
      say "joining $(node_name "$n") to $(node_name 1)"
      join "$n" || { say "join failed; starting the cluster over"; reset; ensure_fresh; return; }
    fi
  done
  wait_members
}

ensure_fresh() {
  local n
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_booted "$n"; done
  for n in 2 3; do join "$n"; done
  wait_members
}

wait_members() {
  local deadline=$((SECONDS + 120))
  until [ "$(members)" -eq 3 ]; do
    [ "$SECONDS" -lt "$deadline" ] || die "the cluster did not reach 3 running nodes"
    sleep 0.5
  done
  local url n urls=()
  for n in "${NODES[@]}"; do
    urls+=("http://127.0.0.1:$(management_port "$n")/api/overview" "http://127.0.0.1:$(prometheus_port "$n")/metrics")
  done
  for url in "${urls[@]}"; do
    until curl -fsS -o /dev/null -u guest:guest "$url" 2>/dev/null; do
      [ "$SECONDS" -lt "$deadline" ] || die "$url does not answer"
      sleep 0.5
    done
  done
}

stop_node() {
  local n=$1
  running "$n" || return 0
  say "stopping $(node_name "$n")"
  ctl "$n" stop "$BASE/c$n/node.pid" >/dev/null 2>&1 || true
}

reset() {
  local n
  for n in "${NODES[@]}"; do stop_node "$n"; done
  as_rabbitmq "rm -rf $BASE"
}

case "${1:-}" in
  ensure) ensure ;;
  stop) stop_node "${2:?node number}" ;;
  start)
    start_node "${2:?node number}"
    wait_booted "$2"
    wait_members
    ;;
  down) for n in "${NODES[@]}"; do stop_node "$n"; done ;;
  reset) reset ;;
  queues)
    n=${2:?node number}
    shift 2
    as_rabbitmq "/usr/lib/rabbitmq/bin/rabbitmq-queues -q -n $(node_name "$n") $(printf '%q ' "$@")"
    ;;
  ctl)
    n=${2:?node number}
    shift 2
    as_rabbitmq "/usr/lib/rabbitmq/bin/rabbitmqctl -q -n $(node_name "$n") $(printf '%q ' "$@")"
    ;;
  *) die "usage: rabbitmq-cluster.sh [--rabbitmq4] ensure | stop N | start N | down | reset | queues N ARGS... | ctl N ARGS..." ;;
esac

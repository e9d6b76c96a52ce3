#!/usr/bin/env bash
# RabbitMQ 4 as the official image ships it, beside this machine's own broker, in a debootstrap
# chroot on ports of its own, with the management and prometheus plugins and
# management_agent.disable_metrics_collector = true (the official image's setting: the management
# API then has no queue statistics). Two of them:
#
#   instance     Debian    rabbitmq-server   node                     AMQP   management   prometheus   distribution   epmd
#   (default)    13        4.0.5             rabbit4@localhost        5691   15691        15711        25691          4391
#   --newest     unstable  the newest Debian packages (4.3.6 in 2026-12), as compose pins it
#                                            rabbitnewest@localhost   5693   15693        15713        25693          4393
#
#   rabbitmq4.sh [--newest] ensure      make the chroot (once, about 3 minutes), start the node, wait
#   rabbitmq4.sh [--newest] stop        stop the node
#   rabbitmq4.sh [--newest] ctl ARGS... rabbitmqctl ARGS against it
#   rabbitmq4.sh [--newest] version     the broker's version, as its package says
#
# The chroots live in ACKTRAIL_RABBITMQ4_ROOT (/var/lib/acktrail/rabbitmq4) and
# ACKTRAIL_RABBITMQ_NEWEST_ROOT (/var/lib/acktrail/rabbitmq-newest); needs root. Debian unstable's
# Release file is valid for a week: a mirror that is a snapshot (as this project's machines have)
# serves it expired, so apt in that chroot does not check its date.
set -euo pipefail

say() { printf 'rabbitmq4: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if [ "${1:-}" = --newest ]; then
  shift
  SUITE=sid
  ROOT=${ACKTRAIL_RABBITMQ_NEWEST_ROOT:-/var/lib/acktrail/rabbitmq-newest}
  NODE=rabbitnewest@localhost
  PORT=5693
  APT_OPTIONS=(-o Acquire::Check-Valid-Until=false)
  export ERL_EPMD_PORT=4393
else
  SUITE=trixie
  ROOT=${ACKTRAIL_RABBITMQ4_ROOT:-/var/lib/acktrail/rabbitmq4}
  NODE=rabbit4@localhost
  PORT=5691
  APT_OPTIONS=()
  export ERL_EPMD_PORT=4391
fi
MANAGEMENT_PORT=$((PORT + 10000))
PROMETHEUS_PORT=$((PORT + 10020))
DIST_PORT=$((PORT + 20000))

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"

in_root() { chroot "$ROOT" env ERL_EPMD_PORT=$ERL_EPMD_PORT HOME=/var/lib/rabbitmq "$@"; }
ctl() { in_root rabbitmqctl -q -n "$NODE" "$@"; }
mounted() { mountpoint -q "$ROOT/proc"; }

make_root() {
  [ -x "$ROOT/usr/sbin/rabbitmq-server" ] && return 0
  command -v debootstrap >/dev/null || {
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  }
  say "making a Debian $SUITE chroot in $ROOT (debootstrap, once)"
  rm -rf "$ROOT.partial"
  mkdir -p "$(dirname "$ROOT")"
  debootstrap --variant=minbase "$SUITE" "$ROOT.partial" >/dev/null
  cp /etc/resolv.conf "$ROOT.partial/etc/resolv.conf"
  # Erlang's distribution resolves the node's host, localhost (unstable's minbase has no hosts file).
  [ -s "$ROOT.partial/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost\n' > "$ROOT.partial/etc/hosts"
  mount -t proc proc "$ROOT.partial/proc"
  say "installing rabbitmq-server in the chroot"
  chroot "$ROOT.partial" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTIONS[@]}" update -qq
  chroot "$ROOT.partial" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends rabbitmq-server >/dev/null
  umount "$ROOT.partial/proc"
  mv "$ROOT.partial" "$ROOT"
}

configure() {
  cat > "$ROOT/etc/rabbitmq/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$PORT
management.tcp.ip = 127.0.0.1
management.tcp.port = $MANAGEMENT_PORT
prometheus.tcp.ip = 127.0.0.1
prometheus.tcp.port = $PROMETHEUS_PORT
loopback_users = none
# As the official image has it: no statistics in the management API.
management_agent.disable_metrics_collector = true
CONF
  echo '[rabbitmq_management,rabbitmq_prometheus].' > "$ROOT/etc/rabbitmq/enabled_plugins"
  cat > "$ROOT/etc/rabbitmq/rabbitmq-env.conf" <<CONF
NODENAME=$NODE
DIST_PORT=$DIST_PORT
CONF
}

case "${1:-ensure}" in
  ensure)
    make_root
    configure
    mounted || mount -t proc proc "$ROOT/proc"
    if ! ctl status >/dev/null 2>&1; then
      say "starting $NODE"
      in_root rabbitmq-server -detached >/dev/null 2>&1 || true
    fi
    deadline=$((SECONDS + 120))
    until ctl await_startup --timeout 5 >/dev/null 2>&1 &&
      curl -fsS -u guest:guest "http://127.0.0.1:$MANAGEMENT_PORT/api/overview" >/dev/null 2>&1; do
      [ "$SECONDS" -lt "$deadline" ] || die "$NODE did not start within 120 s"
      sleep 1
    done
    ;;
  stop)
    ctl stop >/dev/null 2>&1 || true
    ;;
  ctl)
    shift
    ctl "$@"
    ;;
  version)
    in_root dpkg-query -W -f '${Version}\n' rabbitmq-server | sed 's/-[^-]*$//'
    ;;
  *) die "usage: rabbitmq4.sh [--newest] ensure|stop|ctl ARGS...|version" ;;
esac

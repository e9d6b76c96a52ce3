#!/usr/bin/env bash
# RabbitMQ 4.0 as the official image ships it, beside this machine's own broker: Debian 13's
# rabbitmq-server (4.0.5) in a debootstrap chroot, on ports of its own, with the management and
# prometheus plugins and management_agent.disable_metrics_collector = true (the official image's
# setting: the management API then has no queue statistics).
#
#   node                AMQP   management   prometheus   distribution   epmd
#   rabbit4@localhost   5691   15691        15711        25691          4391
#
#   rabbitmq4.sh ensure   make the chroot (once, about 3 minutes), start the node, wait for it
#   rabbitmq4.sh stop     stop the node
#   rabbitmq4.sh ctl ARGS...   rabbitmqctl ARGS against it
#
# The chroot lives in ACKTRAIL_RABBITMQ4_ROOT (/var/lib/acktrail/rabbitmq4); needs root.
set -euo pipefail

say() { printf 'rabbitmq4: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

ROOT=${ACKTRAIL_RABBITMQ4_ROOT:-/var/lib/acktrail/rabbitmq4}
NODE=rabbit4@localhost
export ERL_EPMD_PORT=4391

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
  say "making a Debian 13 chroot in $ROOT (debootstrap, once)"
  rm -rf "$ROOT.partial"
  mkdir -p "$(dirname "$ROOT")"
  debootstrap --variant=minbase trixie "$ROOT.partial" >/dev/null
  cp /etc/resolv.conf "$ROOT.partial/etc/resolv.conf"
  mount -t proc proc "$ROOT.partial/proc"
  say "installing rabbitmq-server in the chroot"
  chroot "$ROOT.partial" env DEBIAN_FRONTEND=noninteractive sh -c \
    'apt-get update -qq && apt-get install -y -qq --no-install-recommends rabbitmq-server >/dev/null'
  umount "$ROOT.partial/proc"
  mv "$ROOT.partial" "$ROOT"
}

configure() {
  cat > "$ROOT/etc/rabbitmq/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:5691
management.tcp.ip = 127.0.0.1
management.tcp.port = 15691
prometheus.tcp.ip = 127.0.0.1
prometheus.tcp.port = 15711
loopback_users = none
# As the official image has it: no statistics in the management API.
management_agent.disable_metrics_collector = true
CONF
  echo '[rabbitmq_management,rabbitmq_prometheus].' > "$ROOT/etc/rabbitmq/enabled_plugins"
  cat > "$ROOT/etc/rabbitmq/rabbitmq-env.conf" <<CONF
NODENAME=$NODE
DIST_PORT=25691
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
      curl -fsS -u guest:guest http://127.0.0.1:15691/api/overview >/dev/null 2>&1; do
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
  *) die "usage: rabbitmq4.sh ensure|stop|ctl ARGS..." ;;
esac

#!/usr/bin/env bash
# Prometheus 3 beside Debian's 2.42 for the tests (kube-prometheus-stack and compose run 3.x): the
# `prometheus` package of Debian unstable, downloaded by apt in the unstable chroot that
# scripts/rabbitmq4.sh --newest keeps (its sources are Debian's default mirror), unpacked with
# dpkg -x into .tools/prometheus3 (a static Go binary: it runs on this machine as it is). Once;
# prints the binary's path.
#
#   prometheus3.sh ensure    fetch it when it is not there; print its path
set -euo pipefail

say() { printf 'prometheus3: %s\n' "$*" >&2; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST="$REPO/.tools/prometheus3"
BIN="$DEST/usr/bin/prometheus"
CHROOT=${ACKTRAIL_RABBITMQ_NEWEST_ROOT:-/var/lib/acktrail/rabbitmq-newest}

[ "${1:-ensure}" = ensure ] || { say "usage: prometheus3.sh ensure"; exit 2; }
if [ ! -x "$BIN" ]; then
  [ -d "$CHROOT" ] || bash "$REPO/scripts/rabbitmq4.sh" --newest ensure
  say "downloading Debian unstable's prometheus package (once)"
  rm -rf "$CHROOT/tmp/prometheus3" "$DEST.partial"
  mkdir -p "$CHROOT/tmp/prometheus3"
  chmod 777 "$CHROOT/tmp/prometheus3" # apt downloads as its own user, _apt
  # Unstable's Release file is valid for a week; a snapshot mirror serves it expired.
  chroot "$CHROOT" sh -c 'cd /tmp/prometheus3 &&
    apt-get -qq -o Acquire::Check-Valid-Until=false update &&
    apt-get -qq -o Acquire::Check-Valid-Until=false download prometheus' >/dev/null
  dpkg -x "$CHROOT"/tmp/prometheus3/prometheus_*.deb "$DEST.partial"
  rm -rf "$CHROOT/tmp/prometheus3" "$DEST"
  mv "$DEST.partial" "$DEST"
  say "$("$BIN" --version 2>&1 | head -1)"
fi
echo "$BIN"

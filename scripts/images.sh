#!/usr/bin/env bash
# acktrail's three images built from the Dockerfile as it is, with Debian's buildah (no daemon,
# `--isolation chroot`), and the base image they build on made here, where no registry is reached:
#
#   images.sh base    the image named as the Dockerfile's NODE_IMAGE: Debian 12 (debootstrap
#                     --variant=minbase bookworm, made once into ACKTRAIL_IMAGES_ROOT), Node from
#                     the npm package that carries it (scripts/node-package.sh), npm from its own
#                     npm package, and the user `node` (uid 1000), as the official image has them
#   images.sh build   base, then the targets exporter, dashboard and pipeline, tagged as
#                     docker-compose.yml and the manifests name them; layers are cached by buildah
#   images.sh sizes   each image's size, as buildah counts it
#
# npm in the build's RUN steps needs this machine's certificate settings: the host's CA file
# (`npm config get cafile`, or NODE_EXTRA_CA_CERTS) and an npmrc naming it are mounted for the
# build (`buildah bud -v`, which puts nothing in a layer), never copied into an image. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'images: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

VERSION=$(sed -n 's/^VERSION=//p' scripts/node.sh)
NODE_IMAGE=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
TAG=$(node -p 'require("./package.json").version')
ROOT=${ACKTRAIL_IMAGES_ROOT:-/var/lib/acktrail/node-base}
TARGETS=(exporter dashboard pipeline)

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and buildah's chroot isolation)"

apt_install() {
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Debian 12 with Node, npm and the user node: the root filesystem of the base image.
make_root() {
  [ -x "$ROOT/usr/local/bin/node" ] && [ "$("$ROOT/usr/local/bin/node" --version)" = "v$VERSION" ] && return 0
  command -v debootstrap >/dev/null || apt_install debootstrap
  say "making a Debian 12 root for $NODE_IMAGE in $ROOT (debootstrap, once)"
  rm -rf "$ROOT.partial" && mkdir -p "$ROOT.partial"
  debootstrap --variant=minbase bookworm "$ROOT.partial" >/dev/null
  bash scripts/node-package.sh "$VERSION" .tools/node
  install -m 755 .tools/node/bin/node "$ROOT.partial/usr/local/bin/node"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent npm@11 >/dev/null)
  mkdir -p "$ROOT.partial/usr/local/lib/node_modules/npm"
  tar -xzf "$tmp"/npm-*.tgz -C "$ROOT.partial/usr/local/lib/node_modules/npm" --strip-components=1
  rm -rf "$tmp"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT.partial/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT.partial/usr/local/bin/npx"
  chroot "$ROOT.partial" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  # What the official slim image leaves out too: apt's lists and caches.
  rm -rf "$ROOT.partial"/var/lib/apt/lists/* "$ROOT.partial"/var/cache/apt/*.bin
  mv "$ROOT.partial" "$ROOT.new" && rm -rf "$ROOT" && mv "$ROOT.new" "$ROOT"
}

base() {
  command -v buildah >/dev/null || apt_install buildah
  make_root
  local stamp
  stamp=$(cat "$ROOT/usr/local/bin/node" "$ROOT/etc/debian_version" | sha256sum | cut -c1-12)
  if [ "$(buildah inspect --type image --format '{{index .ImageAnnotations "org.acktrail.root"}}' "$NODE_IMAGE" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  say "committing $NODE_IMAGE from $ROOT"
  local ctr
  ctr=$(buildah from --quiet scratch)
  buildah copy --quiet "$ctr" "$ROOT" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$VERSION" --cmd node --annotation org.acktrail.root="$stamp" "$ctr"
  buildah commit --quiet --rm "$ctr" "$NODE_IMAGE" >/dev/null
}

# The host's CA file and an npmrc that names it, for npm in the build's RUN steps.
host_npm_settings() {
  local ca
  ca=$(npm config get cafile 2>/dev/null || true)
  [ -n "$ca" ] && [ "$ca" != null ] && [ -f "$ca" ] || ca=${NODE_EXTRA_CA_CERTS:-}
  NPM_MOUNTS=()
  [ -n "$ca" ] && [ -f "$ca" ] || return 0
  local dir
  dir=$(mktemp -d)
  trap 'rm -rf "'"$dir"'"' EXIT
  printf 'cafile=/run/acktrail-host/ca.pem\nupdate-notifier=false\nfund=false\naudit=false\n' > "$dir/npmrc"
  NPM_MOUNTS=(-v "$ca:/run/acktrail-host/ca.pem:ro" -v "$dir/npmrc:/usr/local/etc/npmrc:ro")
}

build() {
  base
  host_npm_settings
  local revision
  revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
  for target in "${TARGETS[@]}"; do
    say "building acktrail/$target:$TAG (target $target)"
    buildah bud --isolation chroot --pull=never --layers --force-rm --quiet "${NPM_MOUNTS[@]}" \
      --build-arg SOURCE_REVISION="$revision" --target "$target" \
      -t "acktrail/$target:$TAG" -f Dockerfile . >/dev/null
  done
}

sizes() {
  for target in "${TARGETS[@]}"; do
    printf '%s\t%s\n' "acktrail/$target:$TAG" \
      "$(buildah images --format '{{.Size}}' "acktrail/$target:$TAG")"
  done
}

case "${1:-}" in
  base) base ;;
  build) build ;;
  sizes) sizes ;;
  *) die "usage: images.sh base|build|sizes" ;;
esac

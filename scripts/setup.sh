#!/usr/bin/env bash
# Everything `npm run demo`, `npm test` and `npm run bench` need before they start: Node 24,
# dependencies installed (when missing or stale) and the local services running.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
bash scripts/node.sh
# `setup.sh --demo`: only the services the demo runs (scripts/services.sh --demo).
bash scripts/services.sh "$@"

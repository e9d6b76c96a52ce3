#!/usr/bin/env bash
# Node 22 LTS, for the test that runs @acktrail/instrument on it (test/instrument-node22.int.test.ts):
# the binary of the npm package that carries it, at a pinned version, in .tools/node22 (fetched
# once by node-package.sh). Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/node-package.sh 22.23.5 .tools/node22
echo "$PWD/.tools/node22/bin/node"

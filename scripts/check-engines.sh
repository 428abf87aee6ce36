#!/usr/bin/env bash
# Fails when an npm install log (a file, or stdin) has an EBADENGINE warning: a dependency that does not
# support this Node version. Usage: npm ci 2>&1 | tee install.log; bash scripts/check-engines.sh install.log
set -euo pipefail
log="${1:-/dev/stdin}"
if grep -n 'EBADENGINE' "$log"; then
  echo "EBADENGINE: a dependency does not support Node $(node --version) (see the lines above)" >&2
  exit 1
fi
echo "no EBADENGINE warning"

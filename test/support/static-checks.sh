#!/usr/bin/env bash
# Typecheck and lint side by side (each is one CPU-bound process; CI has two cores): fails when either fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
npm run --silent typecheck & typecheck=$!
npm run --silent lint & lint=$!
status=0
wait "$typecheck" || status=1
wait "$lint" || status=1
exit "$status"

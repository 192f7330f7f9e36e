#!/usr/bin/env bash
# Runs a command in a private network namespace whose only interface is loopback, so the real
# vendor CLIs under test can reach the scripted model servers on 127.0.0.1 and nothing else
# (the same isolation the recordings in ../shared/recordings were made with).
set -euo pipefail
if ! unshare -n true 2>/dev/null; then
  echo "loopback-only: cannot create a network namespace (unshare -n needs root or CAP_SYS_ADMIN)" >&2
  exit 2
fi
exec unshare -n bash -c 'ip link set lo up && exec "$@"' loopback-only "$@"

#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring Secret Service, so
# keychain tests use a real OS keychain (decisions D9), and exits with that command's exit code.
# Usage: bash test/support/with-secret-service.sh COMMAND [ARG...]
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: bash $0 COMMAND [ARG...]" >&2
  exit 2
fi

# Never fall back to running without a keychain: keychain tests must fail, not skip.
missing=()
for tool in dbus-run-session dbus-send gnome-keyring-daemon secret-tool; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "with-secret-service: missing ${missing[*]}; the keychain tests need a real Secret Service." >&2
  echo "Install: apt-get install -y --no-install-recommends dbus gnome-keyring libsecret-tools" >&2
  exit 1
fi
if [ -z "${HOME:-}" ] || [ ! -d "$HOME" ]; then
  echo "with-secret-service: HOME must name an existing directory (it is '${HOME:-}')." >&2
  exit 1
fi

# Runs inside the session, with $1 = a private state directory. The daemon keeps its keyring and
# control socket there (not in the operator's real login keyring, whose password is not "pw") and
# runs in the foreground so its pid is known; it is stopped and reaped on every exit path.
read -r -d '' in_session <<'SESSION' || true
set -euo pipefail
state=$1
shift
echo "$$" >"$state/session.pid"
command_pid=
keyring_pid=
stop_children() {
  for pid in $command_pid $keyring_pid; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap stop_children EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

mkdir -m 0700 "$state/data" "$state/runtime"
printf pw | XDG_DATA_HOME="$state/data" XDG_RUNTIME_DIR="$state/runtime" \
  gnome-keyring-daemon --foreground --unlock --components=secrets >"$state/daemon.log" 2>&1 &
keyring_pid=$!

# Wait until the daemon owns the Secret Service name; asking NameHasOwner never triggers D-Bus
# activation, which would start a second, locked daemon on the real HOME.
ready=
for _ in $(seq 100); do
  if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
    ready=1
    break
  fi
  kill -0 "$keyring_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "with-secret-service: gnome-keyring-daemon did not provide org.freedesktop.secrets:" >&2
  cat "$state/daemon.log" >&2
  exit 1
fi

# In the background (stdin kept) so that a signal reaches this shell while the command runs.
"$@" 0<&0 &
command_pid=$!
while kill -0 "$command_pid" 2>/dev/null; do wait "$command_pid" || true; done
status=0
wait "$command_pid" || status=$?
command_pid=
exit "$status"
SESSION

# dbus-run-session neither passes a signal on to its session nor stops its bus when it is killed,
# so this shell stays in front and turns TERM/INT/HUP into a TERM for the shell inside, which
# stops the command and the daemon; dbus-run-session then stops its bus. The session ignores HUP
# (dbus-daemon would survive its own dbus-run-session) and gets the forwarded TERM instead.
state=$(mktemp -d "${TMPDIR:-/tmp}/citadel-secret-service.XXXXXX")
trap 'rm -rf "$state"' EXIT
(trap '' HUP && exec dbus-run-session -- bash -c "$in_session" with-secret-service "$state" "$@") 0<&0 &
session_pid=$!
forward_stop() {
  local inner
  inner=$(cat "$state/session.pid" 2>/dev/null) && kill -TERM "$inner" 2>/dev/null || true
}
trap forward_stop TERM INT HUP
while kill -0 "$session_pid" 2>/dev/null; do wait "$session_pid" || true; done
wait "$session_pid" && exit 0 || exit $?

#!/usr/bin/env bash
# The OS packages the tests need, checked by the commands they provide: run first by `npm test` and
# by .ci/run, so a fresh Debian/Ubuntu machine never fails a test for lack of a package. As root with
# apt-get it installs what is missing (and says so); otherwise it fails at once with the one command.
# `ensure-os-packages.sh demo` checks only what `npm run demo` needs (git, and the containment its
# fork runs under), so the README's first command works on a fresh machine too.
set -euo pipefail
purpose="${1:-tests}"
case "$purpose" in
  tests) need_words='the tests need' ;;
  demo) need_words='the demo needs' ;;
  *) echo "ensure-os-packages: unknown purpose '$purpose' (tests or demo)" >&2; exit 2 ;;
esac

# command:package — git for real repositories; D-Bus, gnome-keyring and secret-tool for a real Secret
# Service; Chromium for the Mission Control UI tests; unshare (util-linux) and ip (iproute2) for the
# vendor tests' loopback-only namespace; bwrap (bubblewrap) for executor containment (its egress bridge
# is Citadel's own Node code, so no relay package is needed);
# keyctl (keyutils) for the probes that the sandbox cannot reach the kernel keyrings.
needs=(
  git:git
  update-ca-certificates:ca-certificates
  dbus-run-session:dbus
  gnome-keyring-daemon:gnome-keyring
  secret-tool:libsecret-tools
  chromium:chromium
  unshare:util-linux
  ip:iproute2
  bwrap:bubblewrap
  keyctl:keyutils
)

# module:package — Debian's own Python modules, checked with Debian's interpreter (a pyenv shim may
# come first on PATH): the attestation tests verify Citadel's DSSE envelopes with an implementation
# that is not Citadel's (test/support/verify-dsse.py): securesystemslib's ed25519, cryptography's PEM.
python_modules=(
  securesystemslib:python3-securesystemslib
  cryptography:python3-cryptography
)

# The demo runs one contained fork: git for its repository, bubblewrap for its sandbox. The Linux
# package declares the same list (electron-builder.yml `deb.depends`, checked by the packaging test).
if [ "$purpose" = demo ]; then
  needs=(git:git bwrap:bubblewrap)
  python_modules=()
fi

missing=()
for need in "${needs[@]}"; do
  command -v "${need%%:*}" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "${need%%:*}" >/dev/null 2>&1 || missing+=("${need##*:}")
done
for need in ${python_modules[@]+"${python_modules[@]}"}; do
  /usr/bin/python3 -c "import ${need%%:*}" >/dev/null 2>&1 || missing+=("${need##*:}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

install="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-os-packages: installing what $need_words: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  $install -qq
  exit 0
fi
echo "ensure-os-packages: $need_words these packages: ${missing[*]}" >&2
echo "Run: sudo $install" >&2
exit 1

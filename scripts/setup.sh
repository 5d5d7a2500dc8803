#!/usr/bin/env bash
# Installs what svc needs at run time on Debian 12 (as root, or with sudo):
# Debian's Chromium headless shell for the run engine (svc's default browser)
# and Chromium (the fallback, and the tests' second browser). Safe to run
# again. Further Debian packages may be named as arguments.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[[ -x /usr/lib/chromium/chromium-headless-shell ]] || need+=(chromium-headless-shell)
command -v curl >/dev/null 2>&1 || need+=(curl)
for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
if ((${#need[@]})); then
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    echo "setup: installing ${need[*]} from Debian packages" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
command -v cargo >/dev/null 2>&1 || {
    echo "setup: cargo is missing; install the Rust toolchain (rustup) first" >&2
    exit 1
}

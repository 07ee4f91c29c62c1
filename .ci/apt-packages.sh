#!/usr/bin/env bash
# Install Debian packages the tests need (chromium, postgresql), only those missing. Fast when
# everything is there; says why and carries on when it cannot install (the tests then skip).
set -uo pipefail
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n)
else echo "apt-packages: cannot install ${missing[*]}: not root and no password-less sudo" >&2; exit 0; fi
echo "apt-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
  || { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } \
  || echo "apt-packages: apt-get could not install ${missing[*]}" >&2
exit 0

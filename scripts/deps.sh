#!/usr/bin/env bash
# Installs the Debian packages megawatt needs, if any is missing.
# Idempotent and quiet when everything is present. As root it runs apt-get itself;
# otherwise it prints the exact command to run and fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(grep -v '^\s*#' "$here/packages.txt" | awk 'NF {print $1}')

missing=()
for p in "${pkgs[@]}"; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = "installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: run this, then try again:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh them once when an install fails.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/megawatt-deps.log 2>&1; then
  apt-get update -qq >>/tmp/megawatt-deps.log 2>&1
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/megawatt-deps.log 2>&1 || {
    echo "deps: apt-get install failed; see /tmp/megawatt-deps.log" >&2
    tail -n 20 /tmp/megawatt-deps.log >&2
    exit 1
  }
fi
echo "deps: installed ${#missing[@]} package(s)"

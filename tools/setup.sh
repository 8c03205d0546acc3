#!/bin/sh
# Installs what flysim needs on Debian 12 (apt-get, as root) and builds it out of tree.
#   FLYSIM_BUILD             build folder (default: build)
#   FLYSIM_CONFIGURE_FLAGS   extra configure flags (e.g. --enable-sanitizers)
# Safe to run again: it installs only what is missing and rebuilds only what changed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

required="build-essential autoconf automake pkg-config libgsl-dev check libsqlite3-dev libinih-dev libjansson-dev"
optional="clang-22 lld-22 llvm-22" # AMDGPU compiler for emit/verify; skipped where unavailable

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
missing=""
for p in $required; do installed "$p" || missing="$missing $p"; done
opt_missing=""
for p in $optional; do installed "$p" || opt_missing="$opt_missing $p"; done
if [ -n "$missing$opt_missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: missing packages:$missing$opt_missing; run as root or install them" >&2
    [ -n "$missing" ] && exit 1
  else
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    [ -n "$missing" ] && apt-get install -y -q --no-install-recommends $missing
    if [ -n "$opt_missing" ]; then
      apt-get install -y -q --no-install-recommends $opt_missing ||
        echo "setup: optional packages$opt_missing unavailable: kernel compile checks will be skipped" >&2
    fi
  fi
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
  autoreconf -fi
fi
build=${FLYSIM_BUILD:-build}
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
  # shellcheck disable=SC2086
  "$top/configure" ${FLYSIM_CONFIGURE_FLAGS:-}
fi
make -j"$(nproc)"

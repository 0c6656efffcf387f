#!/usr/bin/env bash
# Unpacks bwrap from Debian's bubblewrap package into a folder, for a machine that has
# no bubblewrap and installs no packages (the GPU machine): carry the folder there with
# the tree and point `roofline batch` at it:
#
#   scripts/fetch_bwrap.sh [DIR]                     # default DIR: build/bwrap (git-ignored)
#   ROOFLINE_BWRAP=DIR/usr/bin/bwrap build/roofline batch ...
#
# Needs apt-get (any Debian or Ubuntu machine with package lists; no root). The binary
# needs only libc, libcap2 and libselinux1 (with its libpcre2-8); it prints its ldd.
# Ubuntu 24.04 has all three.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/bwrap}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

(cd "$scratch" && apt-get download bubblewrap)
deb=$(ls "$scratch"/bubblewrap_*.deb)
rm -rf "$dir"
mkdir -p "$dir"
dpkg -x "$deb" "$dir"
bwrap=$(cd "$dir" && pwd)/usr/bin/bwrap
echo "== $(basename "$deb") unpacked: $bwrap ($("$bwrap" --version))"
echo "== the libraries it needs:"
ldd "$bwrap"
echo "== use it: ROOFLINE_BWRAP=$bwrap roofline batch ..."

# Sourced by the device scripts beside it, by its name in their own folder: what each would
# otherwise write out at its top.
#
# device_script_start USAGE "$@": BUILD_DIR and OUT_DIR from the arguments (absolute; OUT_DIR made),
# as BUILD and OUT; ROOT, the course root, made the working folder; CUDA's tools on PATH; summary,
# OUT/summary.txt, emptied; log LINE..., a line to it and to stdout. A missing argument stops the
# script with USAGE.
device_script_start() {
  local usage=$1; shift
  [[ $# -ge 2 ]] || { echo "usage: $usage" >&2; exit 2; }
  BUILD=$(cd "$1" && pwd) || exit 2
  mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cd "$ROOT" || exit 2
  export PATH=/usr/local/cuda/bin:$PATH
  summary=$OUT/summary.txt
  : > "$summary"
}
log() { echo "$@" | tee -a "$summary"; }

# fixture_root LABS_DIR: a temporary course root holding the real hardware/ and LABS_DIR as its
# labs/ (a set of fixture labs); its path on stdout. The caller removes it.
fixture_root() {
  local root
  root=$(mktemp -d)
  ln -s "$ROOT/hardware" "$root/hardware"
  ln -s "$1" "$root/labs"
  echo "$root"
}

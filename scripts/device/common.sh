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

# ncu_report_summary NAME RC SECONDS: OUT/NAME.ncu-rep (an `ncu --set full` export) read into
# OUT/NAME.details.txt (every section) and OUT/NAME.stalls.txt (stall_table.py's warp-state
# samples by reason and by SASS line), the report and its CSV removed (too large to bring back),
# and the lines that say what bound the kernel logged: its duration, throughputs, issue rate,
# occupancy, then the stall table's head.
ncu_report_summary() {
  local name=$1 rc=$2 seconds=$3
  ncu --import "$OUT/$name.ncu-rep" --page details --print-units base > "$OUT/$name.details.txt" 2>&1
  ncu --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/$name.source.csv" 2>&1
  python3 "$ROOT/scripts/device/stall_table.py" "$OUT/$name.source.csv" > "$OUT/$name.stalls.txt" 2>&1
  rm -f "$OUT/$name.source.csv" "$OUT/$name.ncu-rep"
  log "$name: rc=$rc in $seconds s; $(grep -m1 -E 'Duration' "$OUT/$name.details.txt" | tr -s ' ')"
  grep -E "DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Issued Warp Per Scheduler|No Eligible|Issue Slots Busy|Tensor" \
    "$OUT/$name.details.txt" | tr -s ' ' | head -10 | sed 's/^/   /' | tee -a "$summary"
  head -25 "$OUT/$name.stalls.txt" | sed 's/^/   /' >> "$summary"
}

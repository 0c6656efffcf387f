#!/usr/bin/env bash
# One device call for a wave of new kernels (issues 34, 36, 37): the whole build, then the named
# steps in the order given, each under its own time limit and the call's budget, the results
# packed into OUT_DIR/all.tgz after every step (a call cut short still brings back what ran).
#   bash scripts/device/wave.sh BUILD_DIR OUT_DIR SECONDS STEP...
# Steps: ceilings, lab06, lab10, skeletons, open, fixture, server, broken, tests, gputest, causal, x5,
# repeat (REPEAT_TARGETS="LAB/VARIANT ..." graded REPEAT_N times each, default 3, solutions),
# script:PATH (another device script, run as `bash PATH BUILD OUT/NAME`, e.g. a helper's sweep).
# Set ROOFLINE_BWRAP to a bubblewrap binary for the sandboxed GPU tests (scripts/fetch_bwrap.sh).
set -uo pipefail
build=${1:?usage: wave.sh BUILD_DIR OUT_DIR SECONDS STEP...}; out=${2:?}; budget=${3:?}; shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/o"; o=$out/o; s=$o/summary.txt; t0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
R="$build/roofline --root $root --build-dir $build"
note() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a "$s"; }
left() { echo $(( budget - ($(date +%s) - t0) )); }
pack() { tar czf "$out/all.tgz" -C "$o" . 2>/dev/null; }
limit() { local want=$1 l; l=$(( $(left) - 5 )); (( l < want )) && echo "$l" || echo "$want"; }
# grade_json NAME ARGS...: `roofline grade ARGS --json` into NAME.json, one line a variant in summary.
grade_json() {
  local name=$1; shift
  timeout "$(limit 150)" $R grade "$@" --no-build --json --score-without-prediction > "$o/$name.json" 2> "$o/$name.err"
  note "grade $* rc=$?"
  python3 - "$o/$name.json" >> "$s" <<'PY'
import json, sys
try:
    text = open(sys.argv[1]).read(); data = json.loads(text[text.index('['):] if text.lstrip()[:1] != '{' else text)
except Exception as e:
    print("   (no JSON:", e, ")"); sys.exit()
for r in data if isinstance(data, list) else [data]:
    t = r.get("timing") or {}
    med = (t.get("variant") or {}).get("median_s"); peer = (t.get("peer") or {}).get("median_s")
    roof = r.get("instruction_roof") or {}
    line = f"   {r.get('target')}: {r.get('outcome')}"
    if med: line += f", median {med*1e6:.2f} us"
    if peer: line += f", peer {peer*1e6:.2f} us"
    if r.get("fraction_of_peer") is not None: line += f", {100*r['fraction_of_peer']:.1f}% of peer"
    if roof.get("fraction"): line += f", {100*roof['fraction']:.1f}% of {roof.get('id')}"
    if r.get("peer_name"): line += f" [{r['peer_name']}]"
    errs = [c.get("report", {}) for c in r.get("checks", [])]
    if errs: line += f"; worst check max_abs {max(e.get('max_abs_error', 0) or 0 for e in errs):.3g}, rel_l2 {max(e.get('rel_l2', 0) or 0 for e in errs):.3g}"
    if r.get("outcome") not in ("correct",): line += f" -- {str(r.get('verdict'))[:300]}"
    print(line)
PY
  pack
}
run_expect() {  # run_expect WANT_RC TARGET [--solutions]: `roofline run`, its exit code against the one wanted
  local want=$1 target=$2; shift 2
  local f="$o/run-${target//\//_}$*.txt"
  timeout "$(limit 90)" $R run "$target" "$@" --no-build > "$f" 2>&1
  local rc=$?
  note "run $target $* rc=$rc (want $want)$( ((rc != want)) && echo ' UNEXPECTED'): $(grep -m1 -oE '(INCORRECT|CORRECT|refused|error)[^.]*' "$f" | cut -c1-200)"
}

note "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader); steps: $*"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$o/build.log" 2>&1
# BUILD_TARGETS="roofline lab-10-production ...": only those (a short call); unset, everything.
timeout "$(limit 260)" cmake --build "$build" --parallel "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} -- -k 0 >> "$o/build.log" 2>&1
note "build rc=$?"; grep -E "error|FAILED" "$o/build.log" | head -30 >> "$s"; pack

for step in "$@"; do
  (( $(left) < 20 )) && { note "no time left for $step"; continue; }
  case $step in
    ceilings)
      timeout "$(limit 120)" $R ceilings --json > "$o/ceilings.json" 2> "$o/ceilings.err"
      note "ceilings rc=$?"
      python3 -c "import json,sys; d=json.load(open('$o/ceilings.json')); print('   ' + ', '.join(f'{k}={v}' for k,v in d.items() if not isinstance(v,(dict,list)))[:900])" >> "$s" 2>&1
      cp "$root"/.roofline/ceilings/*.yaml "$o/" 2>/dev/null; pack ;;
    lab06) grade_json grade-06 06-async --all --solutions ;;
    lab10) grade_json grade-10 10-production --all --solutions ;;
    skeletons)
      for t in 06-async/mma_sync_tma_4096 06-async/fp8_gemm_4096 06-async/fp8_gemm_block_scaled_4096 \
               10-production/decode_attention_b1_4k; do run_expect 1 "$t"; done; pack ;;
    open)
      timeout "$(limit 200)" bash "$root/scripts/device/open_rungs.sh" "$build" "$o/open" > "$o/open.log" 2>&1
      note "open_rungs.sh rc=$?"; cat "$o/open/summary.txt" >> "$s" 2>/dev/null; pack ;;
    fixture)
      fr=$(mktemp -d); ln -s "$root/hardware" "$fr/hardware"; ln -s "$root/solutions/06-async/fixtures/labs" "$fr/labs"
      for v in fp8_promoted fp8_no_promotion; do
        want=0; [[ $v == fp8_no_promotion ]] && want=1
        timeout "$(limit 90)" $build/roofline --root "$fr" --build-dir "$build" run "96-fp8-no-promotion/$v" --no-build \
          > "$o/fixture-$v.txt" 2>&1
        rc=$?; note "fixture $v rc=$rc (want $want)$( ((rc != want)) && echo ' UNEXPECTED'): $(grep -m1 -oE '(INCORRECT|CORRECT)[^.]*' "$o/fixture-$v.txt" | cut -c1-200)"
      done; pack ;;
    server)
      srv=$build/labs/roofline-decode-server; inc=$root/labs/10-production/server/incidents
      for args in "--batch 1 --context 100" "--batch 3 --context 257" "--batch 17 --context 1000"; do
        timeout "$(limit 90)" "$srv" --config "$inc/baseline.yaml" --steps 1 --check 3 $args > "$o/server-check-${args// /_}.txt" 2>&1
        note "server check $args rc=$?: $(grep '^check step' "$o/server-check-${args// /_}.txt" | tail -1)"
      done
      for cfg in baseline incident-a incident-b incident-c incident-d; do
        extra=""; [[ $cfg == baseline ]] && extra="--batch 1"
        for e in "$extra" ""; do
          [[ $cfg != baseline && -n $e ]] && continue
          n=$cfg${e:+-b1}; n=${n// /}
          timeout "$(limit 90)" $R serve "$inc/$cfg.yaml" --no-build $e > "$o/serve-$n.txt" 2>&1
          note "serve $n rc=$?: $(grep -m1 '^step ' "$o/serve-$n.txt"); $(grep -m1 '^fraction' "$o/serve-$n.txt"); $(grep -m1 '^regime' "$o/serve-$n.txt" | cut -c1-200)"
        done
      done; pack ;;
    broken)
      # One Catch2 filter: a comma is "or", a space between quoted names "and"; names are cut
      # before their own commas.
      (cd "$build/grader/tests/gpu" && timeout "$(limit 150)" ./roofline_gpu_tests \
        "each broken kernel is caught and named,grade --all: each variant*,grade: a launch on the legacy default stream is named*" \
        > "$o/gpu-broken.txt" 2>&1)
      note "gpu tests (broken kernels) rc=$?: $(tail -3 "$o/gpu-broken.txt" | tr '\n' ' ')"; pack ;;
    tests)
      # One after another: GPU tests that share the GPU slow each other's watched replays, and the
      # grader then refuses the timing as "did less work while timed" (run 98: both failures).
      for i in 0 1; do
        (mkdir -p "/tmp/shard$i"; cd "$build/grader/tests/gpu" && TMPDIR=/tmp/shard$i timeout "$(limit 300)" ./roofline_gpu_tests \
           --shard-count 2 --shard-index $i > "$o/gpu$i.txt" 2>&1; note "gpu tests, shard $i: rc=$?: $(tail -3 "$o/gpu$i.txt" | tr '\n' ' ')")
      done
      (cd "$build" && timeout "$(limit 300)" ctest -R '^batch_gpu$' --output-on-failure > "$o/batch_gpu.txt" 2>&1; note "batch_gpu rc=$?")
      pack ;;
    causal)
      for v in warp_specialized_causal warp_specialized warp_specialized_causal_16k; do
        timeout "$(limit 60)" $R profile "08-attention/$v" --solutions --no-build --json > "$o/profile-$v.json" 2> "$o/profile-$v.err"
        note "profile 08-attention/$v rc=$?"
      done; pack ;;
    x5)  # lab 06's new rungs graded five times each, beside their peers, for the spread
      for i in 1 2 3 4 5; do
        for v in ${X5_VARIANTS:-fp8_gemm_4096 fp8_gemm_8192 fp8_gemm_block_scaled_4096 fp8_gemm_block_scaled_8192 \
                 mma_sync_tma_4096 mma_sync_tma_8192}; do
          grade_json "x5-$v-$i" "06-async/$v" --solutions
        done
      done ;;
    gputest)  # GPU_TEST_FILTER="a test name*,another*": those GPU test cases alone (Catch2 filter)
      (cd "$build/grader/tests/gpu" && timeout "$(limit 200)" ./roofline_gpu_tests "${GPU_TEST_FILTER:?gputest needs GPU_TEST_FILTER}" \
        > "$o/gpu-filtered.txt" 2>&1)
      note "gpu tests ($GPU_TEST_FILTER) rc=$?: $(tail -3 "$o/gpu-filtered.txt" | tr '\n' ' ')"; pack ;;
    repeat)
      for i in $(seq "${REPEAT_N:-3}"); do
        for target in ${REPEAT_TARGETS:?repeat needs REPEAT_TARGETS}; do
          grade_json "rep-${target//\//_}-$i" "$target" --solutions
        done
      done ;;
    script:*)
      path=${step#script:}; name=$(basename "$path" .sh); mkdir -p "$o/$name"
      timeout "$(limit 300)" bash "$root/$path" "$build" "$o/$name" > "$o/$name/stdout.txt" 2>&1
      note "$path rc=$?: $(tail -2 "$o/$name/stdout.txt" | tr '\n' ' ' | cut -c1-300)"; pack ;;
    *) note "unknown step $step" ;;
  esac
done
note done; pack

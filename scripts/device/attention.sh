#!/usr/bin/env bash
# Lab 08 (attention) on the GPU machine, in one pass of about two minutes on an H200:
#   0. the peer alone (attention_peer_probe --forms, with cuDNN's error log on): for each
#      shape and mask, every form of the cuDNN graph (sdpa_forms.hpp), which finalized, on
#      which engine, and its answer against fp64; the lines say what cuDNN accepts;
#   1. build what it needs (roofline, both lab 08 programs, the peer probe);
#   2. the skeletons: given code (naive) CORRECT, the rest INCORRECT;
#   3. every reference solution, plain and causal, verified on the lab's shapes
#      (seq 1, 17, 64, 1000, 2113; head_dim 64 and 128), which also checks cuDNN once;
#   4. compute-sanitizer: memcheck on rungs 3 and 4, racecheck on rung 2, at odd lengths;
#   5. grade --all --solutions: every rung against cuDNN in the same run;
#   6. rungs 3 and 4 and cuDNN at seq 1k, 2k and 8k (16k tokens a batch, 16 heads), plain and causal:
#      with step 5's 4k and 16k, the sweep 1k-16k;
#   7. cuDNN alone (the peer probe) against PyTorch's scaled_dot_product_attention:
#      the same inputs, the answers compared, PyTorch's own backends timed.
# Usage: bash scripts/device/attention.sh BUILD_DIR OUT_DIR
# SKIP_SANITIZER=1 and SKIP_TORCH=1 leave out steps 4 and 7 (about 40 s together), SKIP_FORMS=1
# step 0 (up to ~30 s: each form cuDNN accepts may compile its kernel). Step 0 runs after
# the build, which it needs.
# One step failing never stops the next; each writes its log under OUT_DIR, and
# OUT_DIR/summary.txt holds one line or a short table per step.
set -u
BUILD=${1:?usage: attention.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: attention.sh BUILD_DIR OUT_DIR}
mkdir -p "$OUT"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
R="$BUILD/roofline"
LAB=08-attention
summary="$OUT/summary.txt"
log() { echo "$@" | tee -a "$summary"; }
step_start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - step_start )) s"; }

log "== attention.sh $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null)"

# 1. Build.
cmake --build "$BUILD" --target roofline "lab-$LAB" "solution-$LAB" attention_peer_probe roofline_gpu_tests \
  > "$OUT/build.log" 2>&1
log "build: rc=$? ($(elapsed))"
if [[ ! -x "$BUILD/labs/solution-$LAB" ]]; then
  log "solution-$LAB was not built (cuDNN missing at configure time? see build.log); the lab steps below will fail"
fi

# 0. The peer's forms, one shape at a time; cuDNN's own log (errors and warnings) to a file per shape.
log "== peer forms: which cuDNN graph finalizes (attention_peer_probe --forms; log: peer-forms-*.txt) ($(elapsed))"
PROBE="$BUILD/grader/tests/gpu/attention_peer_probe"
[[ "${SKIP_FORMS:-0}" == 1 ]] && log "  skipped (SKIP_FORMS=1)"
[[ "${SKIP_FORMS:-0}" == 1 ]] || for spec in "1 2 1000 64 0" "1 2 1000 64 1" "1 1 1 64 1" "4 16 4096 128 0" \
            "4 16 4096 128 1"; do
  set -- $spec
  f="$OUT/peer-forms-$1x$2x$3x$4-c$5.txt"
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGERR_DBG=1 CUDNN_LOGWARN_DBG=1 CUDNN_LOGDEST_DBG="$OUT/peer-forms-$1x$2x$3x$4-c$5.cudnn.log" \
    timeout 60 "$PROBE" --forms "$@" > "$f" 2>&1
  rc=$?
  log "  $spec (b h seq d causal): rc $rc"
  grep -E "^form|finalized$" "$f" | cut -c1-260 | sed 's/^/    /' | tee -a "$summary"
done

variants=$(python3 - <<'PY'
import re
text = open("labs/08-attention/lab.yaml").read()
print(" ".join(re.findall(r"\{name: (\w+)", text)))
PY
)
log "variants: $variants"

# 2. Skeletons and given code.
log "== skeletons (labs/): naive* expected CORRECT, the rest INCORRECT"
for v in $variants; do
  timeout 120 "$R" --build-dir "$BUILD" run "$LAB/$v" --no-build > "$OUT/skeleton-$v.txt" 2>&1
  rc=$?
  verdict=$(grep -oE "\b(INCORRECT|CORRECT)\b" "$OUT/skeleton-$v.txt" | head -1)
  case "$v" in naive*) want=CORRECT ;; *) want=INCORRECT ;; esac
  ok=$([[ "$verdict" == "$want" ]] && echo ok || echo UNEXPECTED)
  log "  $v: ${verdict:-no verdict} (rc $rc) $ok"
done

# 3. Solutions, verified on every verify shape (and the timed one).
log "== solutions: roofline run --solutions (verify shapes incl. seq 1, 17, 1000, 2113; causal variants masked)"
for v in $variants; do
  timeout 150 "$R" --build-dir "$BUILD" run "$LAB/$v" --solutions --no-build --json > "$OUT/solution-run-$v.json" 2>&1
  rc=$?
  python3 - "$OUT/solution-run-$v.json" "$v" "$rc" <<'PY' | tee -a "$summary"
import json, sys
path, name, rc = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception as e:
    print(f"  {name}: rc {rc}, no JSON ({e}); see {path}")
    sys.exit()
checks = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "checks" and isinstance(v, list): checks.extend(v)
            else: walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(j)
bad = [c for c in checks if not c["report"]["passed"]]
worst = max((c["report"]["rel_l2"] for c in checks), default=float("nan"))
seqs = sorted({c["shape"].get("seq") for c in checks})
print(f"  {name}: rc {rc}, {len(checks)} checks, {len(bad)} failed, worst rel_l2 {worst:.2e}, seq {seqs}")
for c in bad[:2]: print(f"    FAILED {c['shape']}: {c['report']['verdict']}")
PY
done

# 4. compute-sanitizer on the fused rungs (small odd shapes: the tools are slow).
tol="--atol 1e-2 --rtol 1e-2 --max-rel-l2 6e-3"
command -v compute-sanitizer > /dev/null || { SKIP_SANITIZER=1; log "== compute-sanitizer: not on PATH"; }
[[ "${SKIP_SANITIZER:-0}" == 1 ]] && log "== compute-sanitizer: skipped"
[[ "${SKIP_SANITIZER:-0}" == 1 ]] || log "== compute-sanitizer"
[[ "${SKIP_SANITIZER:-0}" == 1 ]] || for spec in "memcheck pipelined_causal batch=1,heads=2,seq=1000,head_dim=128" \
            "racecheck fused batch=1,heads=1,seq=200,head_dim=64" \
            "memcheck warp_specialized_causal batch=1,heads=2,seq=333,head_dim=128" \
            "memcheck warp_specialized batch=2,heads=1,seq=17,head_dim=64"; do
  set -- $spec
  timeout 120 compute-sanitizer --tool "$1" --error-exitcode 99 "$BUILD/labs/solution-$LAB" --variant "$2" --mode verify \
    --verify-shape "$3" --seed 7 $tol --result "$OUT/sanitizer-$1-$2.json" > "$OUT/sanitizer-$1-$2.txt" 2>&1
  rc=$?
  log "  $1 $2 $3: rc $rc ($(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-$1-$2.txt" | tail -1))"
done

# 5. Every rung against cuDNN, same run.
log "== grade $LAB --all --solutions ($(elapsed))"
timeout 300 "$R" --build-dir "$BUILD" grade "$LAB" --all --solutions --no-build > "$OUT/grade-all.txt" 2>&1
log "grade rc=$?"
grep -A20 "^variant " "$OUT/grade-all.txt" | tee -a "$summary"
tar czf "$OUT/results-roofline.tgz" .roofline/results/$LAB 2>/dev/null

# 6. Sweep: rung 3 and cuDNN, seq 1k-16k at 16k tokens a batch and 16 heads, plain and causal.
log "== sweep: rungs 3 and 4 vs cuDNN, head_dim 128, batch x seq = 16384, 16 heads (4k, 16k: step 5) ($(elapsed))"
printf "  %-23s %6s %10s %10s %10s %8s\n" variant seq "ours ms" "cuDNN ms" "TFLOP/s" "of cuDNN" | tee -a "$summary"
for v in pipelined pipelined_causal warp_specialized warp_specialized_causal; do
  for seq in 1024 2048 8192; do
    batch=$(( 16384 / seq ))
    shape="batch=$batch,heads=16,seq=$seq,head_dim=128"
    timeout 90 "$BUILD/labs/solution-$LAB" --variant "$v" --mode grade --timed-shape "$shape" --seed 11 $tol \
      --min-samples 10 --max-samples 200 --target-rse 0.005 --time-cap-s 4 --launch-timeout-s 10 \
      --result "$OUT/sweep-$v-$seq.json" > "$OUT/sweep-$v-$seq.txt" 2>&1
    python3 - "$OUT/sweep-$v-$seq.json" "$v" "$seq" "$batch" <<'PY' | tee -a "$summary"
import json, sys
path, v, seq, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    j = json.load(open(path))
    t = j["timing"]
    ours, peer = t["variant"]["median_s"], t["peer"]["median_s"]
    flops = 4.0 * seq * seq * 128 * batch * 16 * (0.5 if "causal" in v else 1.0)
    print(f"  {v:<23} {seq:6d} {ours*1e3:10.3f} {peer*1e3:10.3f} {flops/ours/1e12:10.1f} {peer/ours:8.3f}"
          f"   (cuDNN {flops/peer/1e12:.1f} TFLOP/s, clock {t['sm_clock_mhz']['median']:.0f} MHz, {j['status']})")
except Exception as e:
    print(f"  {v:<23} {seq:6d} no result ({e}); see {path.replace('.json', '.txt')}")
PY
  done
done

# 7. cuDNN (our backend-API graph) against PyTorch's scaled_dot_product_attention.
[[ "${SKIP_TORCH:-0}" == 1 ]] && log "== cuDNN peer against PyTorch: skipped (SKIP_TORCH=1)"
[[ "${SKIP_TORCH:-0}" == 1 ]] || log "== cuDNN peer against PyTorch ($(elapsed))"
[[ "${SKIP_TORCH:-0}" == 1 ]] || for spec in "4 16 4096 128 0" "1 16 16384 128 1"; do
  set -- $spec
  dir="$OUT/probe-$1x$2x$3x$4-c$5"
  mkdir -p "$dir"
  timeout 120 "$BUILD/grader/tests/gpu/attention_peer_probe" "$dir" "$@" > "$dir/probe.txt" 2>&1
  log "  probe $spec: rc $? $(tail -1 "$dir/probe.txt")"
  timeout 120 python3 - "$dir" <<'PY' 2>&1 | tee -a "$summary"
import json, sys
import numpy as np
import torch
import torch.nn.functional as F
d = sys.argv[1]
meta = json.load(open(f"{d}/probe.json"))
shape = (meta["batch"], meta["heads"], meta["seq"], meta["head_dim"])
def load(name):
    raw = np.fromfile(f"{d}/{name}.bin", dtype=np.uint16).astype(np.int32) << 16
    return torch.from_numpy(raw.view(np.float32).reshape(shape)).cuda()
q, k, v, o = (load(n) for n in "qkvo")
causal = meta["causal"]
# fp32 reference through PyTorch's math path, a head group at a time to bound memory.
ref = torch.empty_like(q)
with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
    for b in range(shape[0]):
        for h0 in range(0, shape[1], 2):
            ref[b, h0:h0 + 2] = F.scaled_dot_product_attention(q[b:b+1, h0:h0+2].double(), k[b:b+1, h0:h0+2].double(),
                                                               v[b:b+1, h0:h0+2].double(), is_causal=causal).float()[0]
def compare(name, x):
    err = (x.float() - ref)
    print(f"    {name:<34} max |err| {err.abs().max().item():.3e}, rel l2 {(err.norm() / ref.norm()).item():.3e}")
compare("our cuDNN graph vs fp64 math", o)
qb, kb, vb = q.bfloat16(), k.bfloat16(), v.bfloat16()
flops = 4.0 * shape[2] ** 2 * shape[3] * shape[0] * shape[1] * (0.5 if causal else 1.0)
for name, backend in [("torch flash", torch.nn.attention.SDPBackend.FLASH_ATTENTION),
                      ("torch cuDNN", torch.nn.attention.SDPBackend.CUDNN_ATTENTION),
                      ("torch efficient", torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION)]:
    try:
        with torch.nn.attention.sdpa_kernel(backend):
            y = F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal)
            compare(f"{name} vs fp64 math", y)
            diff = (y.float() - o.float()).abs().max().item()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for i in range(23):
                start.record(); F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal); stop.record()
                torch.cuda.synchronize()
                if i >= 3: times.append(start.elapsed_time(stop) * 1e-3)
            t = sorted(times)[len(times) // 2]
            print(f"    {name:<34} max |diff| to our graph {diff:.3e}; {t*1e3:.3f} ms, {flops/t/1e12:.1f} TFLOP/s "
                  f"(ours: {meta['median_s']*1e3:.3f} ms, {meta['tflops']:.1f})")
    except Exception as e:
        print(f"    {name}: unavailable ({str(e).splitlines()[0][:120]})")
print(f"    torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; peer: {meta['peer']}")
PY
done

log "== total $(elapsed)"

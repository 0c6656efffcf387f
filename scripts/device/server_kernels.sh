#!/usr/bin/env bash
# The decode server's step at batch 1 (4k context, the fused small-batch step, its CUDA graph) kernel
# by kernel under Nsight Compute: each kernel's own duration and DRAM bytes, without the events
# that bracket each op in the server's instrumented step. Which kernels hold the step above its
# byte floor, and by how much: the sum of the kernels against the graphed step's time is the part
# that is launches and gaps.
# Usage: bash scripts/device/server_kernels.sh BUILD_DIR OUT_DIR   (BUILD_DIR built: roofline,
# roofline-decode-server-solution; about a minute on an H200)
# Prediction (2026-12-02, before its first run): the step is 4.86 ms against a 3.7 ms floor. The
# instrumented step's table put attention at 0.56 ms (floor 0.13) and qkv at 0.71 (floor 0.38), but
# each op there carries an event pair of a few microseconds a layer. Under ncu: attention about
# 8-10 us a layer (the lab's kernel at batch 1 and 4k runs 5.5 us against a 4 us floor, and the server
# splits its shorter cache into fewer blocks), qkv and o at 65-75% of the copy rate, the MLP's two
# GEMVs at 80-85%; kernels summing to ~4.5 ms, the rest launches.
# Run 106 (the fused kernels as they were): the server alone 4.90 ms (204 tokens/s); under ncu,
# serialized, 5.12 ms of kernels: qkv 20.6 us a layer (2.45 TB/s), attention 15.1 us (1.12 TB/s:
# the copy of the same 16.8 MB itself runs at 1.8 TB/s), o and down 23.6 us on average (3.2 TB/s),
# gate/up 66.9 us (3.51 TB/s), the LM head 270 us (3.90 TB/s). Fitting time = fixed + bytes / rate
# to gate/up and qkv gives ~4.0 TB/s and 8 us fixed a kernel with the RMS norm's prologue, 5 us
# without (o and down): the prologue (x read, a block-wide sum, two barriers) costs ~3 us.
# Prediction for run 107 (the norm folded into the dot's loop): qkv ~17.5 us, gate/up ~64 us, the
# step 4.90 -> ~4.71 ms, ~212 tokens/s. Run 107: qkv 17.7 us, gate/up 60.0 (3.91 TB/s, the LM head's
# rate), the step 4.61 ms, 217 tokens/s.
# Prediction for run 108 (two rows a warp in the o and down GEMVs, as gate/up has): those 64 kernels
# from 1.51 ms (3.2 TB/s) to ~1.27 (3.8), the step ~4.37 ms, ~229 tokens/s. Run 108: 1.675 ms
# (2.89 TB/s), the step 4.82 ms, 207.5 tokens/s: slower (half as many warps); reverted.
set -u
source "$(dirname "$0")/common.sh"
device_script_start "server_kernels.sh BUILD_DIR OUT_DIR" "$@"
SERVER="$BUILD/labs/roofline-decode-server-solution"
INC=labs/10-production/server/incidents
{ cat $INC/baseline.yaml; echo "fused_max_batch: 4"; } > "$OUT/baseline-fused.yaml"
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
s=$(date +%s)
"$SERVER" --config "$OUT/baseline-fused.yaml" --batch 1 > "$OUT/serve.log" 2>&1
log "server alone: rc=$? in $(( $(date +%s) - s )) s: $(grep -m1 -E '^step ' "$OUT/serve.log")"
s=$(date +%s)
timeout 240 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum \
  --csv --print-units base "$SERVER" --config "$OUT/baseline-fused.yaml" --batch 1 --steps 2 \
  > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
log "ncu: rc=$? in $(( $(date +%s) - s )) s, $(grep -c gpu__time_duration "$OUT/ncu.csv") kernels"
python3 - "$OUT/ncu.csv" <<'PY' | tee -a "$summary"
import csv, collections, re, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
at = {name: head.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
kernels = collections.OrderedDict()
for r in rows[1:]:
    k = kernels.setdefault(r[at["ID"]], {"name": r[at["Kernel Name"]]})
    k[r[at["Metric Name"]]] = float(r[at["Metric Value"]].replace(",", ""))
# The last step: from the last embed kernel on (the step starts with the token's embedding).
ids = list(kernels)
starts = [i for i, k in enumerate(ids) if "embed" in kernels[k]["name"]]
step = [kernels[k] for k in ids[starts[-1]:]] if starts else []
by_name = collections.OrderedDict()
for k in step:
    short = re.sub(r"\(.*", "", k["name"]).split("::")[-1]
    e = by_name.setdefault(short, [0, 0.0, 0.0])
    e[0] += 1; e[1] += k.get("gpu__time_duration.sum", 0) * 1e-9; e[2] += k.get("dram__bytes_read.sum", 0)
total = sum(e[1] for e in by_name.values())
print(f"the last step's kernels: {len(step)}, {total*1e3:.3f} ms in all")
print(f"  {'kernel':40s} {'n':>4s} {'ms':>8s} {'us each':>8s} {'GB':>7s} {'TB/s':>6s}")
for name, (n, t, b) in by_name.items():
    print(f"  {name[:40]:40s} {n:4d} {t*1e3:8.3f} {t/n*1e6:8.2f} {b/1e9:7.3f} {b/t/1e12 if t else 0:6.2f}")
PY

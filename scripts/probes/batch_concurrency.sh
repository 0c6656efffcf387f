#!/usr/bin/env bash
# Why does a grading take longer when another runs on the other GPU? Times, on
# a two-GPU machine, alone and two at once (GPU 0 and GPU 1):
#   1. the CUDA start-up steps (cuda_startup_probe.cu);
#   2. one lab program run (one variant of lab 01's solution at the hidden
#      shapes), stage by stage;
#   3. a whole `roofline grade 01-memory-roof --all --solutions`.
# Writes everything to $OUT/concurrency.txt.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-/tmp/probe-out}
mkdir -p "$out"
exec > "$out/concurrency.txt" 2>&1  # (not a tee process substitution: a bare `wait` would wait for it)
export PATH=/usr/local/cuda/bin:$PATH
build=${ROOFLINE_BUILD_DIR:-$root/build-device-batch}
stamp() { while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done; }

echo "== $(date -u +%FT%TZ) $(nproc) cores"
nvidia-smi -q | grep -iE "Persistence Mode|Virtualization Mode|MIG Mode|Current *:" | sort | uniq -c
nvidia-smi topo -m
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 &&
  cmake --build "$build" --parallel "$(nproc)" --target roofline lab-01-memory-roof solution-01-memory-roof \
    > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
nvcc -O2 -o /tmp/cuda_startup_probe scripts/probes/cuda_startup_probe.cu || exit 1

TIMEFORMAT='   wall %R s, user %U s, sys %S s'
echo "== 1. start-up probe, alone (GPU 0)"
for i in 1 2 3; do time CUDA_VISIBLE_DEVICES=0 /tmp/cuda_startup_probe 2048; done
echo "== 1. start-up probe, two at once"
for i in 1 2 3; do
  (time CUDA_VISIBLE_DEVICES=0 /tmp/cuda_startup_probe 2048) 2>&1 | sed 's/^/gpu0 /' &
  (time CUDA_VISIBLE_DEVICES=1 /tmp/cuda_startup_probe 2048) 2>&1 | sed 's/^/gpu1 /' &
  wait
done

lab_program() {  # lab_program GPU
  local began=$EPOCHREALTIME
  CUDA_VISIBLE_DEVICES=$1 "$build/labs/solution-01-memory-roof" --variant copy_vectorized_bf16 --mode grade --seed 1 \
    --time-cap-s 2 --verify-shape n=3 --verify-shape n=31 --verify-shape n=8191 --verify-shape n=1048573 \
    --timed-shape n=268435459 --result /tmp/probe-result-$1.json 2>&1 | stamp |
    awk -v b="$began" -v g="$1" '{ printf "gpu%s +%.3f %s\n", g, $1 - b, substr($0, index($0, " ") + 1) }'
  echo "gpu$1 end +$(awk -v b="$began" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f", e - b }')"
}
echo "== 2. one lab program run, alone"
lab_program 0 | grep -v '^\s*$'
lab_program 0 | grep -E "stage|end"
echo "== 2. one lab program run, two at once"
for i in 1 2; do lab_program 0 > /tmp/lp0 & lab_program 1 > /tmp/lp1 & wait; grep -E "stage|end" /tmp/lp0 /tmp/lp1; done

grade_all() {  # grade_all GPU
  CUDA_VISIBLE_DEVICES=$1 "$build/roofline" --root "$root" --build-dir "$build" grade 01-memory-roof --all --solutions \
    --no-build --seed 1 --json > /tmp/probe-grade-$1.json 2>/dev/null
}
echo "== 3. grade --all, alone"
for i in 1 2; do time grade_all 0; done
echo "== 3. grade --all, two at once"
for i in 1 2; do (time grade_all 0) 2>&1 | sed 's/^/gpu0 /' & (time grade_all 1) 2>&1 | sed 's/^/gpu1 /' & wait; done
echo "== 3. grade --all on GPU 0 while GPU 1 runs a busy kernel loop (torch matmuls)"
python3 - <<'PY' > /dev/null 2>&1 &
import torch, time
torch.cuda.set_device(1)
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 25
while time.time() < end:
    for _ in range(20): a @ a
    torch.cuda.synchronize()
PY
sleep 5
time grade_all 0
wait
echo "== done $(date -u +%FT%TZ)"

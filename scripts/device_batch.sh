#!/usr/bin/env bash
# Issue #8 on a two-GPU machine: builds the grader, generates the class of
# scripts/make_test_submissions.sh for lab 01 (correct, slow, wrong, crashing, hanging, not compiling,
# without or with broken predictions, one named with markup), grades it with `roofline batch` on one
# GPU and then on two (fresh output folders, the same build jobs), and checks:
#   1. every submission's outcome is the expected one, in both runs;
#   2. each submission's correctness points are equal in both runs and its total
#      within 5% of the maximum (timing noise only; same seed, scored against the
#      peer measured in the same run);
#   3. the two-GPU run takes at most 0.6x the one-GPU time;
#   4. each run's report.html shows the markup-named submission as text.
# Prints a table (expected against got) and a verdict; copies the gradebooks,
# summaries, the report and a tarball of everything to $OUT (if set).
#
#   scripts/device_batch.sh            # from the repository root; about 5 minutes
#
# Where one command may run 10 minutes at most, build first and skip it here:
#   cmake -S . -B build-device-batch -G Ninja -DCMAKE_BUILD_TYPE=Release &&
#   cmake --build build-device-batch --target roofline lab-01-memory-roof -j
#   SKIP_BUILD=1 scripts/device_batch.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out_dir=${OUT:-/tmp/roofline-device-batch-out}
mkdir -p "$out_dir"
work=$(mktemp -d /tmp/roofline-device-batch-XXXXXX)
build=${ROOFLINE_BUILD_DIR:-$root/build-device-batch}
report=$out_dir/report.txt
jobs=$(nproc)
: > "$report"
say() { echo "$*" | tee -a "$report"; }
fail=0
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
script_began=$(now)

say "== device_batch.sh $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi -L 2>&1 | tee -a "$report"
gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [[ $gpu_count -lt 2 ]]; then say "error: this check needs two GPUs; nvidia-smi lists $gpu_count"; exit 1; fi

export PATH=/usr/local/cuda/bin:$PATH
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
if [[ "${SKIP_BUILD:-0}" == 1 ]]; then
  say "== using the build in $build (SKIP_BUILD=1)"
  [[ -x $build/roofline && -f $build/labs/01-memory-roof.build-kit ]] || { say "FAIL: $build is not built"; exit 1; }
else
say "== configure and build (roofline, lab-01-memory-roof) in $build"
if ! cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
     > "$work/configure.log" 2>&1; then
  tail -40 "$work/configure.log" | tee -a "$report"; say "FAIL: configure"; exit 1
fi
if ! cmake --build "$build" --parallel "$jobs" --target roofline lab-01-memory-roof > "$work/build.log" 2>&1; then
  tail -60 "$work/build.log" | tee -a "$report"; say "FAIL: build"; exit 1
fi
fi
say "   ready after $(seconds_since "$script_began") s"
roofline=$build/roofline

say "== generating submissions"
scripts/make_test_submissions.sh "$work/subs" "$roofline" 2>&1 | tee -a "$report"

# The instructor's own hidden file (512 MiB arrays, 20 s hang limit): the class is
# checked as it would be graded. (A first run on the H200 used 64 MiB arrays and an
# 8 s limit to save time; each grading then took ~2.5 s, the shared build phase
# dominated, and two GPUs took 0.82x the time of one.)
hidden=${HIDDEN:-$root/instructor/hidden/01-memory-roof.yaml}

# The class is the course's own, generated: graded in the sandbox where bwrap works here, else
# without one (the batch refuses that unless told).
sandbox_flag=()
bwrap_bin=${ROOFLINE_BWRAP:-$(command -v bwrap || true)}
if [[ -z $bwrap_bin ]] || ! "$bwrap_bin" --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null; then
  sandbox_flag=(--no-sandbox-i-trust-these-submissions)
fi

run_batch() {  # run_batch NAME GPUS LIMIT_S -> seconds in $elapsed
  local name=$1 gpus=$2 limit=$3 began
  say "== roofline batch --gpus $gpus --jobs $jobs, at most ${limit} s (out: $work/$name)"
  began=$(now)
  timeout "$limit" "$roofline" --root "$root" --build-dir "$build" batch 01-memory-roof --submissions "$work/subs" \
    --out "$work/$name" --hidden "$hidden" --gpus "$gpus" --jobs "$jobs" "${sandbox_flag[@]}" 2>&1 | tee "$work/$name.log" | tee -a "$report"
  local rc=${PIPESTATUS[0]}
  elapsed=$(seconds_since "$began")
  say "   exit $rc, $elapsed s"
  if [[ $rc -ne 0 ]]; then
    say "FAIL: batch --gpus $gpus exited $rc (124: ran past its ${limit} s); the gradebook below holds what finished"
    fail=1
    "$roofline" batch --merge "$work/$name" 2>&1 | tail -3 | tee -a "$report"
  fi
}
# The device allows 10 minutes a command: the one-GPU run gets up to 300 s, the
# two-GPU run the one-GPU time and a minute (past 0.6x it fails anyway), or what is left.
run_batch one-gpu 0 300; t1=$elapsed
left=$(awk -v used="$(seconds_since "$script_began")" 'BEGIN { printf "%d", 570 - used }')
limit2=$(awk -v a="$t1" -v b="$left" 'BEGIN { x = a + 60; if (x > b) x = b; if (x < 30) x = 30; printf "%d", x }')
run_batch two-gpus 0,1 "$limit2"; t2=$elapsed

say "== outcomes (expected against got)"
field() {  # field CSV NAME COLUMN
  awk -F, -v n="$2" -v c="$3" 'NR > 1 && $1 == n { print $c; exit }' "$1" 2>/dev/null
}
printf '%-20s %-22s %-22s %-22s %9s %9s %9s %9s  %s\n' submission expected "one GPU" "two GPUs" score1 score2 corr1 corr2 check \
  | tee -a "$report"
while IFS=, read -r name expected; do
  [[ $name == name ]] && continue
  g1=$(field "$work/one-gpu/gradebook.csv" "$name" 2); g2=$(field "$work/two-gpus/gradebook.csv" "$name" 2)
  s1=$(field "$work/one-gpu/gradebook.csv" "$name" 3); s2=$(field "$work/two-gpus/gradebook.csv" "$name" 3)
  m1=$(field "$work/one-gpu/gradebook.csv" "$name" 4)
  c1=$(field "$work/one-gpu/gradebook.csv" "$name" 5); c2=$(field "$work/two-gpus/gradebook.csv" "$name" 5)
  check=ok
  [[ "$g1" == "$expected" && "$g2" == "$expected" ]] || check="WRONG OUTCOME"
  if [[ $check == ok ]]; then
    if [[ "$c1" != "$c2" ]]; then check="CORRECTNESS DIFFERS"
    elif ! awk -v a="${s1:-0}" -v b="${s2:-0}" -v m="${m1:-1}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05 * m) }'; then
      check="SCORE DIFFERS"
    fi
  fi
  [[ $check == ok ]] || fail=1
  printf '%-20s %-22s %-22s %-22s %9s %9s %9s %9s  %s\n' "$name" "$expected" "${g1:--}" "${g2:--}" "${s1:--}" "${s2:--}" \
    "${c1:--}" "${c2:--}" "$check" | tee -a "$report"
done < "$work/subs/expected.csv"
count=$(($(wc -l < "$work/subs/expected.csv") - 1))
[[ $count -ge 20 ]] || { say "FAIL: only $count submissions"; fail=1; }

ratio=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b / a }')
say "== wall time: one GPU $t1 s, two GPUs $t2 s, ratio $ratio (must be <= 0.6); whole script $(seconds_since "$script_began") s"
if ! awk -v r="$ratio" 'BEGIN { exit !(r <= 0.6) }'; then say "FAIL: two GPUs took more than 0.6x"; fail=1; fi
say "== GPUs used in the two-GPU run: $(awk -F, 'NR > 1 { print $10 }' "$work/two-gpus/gradebook.csv" | sort | uniq -c | tr '\n' ' ')"

say "== report.html: the submission named with markup shown as text"
for run in one-gpu two-gpus; do
  page=$work/$run/report.html
  if [[ ! -f $page ]]; then say "FAIL: $run/report.html missing"; fail=1
  elif grep -qF '<img src=x' "$page"; then say "FAIL: $run/report.html holds the name as markup"; fail=1
  elif ! grep -qF '&lt;img src=x onerror=document.body.dataset.pwned=1&gt;' "$page"; then
    say "FAIL: $run/report.html does not show the name"; fail=1
  else say "$run/report.html: ok"; fi
done
cp "$work/one-gpu/report.html" "$out_dir/report-one-gpu.html" 2>/dev/null
cp "$work/one-gpu/gradebook.csv" "$out_dir/gradebook-one-gpu.csv" 2>/dev/null
cp "$work/two-gpus/gradebook.csv" "$out_dir/gradebook-two-gpus.csv" 2>/dev/null
cp "$work/one-gpu/summary.md" "$out_dir/summary-one-gpu.md" 2>/dev/null
cp "$work/two-gpus/summary.md" "$out_dir/summary-two-gpus.md" 2>/dev/null
tar -czf "$out_dir/device-batch.tar.gz" -C "$work" --exclude=objects one-gpu two-gpus one-gpu.log two-gpus.log \
  subs/expected.csv hidden.yaml 2>/dev/null
if [[ $fail -eq 0 ]]; then say "PASS: every outcome named as expected in both runs, scores agree, ratio $ratio"
else say "FAIL: see the lines above"; fi
exit $fail

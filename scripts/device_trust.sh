#!/usr/bin/env bash
# Trusted grading on one GPU: the class of scripts/make_test_submissions.sh (22 ordinary, one named
# with markup, and 9 hostile submissions of lab 01) graded by `roofline batch` with the instructor's hidden
# file, first inside the bubblewrap sandbox, then without it, and checks every outcome of
# the sandboxed run against expected.csv. Prints both wall times (the sandbox's cost).
#
#   ROOFLINE_BWRAP=/path/to/bwrap scripts/device_trust.sh BUILD_DIR
#
# BUILD_DIR must hold a built roofline and lab-01-memory-roof. Writes to $OUT if set.
# SKIP_PLAIN=1 leaves out the run without the sandbox.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: device_trust.sh BUILD_DIR}" && pwd)
out_dir=${OUT:-/tmp/roofline-device-trust-out}
mkdir -p "$out_dir"
work=$(mktemp -d /tmp/roofline-device-trust-XXXXXX)
report=$out_dir/trust-report.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }
now() { date +%s.%N; }
roofline=$build/roofline
hidden=$root/instructor/hidden/01-memory-roof.yaml
fail=0

say "== device_trust.sh $(date -u +%FT%TZ): bwrap ${ROOFLINE_BWRAP:-from PATH}"
"$root/scripts/make_test_submissions.sh" "$work/subs" "$roofline" 2>&1 | tail -1 | tee -a "$report"

run_batch() {  # run_batch NAME EXTRA... -> $elapsed
  local name=$1; shift
  local began; began=$(now)
  "$roofline" --root "$root" --build-dir "$build" batch 01-memory-roof --submissions "$work/subs" --out "$work/$name" \
    --hidden "$hidden" --gpus 0 --jobs "$(nproc)" "$@" > "$work/$name.log" 2>&1
  local rc=$?
  elapsed=$(awk -v a="$began" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  say "== batch $name: exit $rc, $elapsed s"
  grep -i "warning\|sandbox" "$work/$name.log" | head -3 | tee -a "$report"
}
run_batch sandboxed; t_sandbox=$elapsed  # refuses (exit 2) where bwrap cannot sandbox
# The 21 ordinary submissions alone, as graded before the hostile ones existed (19.5-21.5 s on one H200).
mkdir -p "$work/ordinary"
for dir in "$work/subs"/*/; do name=$(basename "$dir"); [[ $name == hostile_* || $name == "<"* ]] || cp -r "$dir" "$work/ordinary/"; done
ROOFLINE_TRACE=1 "$roofline" --root "$root" --build-dir "$build" batch 01-memory-roof --submissions "$work/ordinary" --out "$work/ordinary-out" \
  --hidden "$hidden" --gpus 0 --jobs "$(nproc)" > "$work/ordinary.log" 2>&1 &
ordinary_began=$(now); wait $!; t_ordinary=$(awk -v a="$ordinary_began" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
say "== batch of the 21 ordinary submissions, sandboxed: $t_ordinary s"
# Where the time went: each submission's grading wall time (result.json) against the timing and
# watch jobs its grade JSON reports (grading_seconds).
python3 - "$work/ordinary-out/submissions" <<'PY' 2>&1 | tee -a "$report"
import json, pathlib, sys
total = timing = watch = variants = 0
for sub in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    try: total += json.load(open(sub / "result.json")).get("seconds", 0)
    except Exception: continue
    try: graded = json.load(open(sub / "grade.json"))
    except Exception: continue
    for g in graded if isinstance(graded, list) else [graded]:
        s = g.get("grading_seconds") or {}
        timing += s.get("timing", 0); watch += s.get("watch", 0); variants += 1
print("   per-submission seconds summed (build + grade): %.1f; timing jobs %.1f s, watch jobs %.1f s over %d variants"
      % (total, timing, watch, variants))
# ROOFLINE_TRACE's stage marks in each grade-stderr.txt: seconds from each stage to the next, summed by stage.
import collections, re
stages = collections.Counter(); walls = []
for err in pathlib.Path(sys.argv[1]).glob("*/grade-stderr.txt"):
    marks = [(float(m.group(1)), re.sub(r"^\S+/\S+: ", "", m.group(2))) for m in
             re.finditer(r"\[trace +([0-9.]+) ms\] (.*)", err.read_text())]
    for (t0, name), (t1, _) in zip(marks, marks[1:]): stages[name] += (t1 - t0) / 1000
    if marks: walls.append(marks[-1][0] / 1000)
print("   roofline grade, start to report, summed over %d submissions: %.1f s" % (len(walls), sum(walls)))
for name, seconds in stages.most_common(12): print("     %-34s %6.2f s" % (name, seconds))
# The lab programs' own marks ("[lab trace N ...]", forwarded by the grader): per stage, digits folded.
lab_stages = collections.Counter(); lab_counts = collections.Counter()
for err in pathlib.Path(sys.argv[1]).glob("*/grade-stderr.txt"):
    by_program = collections.defaultdict(list)
    for m in re.finditer(r"\[lab trace (\S+) +([0-9.]+) ms\] (.*)", err.read_text()):
        by_program[m.group(1)].append((float(m.group(2)), re.sub(r"[0-9]+", "#", m.group(3).strip())))
    for marks in by_program.values():
        for (t0, name), (t1, _) in zip(marks, marks[1:]):
            lab_stages[name] += (t1 - t0) / 1000; lab_counts[name] += 1
print("   inside the lab programs, summed (time from each mark to the next):")
for name, seconds in lab_stages.most_common(16):
    print("     %-60s %6.2f s (%d)" % (name[:60], seconds, lab_counts[name]))
PY
t_plain=skipped
if [[ "${SKIP_PLAIN:-0}" != 1 ]]; then
  run_batch unsandboxed --no-sandbox-i-trust-these-submissions; t_plain=$elapsed
fi

say "== outcomes in the sandboxed run (expected against got)"
while IFS=, read -r name expected; do
  [[ $name == name ]] && continue
  got=$(awk -F, -v n="$name" 'NR > 1 && $1 == n { print $2; exit }' "$work/sandboxed/gradebook.csv")
  # The reason column by its name (a CSV reader: the reason may hold quoted commas).
  reason=$(python3 -c 'import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["submission"] == sys.argv[2]]
print((rows[0]["reason"] if rows else "")[:150])' "$work/sandboxed/gradebook.csv" "$name")
  check=ok; [[ "$got" == "$expected" ]] || { check=WRONG; fail=1; }
  printf '%-24s %-20s %-20s %-6s %s\n' "$name" "$expected" "${got:--}" "$check" "$reason" | tee -a "$report"
done < "$work/subs/expected.csv"
say "== snooping in the sandbox: $(grep -rh "SNOOP" "$work/sandboxed/submissions/hostile_snoop/" 2>/dev/null | sort -u | tr '\n' ';') (none expected)"
say "== wall time: sandboxed $t_sandbox s, unsandboxed $t_plain s"
cp "$work/sandboxed/gradebook.csv" "$out_dir/gradebook-sandboxed.csv"
cp "$work/unsandboxed/gradebook.csv" "$out_dir/gradebook-unsandboxed.csv" 2>/dev/null
tar -czf "$out_dir/trust.tar.gz" -C "$work" --exclude=objects sandboxed unsandboxed ordinary-out sandboxed.log unsandboxed.log ordinary.log subs/expected.csv 2>/dev/null
[[ $fail -eq 0 ]] && say "PASS: every outcome as expected" || say "FAIL: see above"
exit $fail

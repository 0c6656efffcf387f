#!/usr/bin/env bash
# Writes the student edition of the course: a copy without the reference
# solutions (solutions/) and the instructor's files (instructor/: hidden shapes
# and seeds), and without build folders, git history, prediction logs or local
# state. The copy configures, builds, tests and grades on its own (./setup.sh).
#
#   scripts/student_edition.sh DIR      # DIR must not exist yet, or be empty
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: student_edition.sh DIR}
if [[ -e $dest && -n $(ls -A "$dest" 2>/dev/null) ]]; then
  echo "error: $dest exists and is not empty; give a new folder" >&2
  exit 2
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
case "$dest/" in "$root"/*) echo "error: $dest is inside the course; write the edition elsewhere" >&2; exit 2 ;; esac

# Left out: the answers, the instructor's files, and everything a checkout makes locally.
# Scripts that need the solutions (test submissions, device runs, the probes of the given GEMM and
# the skinny GEMM and of lab 02's rung 9, and the overlap timeline's probe, which holds a copy of lab 04's
# part 3 answer) stay out too.
tar -C "$root" -cf - \
  --exclude=./solutions --exclude=./instructor \
  --exclude=./.git --exclude='./build*' --exclude=./.roofline --exclude='./predictions.yaml*' \
  --exclude=./out --exclude=./.gl --exclude=./.whl \
  --exclude=./scripts/make_test_submissions.sh --exclude=./scripts/device_batch.sh \
  --exclude=./scripts/device_session.sh --exclude=./scripts/instructor_predictions.sh \
  --exclude=./scripts/probes/given_gemm_check.cu --exclude=./scripts/probes/lab04_overlap_timeline.cu \
  --exclude=./scripts/probes/skinny_variants.cu --exclude=./scripts/probes/rung9_variants.cu \
  --exclude=./scripts/device \
  . | tar -C "$dest" -xf -

cat > "$dest/EDITION.md" <<MD
# Student edition

Made by \`scripts/student_edition.sh\` on $(date -u +%F) from the course
checkout$(git -C "$root" rev-parse --short HEAD 2>/dev/null | sed 's/^/ at commit /').
It holds the lessons, the labs (your kernel files), the grader and its tests;
the reference solutions and the instructor's hidden grading shapes are not part
of it. Start with \`./setup.sh\`, then the README's student loop.
MD
left=$(cd "$dest" && find . -path ./solutions -o -path ./instructor | head -1)
[[ -z $left ]] || { echo "error: $left was copied; the edition must not hold it" >&2; exit 1; }
echo "student edition written to $dest ($(du -sh "$dest" | cut -f1)); build it with: cd $dest && ./setup.sh"

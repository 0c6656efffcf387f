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

# Left out: the answers, the instructor's files, our recorded runs (results/: the reference
# solutions' measured figures, which a student reads in a variant's debrief once it is graded),
# and everything a checkout makes locally.
# Scripts that need the solutions stay out too: test submissions, device runs, and the probes
# (scripts/probes: instrumented copies of answers and the variant tables that include them).
tar -C "$root" -cf - \
  --exclude=./solutions --exclude=./instructor --exclude=./results \
  --exclude=./.git --exclude='./build*' --exclude=./.roofline --exclude='./predictions.yaml*' \
  --exclude=./out --exclude=./.gl --exclude=./.whl \
  --exclude=./scripts/make_test_submissions.sh --exclude=./scripts/device_batch.sh \
  --exclude=./scripts/device_session.sh --exclude=./scripts/instructor_predictions.sh \
  --exclude=./scripts/probes \
  --exclude=./scripts/device \
  . | tar -C "$dest" -xf -

# A link into results/ would point at nothing: in every Markdown file the copy holds, a link
# whose target is in results/ becomes its text and the path, named, not linked
# ("[run 68](../../results/r.md)" -> "run 68 (results/r.md)"; a text that already names the
# path stays as it is).
while IFS= read -r -d '' document; do
  perl -0pi -e 's{\[([^\]]*)\]\((?:\.\./)*results/([^)\s#]*)(?:#[^)\s]*)?\)}{ index($1, "results/") >= 0 ? $1 : "$1 (results/$2)" }ge' "$document"
done < <(find "$dest" -name '*.md' -type f -print0)

cat > "$dest/EDITION.md" <<MD
# Student edition

Made by \`scripts/student_edition.sh\` on $(date -u +%F) from the course
checkout$(git -C "$root" rev-parse --short HEAD 2>/dev/null | sed 's/^/ at commit /').
It holds the lessons, the labs (your kernel files), the grader and its tests;
the reference solutions, the instructor's hidden grading shapes and our recorded
H200 runs (\`results/\`, named in some documents) are not part of it: what our
reference solutions measured is in each variant's debrief, which
\`roofline debrief LAB/VARIANT\` shows once you have graded it. What a GPU can do
is in \`hardware/*.yaml\` (each figure with its datasheet source), in the lessons'
worked examples, and on your own GPU in \`roofline ceilings\`. Start with
\`./setup.sh\`, then the README's student loop.
MD
left=$(cd "$dest" && find . -path ./solutions -o -path ./instructor -o -path ./results | head -1)
[[ -z $left ]] || { echo "error: $left was copied; the edition must not hold it" >&2; exit 1; }
echo "student edition written to $dest ($(du -sh "$dest" | cut -f1)); build it with: cd $dest && ./setup.sh"

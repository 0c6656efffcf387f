#!/usr/bin/env bash
# The student edition (scripts/student_edition.sh): the copy holds no solutions,
# no instructor files (by path and by content) and no recorded runs (results/, nor a
# link into it), holds every given header (labs/LAB/given/), repeats no six-line run of
# answer code from solutions/ anywhere (SOLUTION_OVERLAP, built from
# solution_overlap.cpp, whose header says what counts; compiled here if not
# given); every header its kernel files include is in grader/include; and it
# stands on its own: it configures, builds the CLI and lab 01, lists the labs
# and takes a student through predict and grade (exit 4 without a GPU, 1 on
# one: the skeleton is unfinished). Set ROOFLINE_EDITION_BUILD=0 to check the copy only.
#
#   student_edition_test.sh COURSE_ROOT [SOLUTION_OVERLAP]
set -uo pipefail
course=$(cd "${1:?usage: student_edition_test.sh COURSE_ROOT [SOLUTION_OVERLAP]}" && pwd)
work=$(mktemp -d /tmp/roofline-edition-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
edition=$work/edition
overlap=${2:-$work/solution_overlap}
if [[ ! -x $overlap ]]; then
  "${CXX:-c++}" -std=c++17 -O2 -o "$overlap" "$course/grader/tests/edition/solution_overlap.cpp" \
    || fail "could not compile solution_overlap.cpp"
fi

"$course/scripts/student_edition.sh" "$edition" || fail "student_edition.sh exited $?"
for gone in solutions instructor results .git build .roofline predictions.yaml scripts/make_test_submissions.sh \
            scripts/probes/lab06_overlap_timeline.cu scripts/probes/rung9_variants.cu; do
  [[ ! -e $edition/$gone ]] || fail "the edition holds $gone"
done
for kept in README.md setup.sh CMakeLists.txt labs/01-memory-roof/lab.yaml grader/cli/main.cpp grader/include/roofline \
            grader/include/compat/roofline/wgmma.cuh \
            lessons hardware EDITION.md; do
  [[ -e $edition/$kept ]] || fail "the edition lacks $kept"
done
# results/ (our recorded runs: the reference solutions' measured figures) is left out, so no
# Markdown file of the copy may still link into it (student_edition.sh turns such links into
# named paths); and the rewrite must keep a link's text.
linked=$(cd "$edition" && grep -rlP '\]\((\.\./)*results/' --include='*.md' . | head -3)
[[ -z $linked ]] || fail "the edition still links into results/, which it does not hold: $linked"
cited=$(cd "$course" && grep -rlP '\]\((\.\./)*results/' --include='*.md' labs lessons | head -1)
[[ -z $cited ]] || grep -q '`results/\|(results/' "$edition/$cited" \
  || fail "$cited linked into results/, and the edition's copy no longer names the file (the link's text was lost)"
# A kernel file sees one grader folder, grader/include, and its lab's folder (the given code,
# labs/LAB/given/*.cuh, which the skeleton and the solution share): every header it includes is
# there or beside it.
includes=$(cd "$edition" && grep -rH '^#include "' labs/*/kernels labs/*/given)
[[ -n $includes ]] || fail "found no #include \"...\" in the edition's kernel files"
while IFS= read -r line; do
  file=${line%%:*}
  lab_folder=$(cut -d/ -f1-2 <<< "$file")
  header=$(sed -E 's/^#include "([^"]+)".*/\1/' <<< "${line#*:}")
  [[ -e $edition/grader/include/$header || -e $(dirname "$edition/$file")/$header || -e $edition/$lab_folder/$header ]] \
    || fail "$file includes \"$header\", which is neither in grader/include nor in $lab_folder nor beside it"
done <<< "$includes"
# A student's kernel file written before grader/include/roofline/ was split still compiles in the
# edition: every old include name (grader/include/compat/) reaches its header there.
nvcc_here=${CUDACXX:-$(command -v nvcc || true)}
if [[ -n $nvcc_here ]]; then
  bash "$course/grader/tests/include_paths/check_old_include_names.sh" "$edition" "$nvcc_here" > "$work/compat.log" 2>&1 \
    || { cat "$work/compat.log" >&2; fail "the edition's old include names do not resolve (above)"; }
fi
# The given code is the student's as much as the solution's: every given header is in the edition.
given=$(cd "$course" && ls labs/*/given/* 2>/dev/null)
[[ -n $given ]] || fail "found no given headers (labs/*/given/) in $course"
for header in $given; do
  [[ -e $edition/$header ]] || fail "the edition lacks the given header $header"
done
# No file of the edition may equal a solution or an instructor file, wherever it sits.
secrets=$work/secrets.txt
find "$course/solutions" "$course/instructor" -type f -exec sha256sum {} + 2>/dev/null | cut -d' ' -f1 | sort -u > "$secrets"
[[ -s $secrets ]] || fail "found no solution files in $course to compare against"
leaks=$(cd "$edition" && find . -type f -exec sha256sum {} + | sort | join -1 1 -2 1 - "$secrets" | head -5)
[[ -z $leaks ]] || fail "the edition holds copies of solution or instructor files: $leaks"
# Nor part of one: no edition file may repeat six lines of answer code (given code built from a
# rung's answer, a lesson quoting one). First a planted half of a solution must be caught.
planted=$(find "$course/solutions" -type f -name '*.cu' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
[[ -n $planted ]] || fail "found no solution kernel in $course/solutions to plant"
sed -n "$(( $(wc -l < "$planted") / 2 )),\$p" "$planted" > "$edition/planted.cu"
"$overlap" "$edition" "$course/solutions" > "$work/overlap.txt" 2>&1
[[ $? -eq 1 ]] || { cat "$work/overlap.txt"; fail "solution_overlap missed half of $planted planted in the edition"; }
rm "$edition/planted.cu"
"$overlap" "$edition" "$course/solutions" > "$work/overlap.txt" 2>&1
rc=$?
[[ $rc -eq 0 ]] || { cat "$work/overlap.txt"; fail "the edition repeats answer code of solutions/ (exit $rc): replace it with code that is no lab's answer"; }
# A second run into a non-empty folder is refused rather than mixed in.
"$course/scripts/student_edition.sh" "$edition" 2>/dev/null && fail "writing into a non-empty folder was not refused"
echo "the copy holds no solutions, no instructor files and no answer code"

if [[ "${ROOFLINE_EDITION_BUILD:-1}" == 0 ]]; then echo "PASS (copy checked; build skipped)"; exit 0; fi
export PATH=$PATH:/usr/local/cuda/bin
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$edition" -B "$edition/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1 \
  || { tail -30 "$work/configure.log"; fail "the edition does not configure"; }
cmake --build "$edition/build" --parallel "$(nproc)" --target roofline lab-01-memory-roof > "$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; fail "the edition does not build"; }
[[ ! -e $edition/build/labs/solution-01-memory-roof ]] || fail "a solution program was built"
cli=("$edition/build/roofline" --root "$edition")
"${cli[@]}" list > "$work/list.txt" || fail "roofline list exited $?"
grep -q 01-memory-roof "$work/list.txt" || fail "roofline list does not show lab 01"
log=$work/predictions.yaml
"${cli[@]}" grade 01-memory-roof/copy_naive_fp32 --log "$log" --no-build > "$work/grade1.txt" 2>&1
[[ $? -eq 3 ]] || { cat "$work/grade1.txt"; fail "grade without a prediction should exit 3"; }
"${cli[@]}" predict 01-memory-roof/copy_naive_fp32 --gbps 3000 --regime memory --why "one read and one write per element" \
  --log "$log" > /dev/null || fail "predict exited $?"
"${cli[@]}" grade 01-memory-roof/copy_naive_fp32 --log "$log" --no-build > "$work/grade2.txt" 2>&1
rc=$?
[[ $rc -eq 4 || $rc -eq 1 ]] || { cat "$work/grade2.txt"; fail "grade exited $rc (expected 4: no GPU, or 1: the skeleton is incorrect)"; }
# Lab 05's layout library is graded on the CPU: no GPU, no prediction; the skeleton throws.
cmake --build "$edition/build" --target lab-05-layouts-cpu >> "$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; fail "the edition's lab-05-layouts-cpu does not build"; }
"${cli[@]}" grade 05-layouts/compose --log "$log" --no-build > "$work/grade3.txt" 2>&1
[[ $? -eq 1 ]] && grep -q "not written yet" "$work/grade3.txt" \
  || { cat "$work/grade3.txt"; fail "grading lab 05's compose skeleton on the CPU should say it is not written yet (exit 1)"; }
echo "PASS: the student edition configures, builds, lists and grades (grade exit $rc; lab 05's CPU part graded)"

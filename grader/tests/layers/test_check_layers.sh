#!/bin/sh
# The layer check (grader/lib/check_layers.sh) must be able to fail: on a copy of grader/lib it
# passes as the tree is, then fails, naming file and line, for each wrong-way include planted
# in the copy: by name from the bottom layer, by a relative path the compiler would follow
# without any include path, and between the two top layers, which sit side by side.
#
#   test_check_layers.sh CHECK_SCRIPT LIB_DIR NAME:LOWERS...
set -eu
check=$1
lib=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

copy() {  # a fresh copy of lib/ in $work/lib
    rm -rf "$work/lib"
    cp -R "$lib" "$work/lib"
}

run_check() { sh "$check" "$work/lib" "$@" >"$work/out" 2>&1; }

copy
if ! run_check "$@"; then
    echo "FAIL: the check refuses the tree as it is:"; cat "$work/out"; failures=$((failures + 1))
fi

plant() {  # plant FILE TEXT WHAT: appends TEXT to FILE in a fresh copy; the check must name FILE:LINE
    copy
    printf '%s\n' "$2" >>"$work/lib/$1"
    line=$(wc -l <"$work/lib/$1" | tr -d ' ')
    shift 2
    what=$1
    shift
    if run_check "$@"; then
        echo "FAIL: the check passed $what"; failures=$((failures + 1))
    elif ! grep -q "lib/$planted_file:$line: includes" "$work/out"; then
        echo "FAIL: the check refused $what without naming $planted_file:$line:"; cat "$work/out"
        failures=$((failures + 1))
    else
        echo "ok: refused $what: $(grep "lib/$planted_file:$line:" "$work/out")"
    fi
}

planted_file=core/units.cpp
plant "$planted_file" '#include "grade.hpp"' "core including grading by name" "$@"
planted_file=course/lab_spec.hpp
plant "$planted_file" '#include "../pages/html_text.hpp"' "course including pages by a relative path" "$@"
planted_file=practice/classify.cpp
plant "$planted_file" '#include "batch.hpp"' "practice including batch, its neighbour at the top" "$@"

# A name in two layers is refused too (which one an include finds would hang on the include path).
copy
cp "$work/lib/core/units.hpp" "$work/lib/grading/units.hpp"
if run_check "$@" || ! grep -q "units.hpp.*rename one" "$work/out"; then
    echo "FAIL: the check let a name stand in two layers:"; cat "$work/out"; failures=$((failures + 1))
else
    echo "ok: refused units.hpp in core and grading"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "the layer check refuses every planted wrong-way include"

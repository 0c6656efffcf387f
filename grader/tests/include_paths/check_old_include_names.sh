#!/usr/bin/env bash
# The old include names (grader/include/compat/README.md) still resolve, and nothing in the
# course uses them.
#   1. Every compat/roofline/NAME is one #include of a header that exists: in grader/include
#      (roofline/contract/, roofline/ptx/) or, for a lab's given header, in exactly one
#      labs/*/given/.
#   2. A file including every old name, as a student's kernel file would, goes through the
#      preprocessor (nvcc -E) with a kernel file's include path (cmake/RooflineLab.cmake):
#      grader/include, the lab's folder, grader/include/compat. The lab folders of the given
#      headers are all on it, since the one file includes them all.
#   3. No kernel file, given header, solution, grader or script source includes an old name:
#      the aliases are for students' old files, and a course file using one would hide the day
#      an alias breaks from this check's readers.
#
#   check_old_include_names.sh COURSE_ROOT NVCC
set -uo pipefail
root=$(cd "${1:?usage: check_old_include_names.sh COURSE_ROOT NVCC}" && pwd)
nvcc=${2:?usage: check_old_include_names.sh COURSE_ROOT NVCC}
fail() { echo "FAIL: $*" >&2; exit 1; }
compat=$root/grader/include/compat/roofline
work=$(mktemp -d /tmp/roofline-compat-XXXXXX)
trap 'rm -rf "$work"' EXIT

shopt -s nullglob
aliases=("$compat"/*)
(( ${#aliases[@]} > 0 )) || fail "no old include names in $compat"
include_dirs=(-I"$root/grader/include")
probe=$work/old_names.cu
: > "$probe"
for alias in "${aliases[@]}"; do
  name=$(basename "$alias")
  mapfile -t targets < <(sed -nE 's/^#include "([^"]+)".*/\1/p' "$alias")
  (( ${#targets[@]} == 1 )) \
    || fail "$alias: an alias is one #include of the header's new path (found ${#targets[@]}); fix it to #include \"roofline/contract/$name\" or the like"
  target=${targets[0]}
  [[ $target != roofline/"$name" ]] || fail "$alias includes its own old name"
  if [[ -e $root/grader/include/$target ]]; then
    :
  elif [[ $target == given/* ]]; then
    labs=("$root"/labs/*/"$target")
    (( ${#labs[@]} == 1 )) \
      || fail "$alias: $target is in ${#labs[@]} labs' folders (want exactly one: labs/NN-name/$target)"
    lab_folder=${labs[0]%/"$target"}
    include_dirs+=(-I"$lab_folder")
  else
    fail "$alias: $target is neither in grader/include nor a lab's given header; point the alias at the header's new path"
  fi
  echo "#include \"roofline/$name\"" >> "$probe"
done
include_dirs+=(-I"$root/grader/include/compat")
"$nvcc" -std=c++17 -E -x cu "${include_dirs[@]}" "$probe" -o "$work/old_names.ii" 2> "$work/nvcc.err" \
  || { cat "$work/nvcc.err" >&2; fail "the old include names do not preprocess (above)"; }
# Each alias reached its new header (the preprocessor's line markers name every file it read).
for alias in "${aliases[@]}"; do
  target=$(sed -nE 's/^#include "([^"]+)".*/\1/p' "$alias")
  grep -q "^# [0-9]* \"[^\"]*/$target\"" "$work/old_names.ii" \
    || fail "roofline/$(basename "$alias") did not reach $target"
done

# 3. The course itself uses the new names only.
cd "$root" || exit 1
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]roofline/('
sep=
for alias in "${aliases[@]}"; do pattern+="$sep$(basename "$alias" | sed 's/\./\\./g')"; sep='|'; done
pattern+=')[">]'
users=$(grep -rlE "$pattern" labs solutions grader scripts \
          --include='*.cu' --include='*.cuh' --include='*.hpp' --include='*.cpp' --include='*.h' 2>/dev/null \
        | grep -v '^grader/include/compat/' | head -5)
[[ -z $users ]] || fail "these course files include an old name (use roofline/contract/, roofline/ptx/ or given/): $users"
echo "ok: ${#aliases[@]} old include names resolve; no course file uses one"

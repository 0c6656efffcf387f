#!/usr/bin/env bash
# Every probe under scripts/probes/ that says how to build it (a comment line starting
# "//   nvcc") names include folders that let it find its headers: the probe goes through the
# preprocessor (nvcc -E) with the -I folders of that line and the next, from the course root, as
# its comment says to run it. A header moved to a lab's given/ folder, or out of grader/include,
# fails here rather than on the next GPU session that compiles the probe.
#
#   check_probe_compile_lines.sh COURSE_ROOT NVCC
set -uo pipefail
root=$(cd "${1:?usage: check_probe_compile_lines.sh COURSE_ROOT NVCC}" && pwd)
nvcc=${2:?usage: check_probe_compile_lines.sh COURSE_ROOT NVCC}
cd "$root" || exit 1
checked=0
failed=0
for probe in scripts/probes/*.cu; do
  line=$(grep -n -m1 '^//   nvcc' "$probe" | cut -d: -f1)
  [[ -n $line ]] || continue
  mapfile -t includes < <(sed -n "${line},$((line + 1))p" "$probe" | grep -oE -- '-I[^ ]+')
  [[ ${#includes[@]} -gt 0 ]] || continue
  checked=$((checked + 1))
  if ! err=$("$nvcc" -std=c++17 -E -x cu "${includes[@]}" "$probe" -o /dev/null 2>&1); then
    echo "FAIL: $probe:$line: its compile line's include folders (${includes[*]}) do not find its headers:" >&2
    grep -m2 -E 'error|fatal' <<< "$err" >&2
    echo "  fix the line: add the folder the header is in (a lab's given/ code: -Ilabs/NN-name)" >&2
    failed=$((failed + 1))
  fi
done
(( checked > 0 )) || { echo "FAIL: no probe in scripts/probes/ has a '//   nvcc' compile line" >&2; exit 1; }
(( failed == 0 )) || exit 1
echo "ok: $checked probes' compile lines find their headers"

#!/usr/bin/env bash
# Writes a class of generated submissions for lab 01-memory-roof, one of every
# kind `roofline batch` must tell apart, and OUTDIR/expected.csv (name,outcome).
#
#   scripts/make_test_submissions.sh OUTDIR [ROOFLINE]
#
# ROOFLINE: the built CLI (default build/roofline); it writes the predictions.
# Kinds: correct (the reference solutions), slow (correct but slower kernels),
# wrong (a wrong answer), crash (illegal address, trap), hang (a kernel that
# never ends), compile (a syntax error), no predictions.yaml, a malformed one,
# and stale predictions (made before the last edit: graded, no prediction points),
# and a correct one whose name is markup (report.html must show it as text).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: make_test_submissions.sh OUTDIR [ROOFLINE]}
roofline=${2:-$root/build/roofline}
lab=01-memory-roof
solutions=$root/solutions/$lab/kernels
[[ -d $solutions ]] || { echo "error: $solutions missing: generating submissions needs the instructor's copy" >&2; exit 2; }
[[ -x $roofline ]] || { echo "error: $roofline is not built (pass the roofline binary as the second argument)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "name,expected" > "$out/expected.csv"

# new NAME EXPECTED: a submission holding the reference kernels.
new() {
  rm -rf "${out:?}/$1"
  mkdir -p "$out/$1/kernels"
  cp "$solutions"/*.cu "$out/$1/kernels/"
  echo "$1,$2" >> "$out/expected.csv"
}

# predict NAME BANDWIDTH_GBPS: a prediction for every variant against the submission's sources,
# made with `roofline predict` in a scratch course root that holds them.
predict() {
  local name=$1 gbps=$2 scratch
  scratch=$(mktemp -d)
  mkdir -p "$scratch/labs/$lab"
  cp "$root/labs/$lab/lab.yaml" "$scratch/labs/$lab/"
  cp -r "$out/$name/kernels" "$scratch/labs/$lab/kernels"
  ln -s "$root/hardware" "$scratch/hardware"
  local variants
  variants=$(sed -n 's/^ *- {name: \([a-z0-9_]*\),.*/\1/p' "$root/labs/$lab/lab.yaml")
  for v in $variants; do
    if [[ $v == fma_* ]]; then
      "$roofline" --root "$scratch" predict "$lab/$v" --tflops 45 --regime compute \
        --why "512 dependent FMAs per element keep the FP32 pipes busy" --log "$out/$name/predictions.yaml" >/dev/null
    else
      "$roofline" --root "$scratch" predict "$lab/$v" --gbps "$gbps" --regime memory \
        --why "streams every byte once, so bandwidth sets the time" --log "$out/$name/predictions.yaml" >/dev/null
    fi
  done
  rm -rf "$scratch"
}

# Edits in place: sedit NAME FILE SED-EXPRESSION (fails loudly if the pattern is gone).
sedit() {
  local file=$out/$1/kernels/$2
  cp "$file" "$file.before"
  sed -i "$3" "$file"
  if cmp -s "$file" "$file.before"; then echo "error: '$3' changed nothing in $2" >&2; exit 1; fi
  rm "$file.before"
}

i=0
for gbps in 3000 3400 3800 4200 2600 3600; do
  i=$((i + 1)); new "correct_$i" graded; predict "correct_$i" "$gbps"
done

# Slow: the naive copy registered as the vectorized rung; scale on a quarter of the SMs.
new slow_copy graded
cp "$solutions/01_copy_naive.cu" "$out/slow_copy/kernels/02_copy_vectorized.cu"
sedit slow_copy 02_copy_vectorized.cu 's/ROOFLINE_COPY_VARIANT(copy_naive_/ROOFLINE_COPY_VARIANT(copy_vectorized_/'
predict slow_copy 3600
new slow_scale graded
sedit slow_scale 03_scale.cu 's/std::size_t(sms) \* 8/std::size_t(sms) \/ 4/'
predict slow_scale 3600
new slow_both graded
cp "$solutions/01_copy_naive.cu" "$out/slow_both/kernels/02_copy_vectorized.cu"
sedit slow_both 02_copy_vectorized.cu 's/ROOFLINE_COPY_VARIANT(copy_naive_/ROOFLINE_COPY_VARIANT(copy_vectorized_/'
sedit slow_both 03_scale.cu 's/std::size_t(sms) \* 8/std::size_t(sms) \/ 4/'
predict slow_both 2000

# Wrong: the last element never written; a sum that is a difference.
new wrong_tail wrong_answer
sedit wrong_tail 01_copy_naive.cu 's/if (i < n) y\[i\] = x\[i\];/if (i + 1 < n) y[i] = x[i];/'
predict wrong_tail 3600
new wrong_add wrong_answer
sedit wrong_add 04_add.cu 's/to_float(a\[i\]) + to_float(b\[i\])/to_float(a[i]) - to_float(b[i])/'
sedit wrong_add 04_add.cu 's/to_float(va\[j\]) + to_float(vb\[j\])/to_float(va[j]) - to_float(vb[j])/'
predict wrong_add 3600

# Crash: a write 4 TiB past the output; a trap.
new crash_address crash
sedit crash_address 01_copy_naive.cu 's/if (i < n) y\[i\] = x\[i\];/if (i < n) y[i + (std::size_t(1) << 40)] = x[i];/'
predict crash_address 3600
new crash_trap crash
sedit crash_trap 01_copy_naive.cu 's/if (i < n) y\[i\] = x\[i\];/if (i < n) y[i] = x[i];\n    if (i == 0) __trap();/'
predict crash_trap 3600

# Hang: every thread spins on the SM clock, which stays non-negative for ~146 years.
# (A volatile local flag is not enough: nvcc keeps it in a register and drops the
# loop; seen on the H200, where that submission graded as correct.)
new hang_spin hang
sedit hang_spin 01_copy_naive.cu 's/if (i < n) y\[i\] = x\[i\];/while (clock64() >= 0) {}\n    if (i < n) y[i] = x[i];/'
predict hang_spin 3600

# Compile errors: a missing semicolon late in the file list; an undeclared name.
new compile_syntax compile_error
sedit compile_syntax 03_scale.cu 's/constexpr int threads = 512;/constexpr int threads = 512/'
predict compile_syntax 3600
new compile_undeclared compile_error
sedit compile_undeclared 04_add.cu 's/to_float(a\[i\]) + to_float(b\[i\])/to_float(a[i]) + not_declared_here/'
predict compile_undeclared 3600

# Prediction logs: none, malformed, and stale (the kernel edited after predicting).
new no_predictions_1 no_predictions
new no_predictions_2 no_predictions
new malformed_yaml malformed_predictions
printf -- '- kind: prediction\n  lab: [01-memory-roof\n' > "$out/malformed_yaml/predictions.yaml"
new malformed_schema malformed_predictions
printf -- '- kind: prediction\n  lab: 01-memory-roof\n  variant: copy_naive_fp32\n' > "$out/malformed_schema/predictions.yaml"
new stale_predictions graded
predict stale_predictions 3600
echo "// edited after the predictions were made" >> "$out/stale_predictions/kernels/01_copy_naive.cu"

# A hostile name: an element with a handler, were it written into report.html unescaped.
# (No comma or quote in it: it stays one plain field of expected.csv and gradebook.csv.)
hostile='<img src=x onerror=document.body.dataset.pwned=1>'
new "$hostile" graded
predict "$hostile" 3600

echo "wrote $(($(wc -l < "$out/expected.csv") - 1)) submissions to $out (expected outcomes: $out/expected.csv)"

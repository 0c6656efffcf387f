#!/usr/bin/env bash
# check_old_include_names.sh can fail: in small made-up course trees it refuses an alias whose
# header has moved, and a course file that includes an old name; it passes the tree made right.
#   test_check_old_include_names.sh CHECK NVCC
set -uo pipefail
check=${1:?usage: test_check_old_include_names.sh CHECK NVCC}
nvcc=${2:?usage: test_check_old_include_names.sh CHECK NVCC}
work=$(mktemp -d /tmp/roofline-compat-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

make_tree() {  # a course with one contract header, one given header and their two aliases
  local tree=$1
  mkdir -p "$tree/grader/include/roofline/contract" "$tree/grader/include/compat/roofline" \
           "$tree/labs/04-fusion/given" "$tree/labs/04-fusion/kernels"
  echo 'inline int gemm_contract() { return 1; }' > "$tree/grader/include/roofline/contract/gemm.cuh"
  echo 'inline int given_gemm() { return 2; }' > "$tree/labs/04-fusion/given/gemm_with_epilogue.cuh"
  printf '#pragma once\n#include "roofline/contract/gemm.cuh"\n' > "$tree/grader/include/compat/roofline/gemm.cuh"
  printf '#pragma once\n#include "given/gemm_with_epilogue.cuh"\n' \
    > "$tree/grader/include/compat/roofline/gemm_with_epilogue.cuh"
  printf '#include "roofline/contract/gemm.cuh"\n#include "given/gemm_with_epilogue.cuh"\n' \
    > "$tree/labs/04-fusion/kernels/01_new_names.cu"
}

make_tree "$work/good"
bash "$check" "$work/good" "$nvcc" > "$work/good.log" 2>&1 || { cat "$work/good.log"; fail "refused a tree made right"; }

make_tree "$work/moved"
rm "$work/moved/grader/include/roofline/contract/gemm.cuh"
bash "$check" "$work/moved" "$nvcc" > "$work/moved.log" 2>&1 && fail "passed an alias whose header is gone"
grep -q "compat/roofline/gemm.cuh" "$work/moved.log" || { cat "$work/moved.log"; fail "the refusal does not name the alias"; }

make_tree "$work/user"
echo '#include "roofline/gemm.cuh"' > "$work/user/labs/04-fusion/kernels/02_old_name.cu"
bash "$check" "$work/user" "$nvcc" > "$work/user.log" 2>&1 && fail "passed a course file that includes an old name"
grep -q "02_old_name.cu" "$work/user.log" || { cat "$work/user.log"; fail "the refusal does not name the file"; }
echo "ok: the check refuses a moved header and a course file on an old name"

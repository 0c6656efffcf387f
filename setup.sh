#!/usr/bin/env bash
# One command from a fresh Debian 12 (or Ubuntu 24.04) checkout to a working course:
# installs the libraries (apt-get), configures and builds in Release, then runs
# the main job: the lab list and the roofline calculator on every GPU profile,
# and, where a CUDA GPU is present, `roofline ceilings` to measure it.
#
#   ./setup.sh            # everything
#   ./setup.sh --no-apt   # skip the package install (already done, or no root)
set -euo pipefail
cd "$(dirname "$0")"

build_dir=${ROOFLINE_BUILD_DIR:-build}
packages=(cmake ninja-build g++ libfmt-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev catch2)
# Slurm and munge: the test of `roofline batch --slurm` starts a one-node cluster on localhost.
packages+=(slurm-wlm munge)
# bubblewrap: `roofline batch` compiles and runs every submission inside a bwrap sandbox.
packages+=(bubblewrap)

if [[ "${1:-}" != "--no-apt" ]]; then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: installing packages needs root: run ./setup.sh as root, or install sudo, or use --no-apt" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "== installing ${packages[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
  # chromium: the tests open the HTML reports (roofline report, the batch's report.html) in
  # headless Chromium. Apart, because Ubuntu's package only installs a snap: where it fails,
  # those tests skip (ctest's cpu_browser) and the rest of the course is unaffected.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium \
    || echo "warning: chromium did not install; the browser tests (ctest -R cpu_browser) will skip" >&2
fi

# The CUDA Toolkit is not in Debian's main archive at the version we need (12.4+,
# tested with 13.0): it comes from NVIDIA's repository.
if ! command -v nvcc >/dev/null 2>&1; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    cat >&2 <<'MSG'
error: nvcc (the CUDA Toolkit) was not found on PATH or in /usr/local/cuda.
  Install CUDA Toolkit 13 from NVIDIA's apt repository (package cuda-toolkit-13-0;
  see https://developer.nvidia.com/cuda-downloads, Linux > x86_64 > Debian), then
  run ./setup.sh again. A GPU is not needed to build; it is needed to grade.
MSG
    exit 1
  fi
fi

echo "== configuring ($build_dir, Release)"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
echo "== building"
cmake --build "$build_dir" --parallel "$(nproc)"

echo "== the course"
"$build_dir/roofline" list
echo
echo "== the roofline calculator: a 4096^3 bf16 GEMM on every GPU profile"
"$build_dir/roofline" calc --gemm 4096 --dtype bf16 --hardware all
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo
  echo "== measuring this GPU's ceilings"
  "$build_dir/roofline" ceilings
else
  echo
  echo "(no NVIDIA GPU here: predict, calc, classify and log work; grading needs a GPU)"
fi
echo
echo "ready: $build_dir/roofline --help   |   tests: ctest --test-dir $build_dir --output-on-failure"

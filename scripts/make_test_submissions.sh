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
# and hostile ones: an input zeroed, cuBLAS called directly, through dlopen and
# through a pointer found by hand, a redefined timer, a launch on the legacy stream,
# host code that reaches for the hidden shapes, HOME and the network, and a kernel file
# that links to the solution (unsafe_entry);
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

# new NAME EXPECTED: a submission holding the reference kernels. A solution file that includes a
# header shared with another rung (`#include "../add.cuh"`) gets the header's text in its place:
# a student hands in kernel files only, so a submission must stand on its own.
new() {
  rm -rf "${out:?}/$1"
  mkdir -p "$out/$1/kernels"
  local file
  for file in "$solutions"/*.cu; do
    awk -v dir="$solutions/.." '
      match($0, /^#include "\.\.\/[A-Za-z0-9_]+\.cuh"/) {
        header = dir "/" substr($0, 13, RLENGTH - 13)
        while ((getline line < header) > 0) print line
        close(header); next
      }
      { print }' "$file" > "$out/$1/kernels/$(basename "$file")"
  done
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

# Hostile: each replaces the naive copy (both dtypes) with work that is not its own to give.
new hostile_input_zeroing wrong_answer
sedit hostile_input_zeroing 01_copy_naive.cu 's/if (i < n) y\[i\] = x\[i\];/if (i < n) { y[i] = x[i]; const_cast<T*>(x)[i] = T(); }/'
predict hostile_input_zeroing 3600
new hostile_legacy_stream wrong_answer
sedit hostile_legacy_stream 01_copy_naive.cu 's/copy_naive_kernel<<<blocks, threads, 0, stream>>>/copy_naive_kernel<<<blocks, threads>>>/'
predict hostile_legacy_stream 3600
# cuBLAS's copy for fp32 (a link-time refusal); a kernel the file does not define.
hostile_library() {  # hostile_library NAME HOW: HOW is the body that copies n floats from x to y on `stream`
  new "$1" forbidden_call
  cat > "$out/$1/kernels/01_copy_naive.cu" <<CU
#include "roofline/contract/elementwise.cuh"
#include <cublas_v2.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
namespace {
using Scopy = int (*)(void*, int, const float*, int, float*, int);
using Create = int (*)(void**);
using SetStream = int (*)(void*, cudaStream_t);
struct Found { std::string path; ElfW(Addr) base = 0; };
const char* wanted_library = "";
int find_library(dl_phdr_info* info, std::size_t, void* data) {
    if (!info->dlpi_name || !std::strstr(info->dlpi_name, wanted_library)) return 0;
    static_cast<Found*>(data)->path = info->dlpi_name;
    static_cast<Found*>(data)->base = info->dlpi_addr;
    return 1;
}
[[maybe_unused]] void* by_hand(const char* library, const char* name) {
    Found found;
    wanted_library = library;
    dl_iterate_phdr(find_library, &found);
    if (found.path.empty()) return nullptr;
    std::ifstream in(found.path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto* header = reinterpret_cast<const ElfW(Ehdr)*>(bytes.data());
    auto* sections = reinterpret_cast<const ElfW(Shdr)*>(bytes.data() + header->e_shoff);
    for (int i = 0; i < header->e_shnum; ++i) {
        if (sections[i].sh_type != SHT_DYNSYM) continue;
        auto* symbols = reinterpret_cast<const ElfW(Sym)*>(bytes.data() + sections[i].sh_offset);
        const char* names = bytes.data() + sections[sections[i].sh_link].sh_offset;
        for (std::size_t s = 0; s < sections[i].sh_size / sizeof(ElfW(Sym)); ++s)
            if (symbols[s].st_value && !std::strcmp(names + symbols[s].st_name, name))
                return reinterpret_cast<void*>(found.base + symbols[s].st_value);
    }
    return nullptr;
}
template <class T> __global__ void copy_kernel(const T* x, T* y, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x[i];
}
void copy_fp32(const float* x, float* y, std::size_t n, cudaStream_t stream) {
$2
}
void copy_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, std::size_t n, cudaStream_t stream) {
    copy_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
}  // namespace
ROOFLINE_COPY_VARIANT(copy_naive_fp32, copy_fp32);
ROOFLINE_COPY_VARIANT(copy_naive_bf16, copy_bf16);
CU
  predict "$1" 3600
}
hostile_library hostile_cublas '    static cublasHandle_t h = [] { cublasHandle_t c; cublasCreate(&c); return c; }();
    cublasSetStream(h, stream);
    cublasScopy(h, int(n), x, 1, y, 1);'
hostile_library hostile_dlopen '    static void* lib = dlopen("libcublas.so.13", RTLD_NOW);
    static void* h = [] { void* c = nullptr; reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"))(&c); return c; }();
    reinterpret_cast<SetStream>(dlsym(lib, "cublasSetStream_v2"))(h, stream);
    reinterpret_cast<Scopy>(dlsym(lib, "cublasScopy_v2"))(h, int(n), x, 1, y, 1);'
# cudaMemcpyAsync found by hand in the loaded libcudart (no name of it in the object):
# only the run-time check sees the copy.
hostile_library hostile_pointer '    using Copy = cudaError_t (*)(void*, const void*, std::size_t, cudaMemcpyKind, cudaStream_t);
    static auto copy = reinterpret_cast<Copy>(by_hand("libcudart.so", "cudaMemcpyAsync"));
    copy(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);'
# A timer that reports 80% of the truth: every variant of the submission is refused.
new hostile_timer forbidden_symbol
cat >> "$out/hostile_timer/kernels/01_copy_naive.cu" <<'CU'
#include <dlfcn.h>
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    using Real = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
    static auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "cudaEventElapsedTime"));
    cudaError_t status = real(ms, start, end);
    *ms *= 0.8f;
    return status;
}
CU
predict hostile_timer 3600
# Host code that runs before main: reads the hidden shapes and the solutions, writes
# HOME and the course, opens a socket. In the sandbox all of it fails and grading goes
# on as for a correct submission (the writes land nowhere, the reads find nothing).
new hostile_snoop graded
cat >> "$out/hostile_snoop/kernels/01_copy_naive.cu" <<'CU'
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
namespace {
const bool snooped = [] {
    const char* home = std::getenv("HOME");
    for (const char* path : {"instructor/hidden/01-memory-roof.yaml", "../../instructor/hidden/01-memory-roof.yaml",
                             "/work/instructor/hidden/01-memory-roof.yaml"}) {
        if (FILE* f = std::fopen(path, "r")) { std::fclose(f); std::fprintf(stderr, "SNOOP read %s\n", path); }
    }
    if (home) {
        std::string file = std::string(home) + "/snooped.txt";
        if (FILE* f = std::fopen(file.c_str(), "w")) { std::fputs("written\n", f); std::fclose(f); std::fprintf(stderr, "SNOOP wrote %s\n", file.c_str()); }
    }
    if (FILE* f = std::fopen("predictions.yaml", "a")) { std::fputs("# appended\n", f); std::fclose(f); std::fprintf(stderr, "SNOOP appended predictions.yaml\n"); }
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(53);
    address.sin_addr.s_addr = htonl(0x08080808);
    if (s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) std::fprintf(stderr, "SNOOP connected\n");
    if (s >= 0) close(s);
    return true;
}();
}  // namespace
CU
predict hostile_snoop 3600

# A kernel file that is a link to the instructor's solution: staging (outside the sandbox) refuses
# it as unsafe_entry, naming the entry, instead of copying the solution in.
new hostile_link unsafe_entry
rm "$out/hostile_link/kernels/01_copy_naive.cu"
ln -s "$solutions/01_copy_naive.cu" "$out/hostile_link/kernels/01_copy_naive.cu"

# A hostile name: an element with a handler, were it written into report.html unescaped.
# (No comma or quote in it: it stays one plain field of expected.csv and gradebook.csv.)
hostile='<img src=x onerror=document.body.dataset.pwned=1>'
new "$hostile" graded
predict "$hostile" 3600

echo "wrote $(($(wc -l < "$out/expected.csv") - 1)) submissions to $out (expected outcomes: $out/expected.csv)"

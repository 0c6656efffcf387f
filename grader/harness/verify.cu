#include "verify.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline::harness {

namespace {

constexpr int kMaxExamples = 64;
constexpr int kThreads = 256;

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class T> __device__ inline T from_float(float v);
template <> __device__ inline float from_float<float>(float v) { return v; }
template <> __device__ inline double from_float<double>(float v) { return v; }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <> __device__ inline __half from_float<__half>(float v) { return __float2half(v); }

__device__ inline double to_double(float v) { return v; }
__device__ inline double to_double(double v) { return v; }
__device__ inline double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline double to_double(__half v) { return __half2float(v); }

// Poison patterns: quiet NaNs with a payload (0xA5...) that arithmetic never yields.
template <class T> struct PoisonBits;
template <> struct PoisonBits<float> { using Bits = std::uint32_t; static constexpr Bits value = 0x7FC5A5A5u; };
template <> struct PoisonBits<double> { using Bits = std::uint64_t; static constexpr Bits value = 0x7FF8A5A5A5A5A5A5ull; };
template <> struct PoisonBits<__nv_bfloat16> { using Bits = std::uint16_t; static constexpr Bits value = 0x7FE5u; };
template <> struct PoisonBits<__half> { using Bits = std::uint16_t; static constexpr Bits value = 0x7EA5u; };

template <class T>
__global__ void fill_random_kernel(T* data, std::size_t count, std::uint64_t seed, float lo, float hi) {
    std::uint64_t key = splitmix64(seed);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        float unit = (splitmix64(key ^ i) >> 40) * (1.0f / 16777216.0f);  // 24 random bits in [0, 1)
        data[i] = from_float<T>(lo + (hi - lo) * unit);
    }
}

template <class T>
__global__ void poison_kernel(T* data, std::size_t count) {
    using Bits = typename PoisonBits<T>::Bits;
    auto* bits = reinterpret_cast<Bits*>(data);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        bits[i] = PoisonBits<T>::value;
    }
}

struct CompareCounters {
    unsigned long long mismatches;
    unsigned long long unwritten;
    unsigned long long nonfinite;
    unsigned long long max_abs_error_bits;  // a non-negative double's bits order like the double
    double sum_sq_error;
    double sum_sq_ref;
    unsigned int examples_found;
    Mismatch examples[kMaxExamples];
};

template <class T, class R>
__global__ void compare_kernel(const T* got, const R* ref, std::size_t count, double atol, double rtol,
                               CompareCounters* counters) {
    using Bits = typename PoisonBits<T>::Bits;
    double sq_error = 0, sq_ref = 0, max_error = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        T value = got[i];
        double g = to_double(value);
        double r = to_double(ref[i]);
        bool unwritten = reinterpret_cast<const Bits&>(value) == PoisonBits<T>::value;
        bool bad = false;
        if (unwritten) {
            atomicAdd(&counters->unwritten, 1ull);
            bad = true;
        } else if (!isfinite(g)) {
            atomicAdd(&counters->nonfinite, 1ull);
            bad = true;
        } else {
            double error = fabs(g - r);
            bad = error > atol + rtol * fabs(r);
            sq_error += error * error;
            max_error = fmax(max_error, error);
        }
        sq_ref += r * r;
        if (bad) {
            atomicAdd(&counters->mismatches, 1ull);
            unsigned slot = atomicAdd(&counters->examples_found, 1u);
            if (slot < kMaxExamples) counters->examples[slot] = {static_cast<long long>(i), r, g, unwritten};
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sq_error += __shfl_down_sync(0xffffffffu, sq_error, offset);
        sq_ref += __shfl_down_sync(0xffffffffu, sq_ref, offset);
        max_error = fmax(max_error, __shfl_down_sync(0xffffffffu, max_error, offset));
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&counters->sum_sq_error, sq_error);
        atomicAdd(&counters->sum_sq_ref, sq_ref);
        atomicMax(&counters->max_abs_error_bits, static_cast<unsigned long long>(__double_as_longlong(max_error)));
    }
}

int grid_for(std::size_t count) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    std::size_t wanted = (count + kThreads - 1) / kThreads;
    return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, std::size_t(sms) * 8)));
}

std::string describe(const VerifyReport& r, const Tolerance& tol) {
    if (r.guard_bytes_damaged > 0)
        return fmt::format("stray write: {} bytes outside the output were changed (a write past the end or before the start)",
                           r.guard_bytes_damaged);
    if (r.unwritten == r.elements)
        return "nothing written: every output element still holds the NaN poison (was the kernel launched?)";
    if (r.unwritten > 0)
        return fmt::format("{} of {} output elements were never written ({:.1f}%)", r.unwritten, r.elements,
                           100.0 * r.unwritten / r.elements);
    if (r.nonfinite > 0) return fmt::format("{} output elements are NaN or Inf", r.nonfinite);
    if (r.mismatches > 0)
        return fmt::format("{} of {} elements outside tolerance (atol {:g}, rtol {:g}); max error {:.3g}", r.mismatches,
                           r.elements, tol.atol, tol.rtol, r.max_abs_error);
    if (r.rel_l2 > tol.max_rel_l2)
        return fmt::format("relative error norm {:.3g} above the limit {:.3g}", r.rel_l2, tol.max_rel_l2);
    return "correct";
}

}  // namespace

template <class T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
    fill_random_kernel<<<grid_for(count), kThreads, 0, stream>>>(data, count, seed, lo, hi);
    CUDA_CHECK(cudaGetLastError());
}

template <class T>
void poison(T* data, std::size_t count, cudaStream_t stream) {
    poison_kernel<<<grid_for(count), kThreads, 0, stream>>>(data, count);
    CUDA_CHECK(cudaGetLastError());
}

namespace {

// Made once per thread and kept: a judged timing compares every copy after every batch, and
// an allocation, a pageable copy and a wait of their own made each comparison ~0.3 ms
// (run 89) for outputs that take microseconds to read.
struct CompareScratch {
    CompareCounters* device = nullptr;
    CompareCounters* host = nullptr;  // pinned
    unsigned char* guards = nullptr;  // pinned, 2 * kGuardBytes
};

CompareScratch& compare_scratch() {
    thread_local CompareScratch scratch = [] {
        CompareScratch s;
        CUDA_CHECK(cudaMalloc(&s.device, sizeof(CompareCounters)));
        CUDA_CHECK(cudaMallocHost(&s.host, sizeof(CompareCounters)));
        CUDA_CHECK(cudaMallocHost(&s.guards, 2 * kGuardBytes));
        return s;
    }();
    return scratch;
}

}  // namespace

template <class T, class R>
VerifyReport compare(const T* got, const R* ref, std::size_t count, const DeviceBytes& got_storage,
                     const Tolerance& tolerance, cudaStream_t stream) {
    auto& scratch = compare_scratch();
    CompareCounters* counters = scratch.device;
    CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(CompareCounters), stream));
    compare_kernel<<<grid_for(count), kThreads, 0, stream>>>(got, ref, count, tolerance.atol, tolerance.rtol, counters);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(scratch.host, counters, sizeof(CompareCounters), cudaMemcpyDeviceToHost, stream));
    got_storage.copy_guards(scratch.guards, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const CompareCounters host = *scratch.host;

    VerifyReport report;
    report.elements = static_cast<long long>(count);
    report.mismatches = static_cast<long long>(host.mismatches);
    report.unwritten = static_cast<long long>(host.unwritten);
    report.nonfinite = static_cast<long long>(host.nonfinite);
    report.guard_bytes_damaged = static_cast<long long>(got_storage.guard_damage_in(scratch.guards));
    std::memcpy(&report.max_abs_error, &host.max_abs_error_bits, sizeof(double));
    report.rel_l2 = host.sum_sq_ref > 0 ? std::sqrt(host.sum_sq_error / host.sum_sq_ref) : 0;
    std::size_t found = std::min<unsigned>(host.examples_found, kMaxExamples);
    report.first_mismatches.assign(host.examples, host.examples + found);
    std::sort(report.first_mismatches.begin(), report.first_mismatches.end(),
              [](const Mismatch& a, const Mismatch& b) { return a.index < b.index; });
    if (report.first_mismatches.size() > 8) report.first_mismatches.resize(8);
    report.passed = report.mismatches == 0 && report.guard_bytes_damaged == 0 && report.rel_l2 <= tolerance.max_rel_l2;
    report.verdict = describe(report, tolerance);
    return report;
}

#define ROOFLINE_INSTANTIATE_FILL(T)                                                              \
    template void fill_random<T>(T*, std::size_t, std::uint64_t, float, float, cudaStream_t); \
    template void poison<T>(T*, std::size_t, cudaStream_t);
ROOFLINE_INSTANTIATE_FILL(float)
ROOFLINE_INSTANTIATE_FILL(double)
ROOFLINE_INSTANTIATE_FILL(__nv_bfloat16)
ROOFLINE_INSTANTIATE_FILL(__half)

#define ROOFLINE_INSTANTIATE_COMPARE(T, R)                                                            \
    template VerifyReport compare<T, R>(const T*, const R*, std::size_t, const DeviceBytes&, const Tolerance&, \
                                        cudaStream_t);
ROOFLINE_INSTANTIATE_COMPARE(float, float)
ROOFLINE_INSTANTIATE_COMPARE(double, double)
ROOFLINE_INSTANTIATE_COMPARE(__nv_bfloat16, __nv_bfloat16)
ROOFLINE_INSTANTIATE_COMPARE(__nv_bfloat16, float)
ROOFLINE_INSTANTIATE_COMPARE(__half, __half)
ROOFLINE_INSTANTIATE_COMPARE(__half, float)

}  // namespace roofline::harness

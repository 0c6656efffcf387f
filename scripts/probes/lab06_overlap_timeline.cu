// What lab 06's persistent wgmma GEMM (solutions/06-async/kernels/03_wgmma_gemm.cu) does
// over time, seen from inside two of its blocks: the producer thread and each consumer
// warpgroup's first thread read the SM's cycle counter around every wait and every piece
// of work, write the intervals to a buffer, and the host prints them as CSV for lesson
// 06's overlap timeline (grader/lib/profile/overlap_timeline.hpp reads it, svg_lesson_figures.cpp
// draws it). Instructor-side: the kernel is a copy of the reference answer, so the
// student edition leaves this file out.
//
// The kernel below is that file's kernel with stamps added (kRecord = true) or not
// (kRecord = false, the same code the lab grades). Keep the two in step: a change to the
// solution's pipeline belongs here too, or the picture shows a kernel that is not the lab's.
//
// What is stamped (one CSV row per interval, times in ns from the block's first stamp):
//   producer  wait_empty  waiting on empty[stage] before refilling it (k = the slice to load)
//             issue       arrive_expect_tx on full[stage] and the two TMA copies
//   consumerN wait_full   waiting on full[stage] for slice k
//             mma_issue   fence, four wgmma m64n256k16, commit (slice k)
//             mma_wait    wgmma.wait_group until slice k's MMAs are done, and freeing its stage
//                         (in the loop this is the wait<1> after issuing slice k + 1)
//             epilogue    storing the tile's accumulators (k = -1)
// Cycles become ns through the global timer read at the start and end of each recorded
// consumer; one thread's stamps are in program order, so one lane's bars never overlap.
//
// It also checks the kernel (the instrumented output equals the plain one bit for bit, and
// 256 sampled elements match an fp32 reference on the host) and times the plain kernel
// against the instrumented one, interleaved, to state what the stamps cost.
//
// From the course root, on an sm_90 GPU (about 5 s):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Igrader/include \
//       -o /tmp/overlap_timeline scripts/probes/lab06_overlap_timeline.cu grader/harness/tma.cu \
//       && /tmp/overlap_timeline 4096 > overlap-timeline.csv
// The CSV goes to stdout, the check and the overhead to stderr; exit 0 only if the checks pass.
#include "probe_check.cuh"
#include "roofline/ptx/mbarrier.cuh"
#include "roofline/ptx/tma.cuh"
#include "roofline/ptx/wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

namespace {

// ---------------------------------------------------------------- the stamps

enum Event : int { kWaitEmpty, kIssue, kWaitFull, kMmaIssue, kMmaWait, kEpilogue };
const char* const kEventNames[] = {"wait_empty", "issue", "wait_full", "mma_issue", "mma_wait", "epilogue"};
const char* const kRoleNames[] = {"producer", "consumer0", "consumer1"};

constexpr int kRecordedBlocks = 2;  // block 0 and the block in the middle of the grid
constexpr int kRoles = 3;           // producer, consumer 0, consumer 1
constexpr int kMaxStamps = 16384;   // per block and role: 3 per K slice, 64 slices a tile at 4096

struct Stamp {
    long long begin, end;  // SM cycles (clock64)
    int event, tile, k_slice, stage;
};

struct Recording {
    Stamp* stamps;        // [kRecordedBlocks][kRoles][kMaxStamps]
    int* counts;          // [kRecordedBlocks][kRoles]
    long long* calibration;  // [kRecordedBlocks][4]: consumer 0's clock64 and globaltimer at its start and end
};

__device__ inline long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return static_cast<long long>(t);
}

// One recording thread's stamps: kept in registers until written, written with plain stores.
struct Recorder {
    Stamp* out = nullptr;  // null: this thread records nothing
    int count = 0;
    __device__ void add(int event, int tile, int k, int stage, long long begin, long long end) {
        if (out != nullptr && count < kMaxStamps) out[count++] = Stamp{begin, end, event, tile, k, stage};
    }
};

// ---------------------------------------------------------------- the kernel (03_wgmma_gemm.cu's)

constexpr int kBlockM = 128, kBlockN = 256, kBlockK = 64;
constexpr int kStages = 4;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr std::uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr std::uint32_t kBTileBytes = kBlockN * kBlockK * 2;
constexpr int kGroupM = 8;

struct SharedStorage {
    alignas(1024) __nv_bfloat16 a[kStages][kBlockM * kBlockK];
    alignas(1024) __nv_bfloat16 b[kStages][kBlockN * kBlockK];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
};

__device__ inline void tile_position(int tile, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
    const int tiles_per_group = kGroupM * tiles_n;
    const int first_m = (tile / tiles_per_group) * kGroupM;
    const int group_rows = min(tiles_m - first_m, kGroupM);
    tile_m = first_m + (tile % tiles_per_group) % group_rows;
    tile_n = (tile % tiles_per_group) / group_rows;
}

__device__ inline void store_tile(const float (&accumulator)[128], __nv_bfloat16* C, int N, int tile_m, int tile_n,
                                  int consumer) {
    const int warp_in_group = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row = tile_m * kBlockM + consumer * 64 + warp_in_group * 16 + lane / 4;
    const int col = tile_n * kBlockN + 2 * (lane % 4);
    __nv_bfloat16* out = C + std::size_t(row) * N + col;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * j) = __floats2bfloat162_rn(accumulator[4 * j], accumulator[4 * j + 1]);
        *reinterpret_cast<__nv_bfloat162*>(out + 8 * std::size_t(N) + 8 * j) =
            __floats2bfloat162_rn(accumulator[4 * j + 2], accumulator[4 * j + 3]);
    }
}

// Which recorded block this is (0 or 1), or -1.
__device__ inline int recorded_slot() {
    if (blockIdx.x == 0) return 0;
    if (blockIdx.x == gridDim.x / 2 && gridDim.x > 1) return 1;
    return -1;
}

template <bool kRecord>
__global__ void __launch_bounds__(kThreads, 1) gemm_wgmma(const __grid_constant__ CUtensorMap a_map,
                                                          const __grid_constant__ CUtensorMap b_map,
                                                          __nv_bfloat16* C, int M, int N, int K, Recording recording) {
    extern __shared__ unsigned char shared_raw[];
    auto base = (reinterpret_cast<std::uintptr_t>(shared_raw) + 1023) & ~std::uintptr_t(1023);
    auto& shared = *reinterpret_cast<SharedStorage*>(base);

    const int warpgroup = threadIdx.x / 128;
    const int tiles_m = M / kBlockM, tiles_n = N / kBlockN, tiles = tiles_m * tiles_n;
    const int k_slices = K / kBlockK;

    Recorder recorder;
    const int slot = kRecord ? recorded_slot() : -1;
    if (kRecord && slot >= 0 && threadIdx.x % 128 == 0) {
        recorder.out = recording.stamps + (std::size_t(slot) * kRoles + warpgroup) * kMaxStamps;
    }
    long long calibration_cycles = 0, calibration_ns = 0;
    if (kRecord && recorder.out != nullptr && warpgroup == 1) {
        calibration_ns = global_ns();
        calibration_cycles = clock64();
    }

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            roofline::mbarrier::init(&shared.full[s], 1);
            roofline::mbarrier::init(&shared.empty[s], kConsumers * 4);
        }
        roofline::mbarrier::fence_init();
    }
    __syncthreads();

    if (warpgroup == 0) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) {
            roofline::tma::prefetch_map(&a_map);
            roofline::tma::prefetch_map(&b_map);
            int stage = 0;
            std::uint32_t phase = 0;
            int tile_number = 0;  // this block's n-th tile
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++tile_number) {
                int tile_m, tile_n;
                tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
                for (int k = 0; k < k_slices; ++k) {
                    long long t0 = kRecord ? clock64() : 0;
                    roofline::mbarrier::wait(&shared.empty[stage], phase ^ 1);
                    long long t1 = kRecord ? clock64() : 0;
                    roofline::mbarrier::arrive_expect_tx(&shared.full[stage], kATileBytes + kBTileBytes);
                    roofline::tma::load_2d(shared.a[stage], &a_map, tile_m * kBlockM, k * kBlockK, &shared.full[stage]);
                    roofline::tma::load_2d(shared.b[stage], &b_map, tile_n * kBlockN, k * kBlockK, &shared.full[stage]);
                    if (kRecord) {
                        long long t2 = clock64();
                        recorder.add(kWaitEmpty, tile_number, k, stage, t0, t1);
                        recorder.add(kIssue, tile_number, k, stage, t1, t2);
                    }
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
            if (kRecord && recorder.out != nullptr) recording.counts[slot * kRoles + 0] = recorder.count;
        }
        return;
    }

    roofline::wgmma::claim_registers<232>();
    const int consumer = warpgroup - 1;
    const int lane = threadIdx.x % 32;
    float accumulator[128] = {};
    int stage = 0;
    std::uint32_t phase = 0;
    int tile_number = 0;

    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++tile_number) {
        int tile_m, tile_n;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        int previous_stage = -1;
        for (int k = 0; k < k_slices; ++k) {
            long long t0 = kRecord ? clock64() : 0;
            roofline::mbarrier::wait(&shared.full[stage], phase);
            long long t1 = kRecord ? clock64() : 0;
            const std::uint64_t a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
                roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
            const std::uint64_t b_descriptor =
                roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
            roofline::wgmma::fence();
#pragma unroll
            for (int step = 0; step < kBlockK / 16; ++step) {
                roofline::wgmma::mma_m64n256k16_bf16(accumulator, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                     k > 0 || step > 0);
            }
            roofline::wgmma::commit();
            long long t2 = kRecord ? clock64() : 0;
            roofline::wgmma::wait<1>();  // slice k-1's MMAs are done: its stage may be refilled
            if (previous_stage >= 0 && lane == 0) roofline::mbarrier::arrive(&shared.empty[previous_stage]);
            if (kRecord) {
                long long t3 = clock64();
                recorder.add(kWaitFull, tile_number, k, stage, t0, t1);
                recorder.add(kMmaIssue, tile_number, k, stage, t1, t2);
                if (k > 0) recorder.add(kMmaWait, tile_number, k - 1, previous_stage, t2, t3);
            }
            previous_stage = stage;
            if (++stage == kStages) stage = 0, phase ^= 1;
        }
        long long t4 = kRecord ? clock64() : 0;
        roofline::wgmma::wait<0>();
        if (lane == 0) roofline::mbarrier::arrive(&shared.empty[previous_stage]);
        long long t5 = kRecord ? clock64() : 0;

        store_tile(accumulator, C, N, tile_m, tile_n, consumer);
        if (kRecord) {
            long long t6 = clock64();
            recorder.add(kMmaWait, tile_number, k_slices - 1, previous_stage, t4, t5);
            recorder.add(kEpilogue, tile_number, -1, -1, t5, t6);
        }
    }
    if (kRecord && recorder.out != nullptr) {
        recording.counts[slot * kRoles + warpgroup] = recorder.count;
        if (warpgroup == 1) {
            long long* c = recording.calibration + slot * 4;
            c[2] = clock64();
            c[3] = global_ns();
            c[0] = calibration_cycles;
            c[1] = calibration_ns;
        }
    }
}

template <bool kRecord>
void launch(const CUtensorMap& a_map, const CUtensorMap& b_map, __nv_bfloat16* C, int M, int N, int K,
            const Recording& recording) {
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    static const bool configured = [] {
        CHECK_CUDA(cudaFuncSetAttribute(gemm_wgmma<kRecord>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        shared_bytes));
        return true;
    }();
    (void)configured;
    const int tiles = (M / kBlockM) * (N / kBlockN);
    const int blocks = std::min(tiles, roofline::tma::multiprocessor_count());
    gemm_wgmma<kRecord><<<blocks, kThreads, shared_bytes>>>(a_map, b_map, C, M, N, K, recording);
}

// ---------------------------------------------------------------- host side

float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
    if (size <= 0 || size % 256 != 0) {
        std::fprintf(stderr, "usage: %s [SIZE]   (M = N = K = SIZE, a multiple of 256; default 4096)\n", argv[0]);
        return 2;
    }
    const int M = size, N = size, K = size;
    cudaDeviceProp properties{};
    CHECK_CUDA(cudaGetDeviceProperties(&properties, 0));
    if (properties.major != 9) {
        std::fprintf(stderr, "needs a Hopper GPU (compute capability 9.x); this is %s (%d.%d)\n", properties.name,
                     properties.major, properties.minor);
        return 2;
    }

    // Inputs in [-1, 1), bf16.
    std::vector<__nv_bfloat16> hA(std::size_t(M) * K), hB(std::size_t(N) * K);
    std::mt19937 random(20261201);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (auto& v : hA) v = __float2bfloat16(uniform(random));
    for (auto& v : hB) v = __float2bfloat16(uniform(random));
    __nv_bfloat16 *A, *Bt, *C_plain, *C_recorded;
    const std::size_t c_bytes = std::size_t(M) * N * sizeof(__nv_bfloat16);
    CHECK_CUDA(cudaMalloc(&A, hA.size() * sizeof(__nv_bfloat16)));
    CHECK_CUDA(cudaMalloc(&Bt, hB.size() * sizeof(__nv_bfloat16)));
    CHECK_CUDA(cudaMalloc(&C_plain, c_bytes));
    CHECK_CUDA(cudaMalloc(&C_recorded, c_bytes));
    CHECK_CUDA(cudaMemcpy(A, hA.data(), hA.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(Bt, hB.data(), hB.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

    Recording recording{};
    const std::size_t stamp_count = std::size_t(kRecordedBlocks) * kRoles * kMaxStamps;
    CHECK_CUDA(cudaMalloc(&recording.stamps, stamp_count * sizeof(Stamp)));
    CHECK_CUDA(cudaMalloc(&recording.counts, kRecordedBlocks * kRoles * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&recording.calibration, kRecordedBlocks * 4 * sizeof(long long)));
    CHECK_CUDA(cudaMemset(recording.counts, 0, kRecordedBlocks * kRoles * sizeof(int)));
    CHECK_CUDA(cudaMemset(recording.calibration, 0, kRecordedBlocks * 4 * sizeof(long long)));

    const CUtensorMap a_map = roofline::tma::make_2d_bf16(A, M, K, kBlockM, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);
    const CUtensorMap b_map = roofline::tma::make_2d_bf16(Bt, N, K, kBlockN, kBlockK, CU_TENSOR_MAP_SWIZZLE_128B);

    // The recorded run first, on a warm GPU (one plain launch before it), then the checks.
    CHECK_CUDA(cudaMemset(C_plain, 0xFF, c_bytes));
    CHECK_CUDA(cudaMemset(C_recorded, 0xFF, c_bytes));
    launch<false>(a_map, b_map, C_plain, M, N, K, recording);
    launch<true>(a_map, b_map, C_recorded, M, N, K, recording);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<Stamp> stamps(stamp_count);
    std::vector<int> counts(kRecordedBlocks * kRoles);
    std::vector<long long> calibration(kRecordedBlocks * 4);
    CHECK_CUDA(cudaMemcpy(stamps.data(), recording.stamps, stamp_count * sizeof(Stamp), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(counts.data(), recording.counts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(calibration.data(), recording.calibration, calibration.size() * sizeof(long long),
                          cudaMemcpyDeviceToHost));

    // Checks: the stamps must not change the answer; the answer must be a GEMM's.
    bool ok = true;
    std::vector<__nv_bfloat16> plain(std::size_t(M) * N), recorded(std::size_t(M) * N);
    CHECK_CUDA(cudaMemcpy(plain.data(), C_plain, c_bytes, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(recorded.data(), C_recorded, c_bytes, cudaMemcpyDeviceToHost));
    const bool identical = std::memcmp(plain.data(), recorded.data(), c_bytes) == 0;
    ok &= identical;
    int bad = 0;
    double worst = 0;
    std::mt19937 pick(7);
    for (int i = 0; i < 256; ++i) {
        const int row = int(pick() % unsigned(M)), col = int(pick() % unsigned(N));
        double reference = 0;
        for (int k = 0; k < K; ++k)
            reference += double(to_float(hA[std::size_t(row) * K + k])) * to_float(hB[std::size_t(col) * K + k]);
        const double got = to_float(plain[std::size_t(row) * N + col]);
        const double error = std::fabs(got - reference) / (1.0 + std::fabs(reference));
        worst = std::max(worst, error);
        bad += !(error <= 1e-2);  // bf16 output: 8 bits of mantissa
    }
    ok &= bad == 0;
    std::fprintf(stderr, "check: instrumented output %s the plain one; %d of 256 sampled elements off the fp32 "
                 "reference (worst relative error %.2e)\n",
                 identical ? "equals" : "DIFFERS FROM", bad, worst);

    // Overhead: plain and instrumented in turns, each after a memset that evicts the L2.
    const std::size_t flush_bytes = std::size_t(4) * properties.l2CacheSize;
    void* flush;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    std::vector<double> plain_us, recorded_us;
    for (int repeat = 0; repeat < 25; ++repeat) {
        for (int which = 0; which < 2; ++which) {
            CHECK_CUDA(cudaMemsetAsync(flush, repeat, flush_bytes));
            CHECK_CUDA(cudaEventRecord(start));
            if (which == 0) launch<false>(a_map, b_map, C_plain, M, N, K, recording);
            else launch<true>(a_map, b_map, C_recorded, M, N, K, recording);
            CHECK_CUDA(cudaEventRecord(stop));
            CHECK_CUDA(cudaEventSynchronize(stop));
            float ms = 0;
            CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
            (which == 0 ? plain_us : recorded_us).push_back(1000.0 * ms);
        }
    }
    const double plain_median = median(plain_us), recorded_median = median(recorded_us);
    std::fprintf(stderr, "overhead at %d^3: plain %.1f us, instrumented %.1f us (%+.2f%%), medians of 25 each, "
                 "interleaved, L2 flushed before each\n",
                 size, plain_median, recorded_median, 100.0 * (recorded_median / plain_median - 1.0));

    // The CSV: times in ns from each block's first stamp, cycles converted with that block's
    // consumer 0 clock/global-timer pair.
    const int grid = std::min((M / kBlockM) * (N / kBlockN), properties.multiProcessorCount);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::printf("# source: measured on %s (%d SMs), %s, by scripts/probes/lab06_overlap_timeline.cu: lab 06 part 3's "
                "kernel at M = N = K = %d, blocks 0 and %d of %d\n",
                properties.name, properties.multiProcessorCount, date, size, grid / 2, grid);
    std::printf("block,role,event,tile,k_slice,stage,begin_ns,end_ns\n");
    for (int slot = 0; slot < kRecordedBlocks; ++slot) {
        const long long* c = calibration.data() + slot * 4;
        if (c[2] <= c[0] || c[3] <= c[1]) {
            std::fprintf(stderr, "block %d: no clock calibration recorded\n", slot == 0 ? 0 : grid / 2);
            ok = false;
            continue;
        }
        const double ns_per_cycle = double(c[3] - c[1]) / double(c[2] - c[0]);
        long long origin = c[0];
        for (int role = 0; role < kRoles; ++role) {
            const Stamp* s = stamps.data() + (std::size_t(slot) * kRoles + role) * kMaxStamps;
            for (int i = 0; i < counts[slot * kRoles + role]; ++i) origin = std::min(origin, s[i].begin);
        }
        std::fprintf(stderr, "block %d: SM clock %.0f MHz over the kernel; stamps %d / %d / %d\n",
                     slot == 0 ? 0 : grid / 2, 1e3 / ns_per_cycle, counts[slot * kRoles], counts[slot * kRoles + 1],
                     counts[slot * kRoles + 2]);
        for (int role = 0; role < kRoles; ++role) {
            const Stamp* s = stamps.data() + (std::size_t(slot) * kRoles + role) * kMaxStamps;
            const int n = counts[slot * kRoles + role];
            if (n == 0 || n >= kMaxStamps) {
                std::fprintf(stderr, "block %d %s: %d stamps (none, or the buffer filled)\n", slot == 0 ? 0 : grid / 2,
                             kRoleNames[role], n);
                ok = false;
            }
            for (int i = 0; i < n; ++i) {
                std::printf("%d,%s,%s,%d,%d,%d,%.1f,%.1f\n", slot == 0 ? 0 : grid / 2, kRoleNames[role],
                            kEventNames[s[i].event], s[i].tile, s[i].k_slice, s[i].stage,
                            double(s[i].begin - origin) * ns_per_cycle, double(s[i].end - origin) * ns_per_cycle);
            }
        }
    }
    std::fprintf(stderr, "%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

// Lab 06's FP8 GEMM (given/fp8_gemm.cuh's ring, producer and store) with its consumer loop in
// two forms: kPromote, the reference solution's (each K block's four wgmmas start a fresh
// partial, added into fp32 registers), and without, every wgmma accumulating into the same
// registers over all of K. Per-tensor scales (op gemm_fp8).
#include "roofline/gemm.cuh"
#include "roofline/mbarrier.cuh"
#include "roofline/tma.cuh"
#include "roofline/wgmma.cuh"

// Lab 06's given code, from the course tree (this fixture lives in grader/tests/gpu/fixture-root).
#include "../../../../../../../labs/06-async/given/fp8_gemm.cuh"

namespace {

template <bool kPromote>
__global__ void __launch_bounds__(kThreads, 1) gemm_fp8_fixture(const __grid_constant__ CUtensorMap a_map,
                                                                const __grid_constant__ CUtensorMap b_map,
                                                                const float* scale_a, const float* scale_b,
                                                                __nv_bfloat16* C, int M, int N, int K) {
    SharedStorage& shared = shared_storage();
    const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
    const int k_blocks = K / kBlockK;
    init_barriers(shared);
    __syncthreads();
    if (threadIdx.x < 128) {
        roofline::wgmma::release_registers<40>();
        if (threadIdx.x == 0) run_producer(shared, &a_map, &b_map, tiles_m, tiles_n, k_blocks);
        return;
    }
    roofline::wgmma::claim_registers<232>();
    const int consumer = threadIdx.x / 128 - 1;
    float fresh[64] = {};
    int iteration = 0;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int tile_m = 0, tile_n = 0;
        tile_position(tile, tiles_m, tiles_n, tile_m, tile_n);
        float total[64] = {};
        for (int kb = 0; kb < k_blocks; ++kb, ++iteration) {
            const int stage = iteration % kStages;
            roofline::mbarrier::wait(&shared.full[stage], (iteration / kStages) & 1);
            const auto a_descriptor = roofline::wgmma::sw128_kmajor_descriptor(
                roofline::tma::smem_address(shared.a[stage] + consumer * 64 * kBlockK));
            const auto b_descriptor = roofline::wgmma::sw128_kmajor_descriptor(roofline::tma::smem_address(shared.b[stage]));
            roofline::wgmma::fence();
            for (int step = 0; step < kBlockK / kMmaK; ++step) {
                if (kPromote)
                    roofline::wgmma::mma_m64n128k32_e4m3(fresh, a_descriptor + 2 * step, b_descriptor + 2 * step, step > 0);
                else  // the whole of K in the tensor core's accumulator
                    roofline::wgmma::mma_m64n128k32_e4m3(total, a_descriptor + 2 * step, b_descriptor + 2 * step,
                                                         kb > 0 || step > 0);
            }
            roofline::wgmma::commit();
            roofline::wgmma::wait<0>();
            if (threadIdx.x % 32 == 0) roofline::mbarrier::arrive(&shared.empty[stage]);
            if (kPromote)
                for (int i = 0; i < 64; ++i) total[i] += fresh[i];
        }
        store_tile_bf16(total, scale_a[0] * scale_b[0], C, M, N, tile_m, tile_n, consumer);
    }
}

template <bool kPromote>
void launch_fixture(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a, const float* scale_b,
                    __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    auto map_of = [K](const __nv_fp8_e4m3* base, int rows) {
        return roofline::tma::make_2d(base, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, rows, K, kBlockM, kBlockK,
                                      CU_TENSOR_MAP_SWIZZLE_128B);
    };
    const CUtensorMap a_map = map_of(A, M), b_map = map_of(Bt, N);
    constexpr int shared_bytes = sizeof(SharedStorage) + 1024;
    cudaFuncSetAttribute(gemm_fp8_fixture<kPromote>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
    const int tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
    const int blocks = tiles < roofline::tma::multiprocessor_count() ? tiles : roofline::tma::multiprocessor_count();
    gemm_fp8_fixture<kPromote><<<blocks, kThreads, shared_bytes, stream>>>(a_map, b_map, scale_a, scale_b, C, M, N, K);
}

void launch_promoted(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a, const float* scale_b,
                     __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    launch_fixture<true>(A, Bt, scale_a, scale_b, C, M, N, K, stream);
}
void launch_no_promotion(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a, const float* scale_b,
                         __nv_bfloat16* C, int M, int N, int K, cudaStream_t stream) {
    launch_fixture<false>(A, Bt, scale_a, scale_b, C, M, N, K, stream);
}

}  // namespace

ROOFLINE_GEMM_FP8_VARIANT(fp8_promoted, launch_promoted);
ROOFLINE_GEMM_FP8_VARIANT(fp8_no_promotion, launch_no_promotion);

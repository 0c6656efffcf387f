// Inputs, trusted reference and peer for lab 06's FP8 GEMMs (ops gemm_fp8 and
// gemm_fp8_block_scaled; the contract is in grader/include/roofline/contract/gemm.cuh):
// C[M,N] (bf16) = scales * A[M,K] Bt[N,K]^T, A and Bt e4m3, K a multiple of 128.
//
// Inputs: A and Bt uniform in [0, 1) rounded to e4m3; per-tensor scales uniform in
//   [0.25, 1); block scales uniform in [0.25, 2). All positive on purpose: the tensor core's
//   truncated accumulation (lessons/06-async.md, "FP8") then loses the same way on every
//   add, so a kernel that skips the promotion of partial sums is off by a predictable
//   fraction (model.hpp: fp8_unpromoted_expected_loss), and |C| is the sum of |terms|, so a
//   relative tolerance bounds the accumulation error element by element.
// Reference: a plain tiled kernel below (not the student's, not a library's), from the same
//   e4m3 values: each 128-wide K block's products summed in fp32 (e4m3 x e4m3 products are
//   exact in fp32; 128 positive adds lose < 2^-17), the blocks scaled and added in fp64.
//   So the variant's error is its accumulation plus its final rounding to bf16.
// Peer: cuBLASLt's FP8 GEMM with the same scales (A_SCALE_POINTER / B_SCALE_POINTER), e4m3
//   in, bf16 out, fp32 compute, the default (promoted, not "fast") accumulation. Block-scaled:
//   cuBLASLt's VEC128_32F (1 x 128, for A) and BLK128x128_32F (for Bt) scale modes where this
//   cuBLASLt offers them on this GPU; where its heuristics find no algorithm for them, the
//   per-tensor FP8 GEMM at the same shape is the peer (unit scales: only its time counts), and
//   its name says so. cuBLASLt may have no FP8 algorithm at all at an odd verify shape: there
//   the variant is still verified, and only timing would need the peer. The peer is checked
//   against the reference once per process, at the first shape the variant passes where the
//   peer is the real one (the timed shapes, 4096^3 and 8192^3, are among lab 06's verify shapes).
//
// cuBLAS is column-major. Row-major C = A Bt^T is column-major C^T[N,M] = Bt A^T: cuBLAS's
// "A" is our Bt (stored K x N, ld K, transposed: OP_T) and its "B" is our A (K x M, ld K,
// OP_N): the "TN" layout cuBLASLt's FP8 GEMMs require. Its A scale is therefore our scale_b.
#include "roofline/contract/gemm.cuh"

#include "../../harness/registry.hpp"
#include "cublas_check.hpp"
#include "ops.hpp"

#include <cublasLt.h>
#include <cuda_fp8.h>

#include <climits>
#include <iterator>
#include <stdexcept>
#include <string>

namespace roofline::gemm {

namespace {

using harness::DeviceArray;
using harness::Shape;

constexpr std::size_t kPeerWorkspaceBytes = 32u << 20;  // cuBLASLt's scratch; what its heuristics may use
constexpr int kBlock = kFp8ScaleBlock;

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__device__ inline float unit_random(std::uint64_t key, std::size_t i) { return (mix(key ^ i) >> 40) * (1.0f / 16777216.0f); }

__global__ void fill_e4m3_unit(__nv_fp8_e4m3* data, std::size_t count, std::uint64_t seed) {
    const std::uint64_t key = mix(seed);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = __nv_fp8_e4m3(unit_random(key, i));
}

__global__ void fill_scales(float* data, std::size_t count, std::uint64_t seed, float lo, float hi) {
    const std::uint64_t key = mix(seed);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = lo + (hi - lo) * unit_random(key, i);
}

// The reference: one thread per element of C, 16 x 16 per block; A's and Bt's 16 rows of
// one 128-wide K block staged in shared memory as floats.
constexpr int kRefTile = 16;
__global__ void fp8_gemm_reference(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, const float* scale_a,
                                   const float* scale_b, bool block_scaled, float* ref, int M, int N, int K) {
    __shared__ float a_rows[kRefTile][kBlock + 1], b_rows[kRefTile][kBlock + 1];
    const int row = blockIdx.y * kRefTile + threadIdx.y, col = blockIdx.x * kRefTile + threadIdx.x;
    const int k_blocks = K / kBlock;
    const int thread = threadIdx.y * kRefTile + threadIdx.x;
    double total = 0;
    for (int kb = 0; kb < k_blocks; ++kb) {
        for (int i = thread; i < kRefTile * kBlock; i += kRefTile * kRefTile) {
            const int r = i / kBlock, c = i % kBlock;
            const int a_row = blockIdx.y * kRefTile + r, b_row = blockIdx.x * kRefTile + r;
            a_rows[r][c] = a_row < M ? float(A[std::size_t(a_row) * K + kb * kBlock + c]) : 0.0f;
            b_rows[r][c] = b_row < N ? float(Bt[std::size_t(b_row) * K + kb * kBlock + c]) : 0.0f;
        }
        __syncthreads();
        float partial = 0;
        for (int c = 0; c < kBlock; ++c) partial += a_rows[threadIdx.y][c] * b_rows[threadIdx.x][c];
        __syncthreads();
        if (row < M && col < N) {
            const double scale = block_scaled ? double(scale_a[std::size_t(kb) * M + row]) *
                                                    double(scale_b[std::size_t(col / kBlock) * k_blocks + kb])
                                              : 1.0;
            total += scale * partial;
        }
    }
    if (row < M && col < N) {
        if (!block_scaled) total *= double(scale_a[0]) * double(scale_b[0]);
        ref[std::size_t(row) * N + col] = float(total);
    }
}

// The scale layouts the block-scaled peer may want (cuBLASLt's documentation describes
// them by its own column-major operands, which we cannot check without a GPU here): the
// grader copies the contract's scales into the one that makes cuBLASLt agree with the
// reference, found at the first verification (see verify below).
struct PeerScaleLayout {
    bool a_k_block_major;   // our A's 1 x 128 scales: [kb][m] (the contract's) or [m][kb]
    bool bt_k_block_inner;  // our Bt's 128 x 128 scales: [nb][kb] (the contract's) or [kb][nb]
    const char* name;
};
constexpr PeerScaleLayout kPeerScaleLayouts[] = {
    {true, true, "A scales [K/128][M], Bt scales [N/128][K/128]"},
    {false, true, "A scales [M][K/128], Bt scales [N/128][K/128]"},
    {true, false, "A scales [K/128][M], Bt scales [K/128][N/128]"},
    {false, false, "A scales [M][K/128], Bt scales [K/128][N/128]"},
};

__global__ void relayout_scales(const float* scale_a, const float* scale_b, float* peer_a, float* peer_b, int M,
                                int n_blocks, int k_blocks, bool a_k_block_major, bool bt_k_block_inner) {
    const std::size_t a_count = std::size_t(M) * k_blocks, b_count = std::size_t(n_blocks) * k_blocks;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < a_count + b_count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        if (i < a_count) {
            const std::size_t kb = i / M, m = i % M;  // i indexes the contract's [kb][m]
            peer_a[a_k_block_major ? i : m * k_blocks + kb] = scale_a[i];
        } else {
            const std::size_t j = i - a_count, nb = j / k_blocks, kb = j % k_blocks;  // the contract's [nb][kb]
            peer_b[bt_k_block_inner ? j : kb * n_blocks + nb] = scale_b[j];
        }
    }
}

class GemmFp8Problem final : public harness::Problem {
public:
    GemmFp8Problem(LaunchFp8 launch, bool block_scaled) : launch_(launch), block_scaled_(block_scaled) {}

    ~GemmFp8Problem() override {  // no throwing from a destructor
        release_peer_plan();
        if (lt_ != nullptr) cublasLtDestroy(lt_);
    }
    GemmFp8Problem(const GemmFp8Problem&) = delete;
    GemmFp8Problem& operator=(const GemmFp8Problem&) = delete;

    void setup(const Shape& shape) override {
        auto [m, n, k] = harness::shape_sizes<3>(shape, {"m", "n", "k"}, "FP8 gemm shapes (C[m,n] = A[m,k] Bt[n,k]^T)");
        if (m * k > INT_MAX || k * n > INT_MAX || m * n > INT_MAX)
            throw std::invalid_argument("FP8 gemm shape m=" + std::to_string(m) + ", n=" + std::to_string(n) +
                                        ", k=" + std::to_string(k) +
                                        " is too large: each matrix must hold fewer than 2^31 elements");
        if (k % kBlock != 0)
            throw std::invalid_argument("FP8 gemm shapes need k a multiple of 128 (the scale block and the "
                                        "promotion interval); got k=" + std::to_string(k));
        m_ = int(m), n_ = int(n), k_ = int(k);
        const std::size_t k_blocks = k / kBlock, n_blocks = (n + kBlock - 1) / kBlock;
        a_ = DeviceArray<__nv_fp8_e4m3>(std::size_t(m) * k);
        bt_ = DeviceArray<__nv_fp8_e4m3>(std::size_t(n) * k);
        scale_a_ = DeviceArray<float>(block_scaled_ ? std::size_t(m) * k_blocks : 1);
        scale_b_ = DeviceArray<float>(block_scaled_ ? n_blocks * k_blocks : 1);
        peer_scale_a_ = DeviceArray<float>(scale_a_.size());
        peer_scale_b_ = DeviceArray<float>(scale_b_.size());
        c_ = DeviceArray<__nv_bfloat16>(std::size_t(m) * n, /*guarded=*/true);
        reference_ = DeviceArray<float>(std::size_t(m) * n);
        if (lt_ == nullptr) {
            CUBLAS_CHECK(cublasLtCreate(&lt_));
            workspace_ = DeviceArray<unsigned char>(kPeerWorkspaceBytes);
            // Per-tensor unit scales for the fallback peer (block scaling with no cuBLASLt algorithm).
            unit_scales_ = DeviceArray<float>(2);
            const float ones[2] = {1.0f, 1.0f};
            CUDA_CHECK(cudaMemcpy(unit_scales_.data(), ones, sizeof(ones), cudaMemcpyHostToDevice));
        }
        plan_peer();
    }

    void fill_inputs(std::uint64_t seed, cudaStream_t stream) override {
        fill_e4m3_unit<<<1024, 256, 0, stream>>>(a_.data(), a_.size(), seed);
        fill_e4m3_unit<<<1024, 256, 0, stream>>>(bt_.data(), bt_.size(), seed ^ 0x9E3779B97F4A7C15ull);
        const float lo = 0.25f, hi = block_scaled_ ? 2.0f : 1.0f;
        fill_scales<<<256, 256, 0, stream>>>(scale_a_.data(), scale_a_.size(), seed ^ 0x5CA1Eull, lo, hi);
        fill_scales<<<256, 256, 0, stream>>>(scale_b_.data(), scale_b_.size(), seed ^ 0x5CA1E5ull, lo, hi);
        CUDA_CHECK(cudaGetLastError());
        copy_scales_for_peer(stream);
    }

    void poison_outputs(cudaStream_t stream) override {
        harness::poison(c_.data(), c_.size(), stream);
        c_.storage().arm_guards(stream);
    }

    void launch_variant(cudaStream_t stream) override {
        launch_(a_.data(), bt_.data(), scale_a_.data(), scale_b_.data(), c_.data(), m_, n_, k_, stream);
    }

    void compute_reference(cudaStream_t stream) override {
        const dim3 block(kRefTile, kRefTile), grid((n_ + kRefTile - 1) / kRefTile, (m_ + kRefTile - 1) / kRefTile);
        fp8_gemm_reference<<<grid, block, 0, stream>>>(a_.data(), bt_.data(), scale_a_.data(), scale_b_.data(),
                                                       block_scaled_, reference_.data(), m_, n_, k_);
        CUDA_CHECK(cudaGetLastError());
    }

    harness::VerifyReport verify(const harness::Tolerance& tolerance, cudaStream_t stream) override {
        auto report = harness::compare(c_.data(), reference_.data(), c_.size(), c_.storage(), tolerance, stream);
        if (report.passed && !peer_checked_ && check_peer(tolerance, stream))
            poison_outputs(stream);  // the variant's verdict stands; the output buffer is the peer's now
        return report;
    }

    std::vector<harness::InputView> inputs() const override {
        return {harness::input_view("A", a_), harness::input_view("Bt", bt_), harness::input_view("scale_a", scale_a_),
                harness::input_view("scale_b", scale_b_)};
    }

    std::string peer_name() const override {
        const std::string types = "e4m3 in, fp32 compute, bf16 out";
        switch (plan_) {
            case PeerPlan::block_scaled:
                return "cuBLASLt FP8 matmul, VEC128_32F x BLK128x128_32F block scales (" + types + "; " +
                       kPeerScaleLayouts[peer_layout_].name + ")";
            case PeerPlan::per_tensor:
                if (block_scaled_)
                    return "cuBLASLt FP8 matmul with per-tensor scales (this cuBLASLt has no block-scaled FP8 "
                           "algorithm for this GPU and shape; " + types + ")";
                return "cuBLASLt FP8 matmul, per-tensor scales (" + types + ")";
            case PeerPlan::none: break;
        }
        return "cuBLASLt FP8 matmul (no algorithm at this shape)";
    }

    void launch_peer(cudaStream_t stream) override {
        if (plan_ == PeerPlan::none)
            throw std::runtime_error("cuBLASLt has no FP8 algorithm at m=" + std::to_string(m_) + ", n=" +
                                     std::to_string(n_) + ", k=" + std::to_string(k_) +
                                     " (its FP8 GEMMs want N a multiple of 16 bytes of C), so there is no peer to time");
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasLtMatmul(lt_, desc_, &alpha, bt_.data(), layout_bt_, a_.data(), layout_a_, &beta, c_.data(),
                                    layout_c_, c_.data(), layout_c_, &algo_, workspace_.data(), workspace_.size(),
                                    stream));
    }

private:
    void copy_scales_for_peer(cudaStream_t stream) {
        if (!block_scaled_) return;  // the per-tensor peer reads scale_a_ and scale_b_ themselves
        const auto& layout = kPeerScaleLayouts[peer_layout_];
        relayout_scales<<<256, 256, 0, stream>>>(scale_a_.data(), scale_b_.data(), peer_scale_a_.data(),
                                                 peer_scale_b_.data(), m_, (n_ + kBlock - 1) / kBlock, k_ / kBlock,
                                                 layout.a_k_block_major, layout.bt_k_block_inner);
        CUDA_CHECK(cudaGetLastError());
    }

    // The peer against the reference, once per process, at the first shape where the variant
    // passes and the peer is the real one (an odd shape may have no cuBLASLt algorithm; the
    // per-tensor stand-in for a block-scaled peer multiplies by other scales and cannot match).
    // For the block-scaled peer, the scale layouts cuBLASLt may want are tried in turn until one
    // agrees (the first is the contract's own, DeepGEMM's convention). None agreeing is an error
    // that stops the grading: the yardstick must do the same work. Returns whether it checked.
    bool check_peer(const harness::Tolerance& tolerance, cudaStream_t stream) {
        if (plan_ == PeerPlan::none || (block_scaled_ && plan_ != PeerPlan::block_scaled)) return false;
        const int tries = plan_ == PeerPlan::block_scaled ? int(std::size(kPeerScaleLayouts)) : 1;
        std::string verdicts;
        for (int t = 0; t < tries; ++t) {
            if (plan_ == PeerPlan::block_scaled) {
                peer_layout_ = t;
                copy_scales_for_peer(stream);
            }
            poison_outputs(stream);
            launch_peer(stream);
            auto peer = harness::compare(c_.data(), reference_.data(), c_.size(), c_.storage(), tolerance, stream);
            if (peer.passed) {
                peer_checked_ = true;
                return true;
            }
            verdicts += std::string(verdicts.empty() ? "" : "; ") +
                        (plan_ == PeerPlan::block_scaled ? kPeerScaleLayouts[t].name + std::string(": ") : std::string()) +
                        peer.verdict;
        }
        throw std::runtime_error("the peer (" + peer_name() + ") disagrees with the reference at m=" +
                                 std::to_string(m_) + ", n=" + std::to_string(n_) + ", k=" + std::to_string(k_) +
                                 ": " + verdicts + "; it cannot be the yardstick");
    }

    // cuBLASLt's description of the job at the current shape, and the algorithm its heuristics pick.
    void plan_peer() {
        release_peer_plan();
        plan_ = PeerPlan::none;
        if (block_scaled_ && try_plan(true)) {
            plan_ = PeerPlan::block_scaled;
            return;
        }
        release_peer_plan();
        if (try_plan(false)) plan_ = PeerPlan::per_tensor;
        else release_peer_plan();
    }

    // False where this cuBLASLt refuses the job (a scale mode it does not know, no algorithm for
    // this GPU or shape); other failures throw.
    bool try_plan(bool block_scales) {
        CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        const cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof(transposed)));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof(plain)));
        // cuBLAS's A is our Bt, its B our A (see the top of the file).
        const void* bt_scale = block_scales ? peer_scale_b_.data() : block_scaled_ ? unit_scales_.data() : scale_b_.data();
        const void* a_scale = block_scales ? peer_scale_a_.data() : block_scaled_ ? unit_scales_.data() : scale_a_.data();
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &bt_scale, sizeof(bt_scale)));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &a_scale, sizeof(a_scale)));
        if (block_scales) {
            const std::int32_t bt_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
            const std::int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
            if (cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &bt_mode, sizeof(bt_mode)) !=
                    CUBLAS_STATUS_SUCCESS ||
                cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &a_mode, sizeof(a_mode)) !=
                    CUBLAS_STATUS_SUCCESS)
                return false;
        }
        // Column-major views: Bt as K x N (ld K), A as K x M (ld K), C as N x M (ld N).
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_bt_, CUDA_R_8F_E4M3, k_, n_, k_));
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_8F_E4M3, k_, m_, k_));
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_c_, CUDA_R_16BF, n_, m_, n_));

        cublasLtMatmulPreference_t preference = nullptr;
        CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
        const std::size_t workspace_bytes = workspace_.size();
        CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace_bytes, sizeof(workspace_bytes)));
        cublasLtMatmulHeuristicResult_t best{};
        int found = 0;
        auto status = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, layout_bt_, layout_a_, layout_c_, layout_c_,
                                                     preference, 1, &best, &found);
        cublasLtMatmulPreferenceDestroy(preference);
        if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE) return false;
        check_cublas(status, "cublasLtMatmulAlgoGetHeuristic");
        if (found == 0) return false;
        algo_ = best.algo;
        return true;
    }

    void release_peer_plan() {
        if (layout_c_ != nullptr) cublasLtMatrixLayoutDestroy(layout_c_);
        if (layout_a_ != nullptr) cublasLtMatrixLayoutDestroy(layout_a_);
        if (layout_bt_ != nullptr) cublasLtMatrixLayoutDestroy(layout_bt_);
        if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
        layout_c_ = layout_a_ = layout_bt_ = nullptr;
        desc_ = nullptr;
    }

    LaunchFp8 launch_;
    bool block_scaled_;
    enum class PeerPlan { none, per_tensor, block_scaled };
    PeerPlan plan_ = PeerPlan::none;         // what the peer is at the current shape (plan_peer)
    int peer_layout_ = 0;                    // index into kPeerScaleLayouts
    bool peer_checked_ = false;
    int m_ = 0, n_ = 0, k_ = 0;
    cublasLtHandle_t lt_ = nullptr;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t layout_a_ = nullptr, layout_bt_ = nullptr, layout_c_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
    DeviceArray<__nv_fp8_e4m3> a_, bt_;
    DeviceArray<float> scale_a_, scale_b_, peer_scale_a_, peer_scale_b_, unit_scales_;
    DeviceArray<__nv_bfloat16> c_;
    DeviceArray<float> reference_;
    DeviceArray<unsigned char> workspace_;
};

bool add_entry(const char* name, const char* op, LaunchFp8 launch, const char* file, bool block_scaled) {
    return harness::register_variant({name, op, "fp8", file,
                                      [launch, block_scaled] {
                                          return std::unique_ptr<harness::Problem>(
                                              new GemmFp8Problem(launch, block_scaled));
                                      }, harness::invoker_of(launch)});
}

}  // namespace

bool register_gemm_fp8(const char* name, LaunchFp8 launch, const char* file) {
    return add_entry(name, ops::gemm_fp8, launch, file, false);
}
bool register_gemm_fp8_block_scaled(const char* name, LaunchFp8 launch, const char* file) {
    return add_entry(name, ops::gemm_fp8_block_scaled, launch, file, true);
}

}  // namespace roofline::gemm

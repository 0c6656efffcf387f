// Rung 3: weight-only int8 GEMV.                                  (your file: edit the TODOs)
// y[n] = scale[n] * sum_k W[n][k] x[k]: W int8 in [-127, 127], one fp32 scale per
// output channel, x bf16, fp32 accumulation, y rounded once to bf16. Graded
// against cudaMemcpy moving the int8 bytes: half of rung 1's.
//
// Predict before you grade: the bytes at N = K = 8192 and the floor, and the
// speedup over rung 1 the bytes promise. Then the new risk: twice rung 1's
// weights per second, each converted to fp32 before its FMA. A plain int-to-float
// conversion (I2F) issues at a quarter of the FMA rate on Hopper; count the
// instructions per weight you will issue and compare with what 132 SMs can.
#include "roofline/contract/gemv.cuh"

#include <cstdint>

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kRowsPerWarp = 2;             // each 16-byte piece of x then serves 32 weights
[[maybe_unused]] constexpr int kUnroll = 4;  // 16-byte loads per row a lane issues before it uses them

[[maybe_unused]] __device__ __forceinline__ float bf16_lo(std::uint32_t word) { return __uint_as_float(word << 16); }
[[maybe_unused]] __device__ __forceinline__ float bf16_hi(std::uint32_t word) {
    return __uint_as_float(word & 0xffff0000u);
}

[[maybe_unused]] __device__ __forceinline__ uint4 load_streaming(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// Byte i of a word of 4 int8 weights, as an exact fp32.
template <int i>
[[maybe_unused]] __device__ __forceinline__ float int8_at(std::uint32_t word) {
    // TODO: the exact value, without the I2F conversion the header warns about: lesson 09,
    //       section 3's trick, a byte put under the exponent of 2^23 reads as the float 2^23 +
    //       that byte, and one subtraction takes the 2^23 away. Two things to work out: the trick
    //       wants an unsigned byte and the weights are signed (offset them into 0..255 first, and
    //       take the offset away in the same subtraction), and putting byte i of the word under
    //       that exponent is one byte permute (__byte_perm; its selector is in the CUDA Math API
    //       reference). Check it on -127, -1, 0 and 127 by hand.
    return 0.0f;
}

// Requires K % 16 == 0. Warp w of block b owns rows kRowsPerWarp (b kWarpsPerBlock + w) + r.
__global__ __launch_bounds__(kWarpsPerBlock * 32) void gemv_int8_kernel(const std::int8_t* __restrict__ W,
                                                                        const float* __restrict__ scale,
                                                                        const __nv_bfloat16* __restrict__ x,
                                                                        __nv_bfloat16* __restrict__ y, int N, int K) {
    // TODO 1: the warp's kRowsPerWarp rows. A row past N may read another row's weights (its
    //         result is not stored): simpler than a branch inside the loop.
    // TODO 2: each row's dot product with x in fp32, as in rung 1 (16-byte loads of W spread
    //         over the lanes, kUnroll of them per row in flight, W streaming): a 16-byte load
    //         now holds 16 weights, which meet two 16-byte vectors of x, and each x vector
    //         loaded serves every row of the warp. Each weight must meet its own x: work out
    //         which words of which x vectors go with each word of weights; convert with int8_at.
    // TODO 3: each row's lanes reduced to one sum; one lane writes y = bf16(sum * scale[row]):
    //         the scale applies to the finished dot product, once a row.
}

// Any K: one element at a time, one warp per row.
__global__ void gemv_int8_scalar_kernel(const std::int8_t* __restrict__ W, const float* __restrict__ scale,
                                        const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int N,
                                        int K) {
    // TODO: the same result for any K, as rung 1's scalar kernel: one warp per row, one weight
    //       at a time (a plain conversion is fine here), the scale on the sum.
}

void gemv_int8(const std::int8_t* W, const float* scale, const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K,
               cudaStream_t stream) {
    if (N <= 0 || K <= 0) return;
    const int rows_per_block = kWarpsPerBlock * kRowsPerWarp;
    // TODO: the vector kernel whenever its requirement holds, with enough blocks for every row
    //       (rows_per_block a block); the scalar one otherwise.
    (void)rows_per_block;
    gemv_int8_scalar_kernel<<<(N + 7) / 8, 256, 0, stream>>>(W, scale, x, y, N, K);
}

}  // namespace

ROOFLINE_GEMV_INT8_VARIANT(gemv_int8_8192, gemv_int8);
ROOFLINE_GEMV_INT8_VARIANT(gemv_int8_4096x14336, gemv_int8);

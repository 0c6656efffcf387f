// The FP8 wgmma ceiling on Hopper: e4m3 x e4m3 -> fp32 wgmma.m64n256k32 reading both
// operands from shared memory, in a loop, with nothing loaded from global memory. It is
// the compute roof an FP8 GEMM on the H100/H200 can reach at the clock the part holds
// under that load, beside the datasheet's FP8 figure (hardware/*.yaml, peak_tflops.fp8).
//
// Compiled for sm_90a alone (grader/CMakeLists.txt: wgmma exists on no other target);
// the ceilings probe launches it only on a compute capability 9.0 GPU.
#include "wgmma_fp8_probe.cuh"

#include "roofline/ptx/wgmma.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace roofline::ceilings {

namespace {

// One k-tile in the layout a TMA load with 128-byte swizzle leaves (as lab 06's GEMMs read
// it): K-major rows of 128 e4m3 values (128 bytes), A 64 rows, B 256 rows. Each wgmma reads
// a 32-byte slice of every row (k32), so four of them walk the tile.
constexpr int kRowBytes = 128;
constexpr int kATileBytes = 64 * kRowBytes;    //  8 KiB
constexpr int kBTileBytes = 256 * kRowBytes;   // 32 KiB
constexpr int kTileBytes = kATileBytes + kBTileBytes;
constexpr int kKSlicesPerTile = kRowBytes / 32;

// D[64][256] += A[64][32] B[32][256], e4m3 in, fp32 accumulate, both K-major in shared memory
// (the only layout FP8 wgmma takes: it has no transpose immediates). PTX ISA 8.x, "wgmma.mma_async",
// .m64n256k32 with .atype/.btype .e4m3.
__device__ inline void mma_m64n256k32_e4m3(float (&d)[128], std::uint64_t a_descriptor, std::uint64_t b_descriptor) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3\n"
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},\n"
        "%128, %129, accumulate, 1, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a_descriptor), "l"(b_descriptor));
#else
    (void)d, (void)a_descriptor, (void)b_descriptor;
#endif
}

// kWarpgroups warpgroups per block, one block per SM: each warpgroup keeps one 64 x 256 fp32
// accumulator (128 registers a thread) and always has a group of four wgmmas in flight while
// the next is issued (wait<1>), so the tensor cores never wait on an issue.
template <int kWarpgroups>
__global__ void __launch_bounds__(kWarpgroups * 128, 1) wgmma_fp8_kernel(std::uint32_t seed, float* sink) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(1024) std::uint8_t tiles[kTileBytes];
    // e4m3 bytes 0x30..0x3F: 0.5 to 1.875, never zero (tensor cores run faster on zeros), and
    // 64k of their products summed stay far from fp32's range.
    auto* words = reinterpret_cast<std::uint32_t*>(tiles);
    for (int i = threadIdx.x; i < kTileBytes / 4; i += blockDim.x) {
        words[i] = 0x30303030u | (((std::uint32_t(i) * 0x9E3779B9u + seed) >> 4) & 0x0F0F0F0Fu);
    }
    // The tiles were written through the generic proxy; wgmma reads through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    const auto a_address = static_cast<std::uint32_t>(__cvta_generic_to_shared(tiles));
    const std::uint32_t b_address = a_address + kATileBytes;
    float d[128] = {};
    for (int i = 0; i < kWgmmaFp8Iterations; ++i) {
        wgmma::fence();
#pragma unroll
        for (int k = 0; k < kKSlicesPerTile; ++k) {
            mma_m64n256k32_e4m3(d, wgmma::sw128_kmajor_descriptor(a_address + 32 * k),
                                wgmma::sw128_kmajor_descriptor(b_address + 32 * k));
        }
        wgmma::commit();
        wgmma::wait<1>();
    }
    wgmma::wait<0>();
    float total = 0;
#pragma unroll
    for (int j = 0; j < 128; ++j) total += d[j];
    if (total == 12345.0f) sink[blockIdx.x] = total;  // never true; keeps the MMAs
#else
    (void)seed, (void)sink;
#endif
}

}  // namespace

double wgmma_fp8_flops(int warpgroups, int blocks) {
    return kWgmmaFp8Flops * kKSlicesPerTile * double(kWgmmaFp8Iterations) * warpgroups * blocks;
}

void launch_wgmma_fp8(int warpgroups, int blocks, cudaStream_t stream, float* sink) {
    switch (warpgroups) {
        case 2: wgmma_fp8_kernel<2><<<blocks, 2 * 128, 0, stream>>>(7u, sink); break;
        case 3: wgmma_fp8_kernel<3><<<blocks, 3 * 128, 0, stream>>>(7u, sink); break;
        default: throw std::invalid_argument("launch_wgmma_fp8: 2 or 3 warpgroups");
    }
    if (auto status = cudaGetLastError(); status != cudaSuccess) {
        throw std::runtime_error(std::string("the fp8 wgmma probe did not launch: ") + cudaGetErrorString(status));
    }
}

}  // namespace roofline::ceilings

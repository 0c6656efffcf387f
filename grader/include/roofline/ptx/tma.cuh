// Hopper's tensor memory accelerator (TMA), as labs 06, 07 and 10 use it: a tensor map
// describes a 2-D row-major array in global memory and the box (tile) one copy moves;
// one thread then asks for a box by its coordinates and the SM's TMA unit writes it into
// shared memory, counting the bytes on an mbarrier (mbarrier.cuh) as they land.
//
// PTX ISA 8.x, "cp.async.bulk.tensor" and "Tensor maps"; CUDA driver API,
// cuTensorMapEncodeTiled. Boxes are at most 256 elements on a side; with a swizzle
// the inner side is at most the swizzle's width (128 bytes for SWIZZLE_128B).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace roofline::tma {

// The driver's encoder, fetched once through the runtime by the harness (tma.cu), so
// that lab programs need not link libcuda and kernel files never ask the driver for
// entry points themselves (the grader refuses a kernel file that does).
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_entry();

// A tensor map for a row-major [rows][cols] array of `element_type`, copied in boxes of
// [box_rows][box_cols]. `swizzle` must suit the box: the inner side in bytes may not
// exceed the swizzle width.
inline CUtensorMap make_2d(const void* base, CUtensorMapDataType element_type, int element_bytes,
                           std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows, std::uint32_t box_cols,
                           CUtensorMapSwizzle swizzle) {
    CUtensorMap map{};
    const cuuint64_t dims[2] = {cols, rows};  // innermost first
    const cuuint64_t row_stride_bytes[1] = {cols * element_bytes};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    CUresult status = encode_tiled_entry()(&map, element_type, 2, const_cast<void*>(base), dims, row_stride_bytes, box,
                                           element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS)
        throw std::runtime_error("cuTensorMapEncodeTiled failed (error " + std::to_string(int(status)) + ") for a " +
                                 std::to_string(rows) + " x " + std::to_string(cols) + " array, box " +
                                 std::to_string(box_rows) + " x " + std::to_string(box_cols) +
                                 ": rows must be 16-byte multiples and the base 16-byte aligned");
    return map;
}

inline CUtensorMap make_2d_bf16(const __nv_bfloat16* base, std::uint64_t rows, std::uint64_t cols,
                                std::uint32_t box_rows, std::uint32_t box_cols,
                                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
    return make_2d(base, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, rows, cols, box_rows, box_cols, swizzle);
}

// The GPU's multiprocessor count: the size of a persistent grid (one block per SM).
inline int multiprocessor_count() {
    static const int count = [] {
        int device = 0, value = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device);
        return value;
    }();
    return count;
}

// Shared-memory address of a pointer, as PTX's .shared::cta instructions want it.
__device__ inline std::uint32_t smem_address(const void* pointer) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// One box whose top-left element is (row, col) into `destination`; the bytes are
// counted on `barrier`, which the issuing thread armed with arrive_expect_tx.
__device__ inline void load_2d(void* destination, const CUtensorMap* map, int row, int col, std::uint64_t* barrier) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        :
        : "r"(smem_address(destination)), "l"(map), "r"(col), "r"(row), "r"(smem_address(barrier))
        : "memory");
}

// The same copy without a tensor map: `bytes` contiguous bytes of global memory (a multiple
// of 16; both addresses 16-byte aligned) into shared memory, counted on `barrier` as load_2d's
// are (PTX ISA 8.x, "cp.async.bulk"). Nothing past `bytes` is read: a copy of a run of rows
// whose end is not a tile's end (lab 10's cache rows up to a sequence's length) stops there.
__device__ inline void load_1d(void* destination, const void* source, std::uint32_t bytes, std::uint64_t* barrier) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :
                 : "r"(smem_address(destination)), "l"(source), "r"(bytes), "r"(smem_address(barrier))
                 : "memory");
}

// Asks the L2 for `bytes` (a multiple of 16, from a 16-byte aligned address) of global memory,
// with nothing written anywhere and nothing to wait for: a bulk prefetch, one thread's instruction.
__device__ inline void prefetch_l2(const void* source, std::uint32_t bytes) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" : : "l"(source), "r"(bytes) : "memory");
}

// Pulls the map's 128 bytes into the constant cache before the first copy needs them.
__device__ inline void prefetch_map(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];" : : "l"(map) : "memory");
}

// The other direction: a box of shared memory (written by this block's threads, laid out
// as the map's box and swizzle say) stored to global memory at (row, col) by the TMA unit.
// The threads that wrote the box must first make their writes visible to the TMA unit
// (fence_shared_to_async, then a barrier among them); then one thread calls store_2d and
// commit_stores. Before the box's shared memory is written again, that thread calls
// wait_stores_read<0>() (the TMA unit has read it); before the kernel ends, wait_stores<0>().
__device__ inline void store_2d(const CUtensorMap* map, int row, int col, const void* source) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :
                 : "l"(map), "r"(col), "r"(row), "r"(smem_address(source))
                 : "memory");
}

// Closes the stores issued so far by this thread into one bulk group.
__device__ inline void commit_stores() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most kGroupsPending of this thread's store groups still read shared memory.
template <int kGroupsPending>
__device__ inline void wait_stores_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kGroupsPending) : "memory");
}

// Waits until at most kGroupsPending of this thread's store groups are still incomplete.
template <int kGroupsPending>
__device__ inline void wait_stores() {
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(kGroupsPending) : "memory");
}

// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads.
__device__ inline void fence_shared_to_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

}  // namespace roofline::tma

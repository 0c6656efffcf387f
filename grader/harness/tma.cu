#include "roofline/ptx/tma.cuh"

namespace roofline::tma {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_entry() {
    static PFN_cuTensorMapEncodeTiled_v12000 entry = [] {
        void* function = nullptr;
        cudaDriverEntryPointQueryResult found{};
        cudaError_t status =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found);
        if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || function == nullptr)
            throw std::runtime_error("cuTensorMapEncodeTiled is not available from this driver");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
    }();
    return entry;
}

}  // namespace roofline::tma

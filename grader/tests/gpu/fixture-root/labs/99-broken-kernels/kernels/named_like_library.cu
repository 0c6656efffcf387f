// The function_pointer fixture's copy through cuBLAS, plus a host function that carries
// the exact name of the kernel cuBLAS runs for it (copy_kernel<float>, read off
// libcublas.so.13's strings: _Z11copy_kernelIfEv16cublasCopyParamsIT_E). A check that took
// every name the objects define for a kernel of the file's own would pass it; only names
// with a device stub (__device_stub__) count, so it is refused as forbidden_call.
#include "roofline/contract/elementwise.cuh"

#include "library_lookup.hpp"

template <class T>
struct cublasCopyParams {
    const T* x;
};
template <class T>
void copy_kernel(cublasCopyParams<T>) {}
template void copy_kernel<float>(cublasCopyParams<float>);

namespace {

using Create = int (*)(void**);
using SetStream = int (*)(void*, cudaStream_t);
using Scopy = int (*)(void*, int, const float*, int, float*, int);

void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    static auto create = reinterpret_cast<Create>(find_function("libcublas.so", "cublasCreate_v2"));
    static auto set_stream = reinterpret_cast<SetStream>(find_function("libcublas.so", "cublasSetStream_v2"));
    static auto scopy = reinterpret_cast<Scopy>(find_function("libcublas.so", "cublasScopy_v2"));
    static void* handle = [] {
        void* h = nullptr;
        create(&h);
        return h;
    }();
    set_stream(handle, stream);
    scopy(handle, static_cast<int>(n), x, 1, y, 1);
}

}  // namespace

ROOFLINE_COPY_VARIANT(named_like_library, launch);

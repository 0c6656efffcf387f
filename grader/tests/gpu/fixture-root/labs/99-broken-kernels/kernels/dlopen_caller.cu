// Reaches cuBLAS through dlopen and dlsym, so that no cuBLAS name appears in its
// object: refused at link time for dlopen/dlsym themselves (forbidden_call).
#include "roofline/contract/elementwise.cuh"

#include <dlfcn.h>

namespace {
using Create = int (*)(void**);
using SetStream = int (*)(void*, cudaStream_t);
using Scopy = int (*)(void*, int, const float*, int, float*, int);

void launch(const float* x, float* y, std::size_t n, cudaStream_t stream) {
    static void* library = dlopen("libcublas.so.13", RTLD_NOW);
    static auto create = reinterpret_cast<Create>(dlsym(library, "cublasCreate_v2"));
    static auto set_stream = reinterpret_cast<SetStream>(dlsym(library, "cublasSetStream_v2"));
    static auto scopy = reinterpret_cast<Scopy>(dlsym(library, "cublasScopy_v2"));
    static void* handle = [] {
        void* h = nullptr;
        create(&h);
        return h;
    }();
    set_stream(handle, stream);
    scopy(handle, static_cast<int>(n), x, 1, y, 1);
}
}  // namespace

ROOFLINE_COPY_VARIANT(dlopen_caller, launch);

// Calls cuBLAS without naming it: finds cublasScopy_v2 in the loaded library's
// symbol table by hand (dl_iterate_phdr and the ELF file) and calls it through a
// function pointer. Nothing in its object refers to cuBLAS, dlopen or dlsym, so the
// link-time check passes it; the run-time check sees a kernel it does not define.
#include "roofline/contract/elementwise.cuh"

#include "library_lookup.hpp"

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

ROOFLINE_COPY_VARIANT(function_pointer, launch);

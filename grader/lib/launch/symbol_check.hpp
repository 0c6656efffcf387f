// The link-time gate on a submission's objects, run before its lab program starts.
//
// A kernel file is linked into the same program as the harness that times it, so
// it could replace the harness's functions (define cudaEventElapsedTime and scale
// what it returns) or hand the work to a library (call cublasSgemm). Reading the
// objects' symbol tables with `nm` refuses both before anything runs:
//  - forbidden_symbol: an object defines, with external linkage, a symbol that the
//    CUDA runtime, driver or libraries, the C/C++ runtime or the harness also define;
//  - forbidden_call: an object refers to a function that does the lab's work for it
//    or reaches code the grader did not hand out (cuBLAS, cuDNN, dlopen/dlsym,
//    driver entry points, cudaMemcpy/cudaMemset unless lab.yaml `allow_calls` them).
// The run-time half (every kernel launched during a variant's run is the
// submission's own) is in the lab program: grader/harness/launch_watch.hpp.
#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace roofline {

// <build>/labs/<target>.objects: the kernel files' objects and the libraries linked with them.
struct LinkManifest {
    std::filesystem::path file;
    std::vector<std::filesystem::path> objects;
    std::vector<std::string> libraries;  // files, or -l/-L flags (ignored here)
};
// The manifest beside a lab program: <program>.objects (CMake and `roofline batch` write it).
std::filesystem::path link_manifest_file(const std::filesystem::path& executable);
LinkManifest load_link_manifest(const std::filesystem::path& file);  // InputError when unreadable
void write_link_manifest(const LinkManifest& manifest);

struct SymbolFinding {
    std::filesystem::path object;  // the offending object file
    std::string symbol;            // as in the object (mangled)
    std::string readable;          // demangled where it is C++
    std::string why;               // "the CUDA runtime defines it", "cuBLAS does the work", ...
};

// The device name of the kernel whose host stub `symbol` names, or nothing. nvcc writes a
// stub _Z<length>__device_stub__<the device name less its leading _><the stub's parameters>
// for each __global__ function (_ZL... for internal linkage); an optimized build often
// inlines the stub away and keeps only its local statics (_ZGVZL<length>__device_stub__...E5__tmp),
// which name it the same way.
std::optional<std::string> kernel_of_stub(const std::string& symbol);

struct SymbolCheck {
    std::vector<SymbolFinding> forbidden_symbols;
    std::vector<SymbolFinding> forbidden_calls;
    std::string error;  // nm could not read something: the check did not happen
    std::vector<std::string> missing_objects;  // named by the link manifest, not on disk: not built
    std::set<std::string> defined;  // every symbol the objects define
    // The kernels, read off the host stubs nvcc writes for each __global__ function
    // (kernel_of_stub): a host function that only takes a kernel's name is none.
    std::set<std::string> kernels;             // device names, mangled
    // nvcc tags an anonymous namespace per compilation, so the same kernel's name differs
    // between the stub and the GPU's records: both demangle alike.
    std::set<std::string> kernels_anonymous;   // demangled, for kernels in an anonymous namespace
    std::set<std::string> kernels_c_linkage;   // extern "C" kernels, which run under their plain name
    void add_kernel(const std::string& device_name);
    bool defines_kernel(const std::string& device_name) const;
    bool clean() const { return forbidden_symbols.empty() && forbidden_calls.empty() && error.empty(); }
};

// `allowed_calls`: families lab.yaml allows, from {"cudaMemcpy", "cudaMemset"}.
SymbolCheck check_symbols(const LinkManifest& manifest, const std::vector<std::string>& allowed_calls);

// Whether lab.yaml's `allow_calls` lists this family ("cudaMemcpy", "cudaMemset").
bool call_allowed(const std::vector<std::string>& allow_calls, const std::string& family);
// libfoo.so, libfoo.so.13.0: a shared library (its exported symbols are read with nm -D).
bool is_shared_library(const std::string& file);

// Why a referenced (undefined) function may not be called, or "" when it may.
std::string forbidden_call_reason(const std::string& symbol, const std::vector<std::string>& allowed_calls);

// C++ names as a person reads them; the name itself when it is not mangled.
std::string demangle(const std::string& name);

// One line per finding, for a report: "kernels/07_warptiled.cu.o calls cublasSgemm_v2 (cuBLAS does the work)".
std::string describe(const SymbolCheck& check);

}  // namespace roofline

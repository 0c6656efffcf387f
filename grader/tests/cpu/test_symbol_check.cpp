// The link-time gate (symbol_check.hpp) on the fixture labs' real objects, which every
// build compiles: a kernel file that calls cuBLAS or dlopen is refused for those calls,
// one that redefines a CUDA runtime function for that symbol, and no lab's skeleton or
// solution trips it. None of this needs a GPU: the gate runs before the device is asked.
#include "test_support.hpp"

#include "lab_spec.hpp"
#include "symbol_check.hpp"

#include <algorithm>

using namespace roofline_test;

namespace {

fs::path build_dir() { return ROOFLINE_BINARY_DIR; }
fs::path fixture_root() { return repo_root() / "grader" / "tests" / "gpu" / "fixture-root"; }

roofline::SymbolCheck check_program(const std::string& target, std::vector<std::string> allow = {}) {
    auto manifest = roofline::load_link_manifest(build_dir() / "labs" / (target + ".objects"));
    return roofline::check_symbols(manifest, allow);
}

std::vector<std::string> findings_for(const std::vector<roofline::SymbolFinding>& findings, const std::string& object) {
    std::vector<std::string> names;
    for (const auto& f : findings) {
        if (f.object.filename() == object) names.push_back(f.symbol);
    }
    return names;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("symbol check: which calls do the lab's work for it", "[symbols]") {
    using roofline::forbidden_call_reason;
    CHECK(contains(forbidden_call_reason("cublasSgemm_v2", {}), "cuBLAS"));
    CHECK(contains(forbidden_call_reason("cublasLtMatmul", {}), "cuBLAS"));
    CHECK(contains(forbidden_call_reason("cudnnBackendExecute", {}), "cuDNN"));
    CHECK(contains(forbidden_call_reason("dlsym", {}), "dlopen/dlsym"));
    CHECK(contains(forbidden_call_reason("cudaGetDriverEntryPointByVersion", {}), "driver functions"));
    CHECK(contains(forbidden_call_reason("cuLaunchKernel", {}), "driver API"));
    CHECK(contains(forbidden_call_reason("cudaMemcpyAsync", {}), "allow_calls"));
    CHECK(forbidden_call_reason("cudaMemcpyAsync", {"cudaMemcpy"}).empty());
    CHECK(contains(forbidden_call_reason("cudaMemsetAsync", {"cudaMemcpy"}), "allow_calls"));
    // What kernel files need: launching, attributes, graphs, device queries.
    for (const char* fine : {"__cudaLaunchKernel", "cudaLaunchKernelExC", "cudaFuncSetAttribute", "cudaGetDevice",
                             "cudaStreamBeginCapture", "cudaGraphLaunch", "cudaDeviceGetAttribute", "memcpy"}) {
        INFO(fine);
        CHECK(forbidden_call_reason(fine, {}).empty());
    }
}

TEST_CASE("symbol check: the broken-kernel fixture's library callers are refused for their calls", "[symbols]") {
    auto check = check_program("lab-99-broken-kernels");
    INFO(roofline::describe(check));
    REQUIRE(check.error.empty());
    CHECK(check.forbidden_symbols.empty());
    auto cublas = findings_for(check.forbidden_calls, "cublas_caller.cu.o");
    CHECK(has(cublas, "cublasScopy_v2"));
    CHECK(has(cublas, "cublasCreate_v2"));
    auto dl = findings_for(check.forbidden_calls, "dlopen_caller.cu.o");
    CHECK(has(dl, "dlopen"));
    CHECK(has(dl, "dlsym"));
    CHECK(findings_for(check.forbidden_calls, "correct.cu.o").empty());
    // The pointer it finds by hand leaves no name behind: the run-time check (GPU tests) catches it.
    CHECK(findings_for(check.forbidden_calls, "function_pointer.cu.o").empty());
    // Its kernels are known by name, for the run-time check, from nvcc's stubs (an optimized
    // build keeps only the stubs' statics).
    CHECK(std::any_of(check.kernels.begin(), check.kernels.end(),
                      [](const std::string& s) { return contains(s, "copy_kernel"); }));
}

TEST_CASE("symbol check: a kernel file that redefines a runtime function is refused for the symbol", "[symbols]") {
    auto check = check_program("lab-98-interposers");
    INFO(roofline::describe(check));
    REQUIRE(check.error.empty());
    CHECK(has(findings_for(check.forbidden_symbols, "clock_scaler.cu.o"), "cudaEventElapsedTime"));
    CHECK(has(findings_for(check.forbidden_symbols, "peer_wrapper.cu.o"), "cublasSgemm_v2"));
    CHECK(contains(roofline::describe(check), "clock_scaler.cu.o defines cudaEventElapsedTime"));
}

TEST_CASE("symbol check: every lab's skeleton and solution pass the gate", "[symbols]") {
    for (const auto& lab : roofline::load_labs(repo_root() / "labs")) {
        for (const char* kind : {"lab-", "solution-"}) {
            auto manifest = build_dir() / "labs" / (kind + lab.id + ".objects");
            if (!fs::exists(manifest)) continue;  // solution-* in the student edition
            DYNAMIC_SECTION(kind << lab.id) {
                auto check = roofline::check_symbols(roofline::load_link_manifest(manifest), lab.allow_calls);
                INFO(roofline::describe(check));
                CHECK(check.clean());
                CHECK_FALSE(check.defined.empty());
                // Every kernel a host object holds (its own symbol, `t`, in an anonymous namespace
                // in these labs) is found through a stub.
                for (const auto& name : check.defined) {
                    if (name.find("_GLOBAL__N_") == std::string::npos || name.find("_kernel") == std::string::npos ||
                        name.find("__device_stub__") != std::string::npos || name.ends_with(".cold"))
                        continue;
                    auto readable = roofline::demangle(name);
                    if (readable.find("(anonymous namespace)::") == std::string::npos) continue;
                    INFO(readable);
                    CHECK(check.kernels_anonymous.count(readable) == 1);
                }
            }
        }
    }
}

TEST_CASE("symbol check: a malformed object list names its file and line", "[symbols]") {
    TempDir dir;
    write_file(dir / "lab-x.objects", "object=/a.o\nsomething else\n");
    auto message = input_error_of([&] { roofline::load_link_manifest(dir / "lab-x.objects"); });
    check_mentions(message, {"lab-x.objects:2", "object=<file>"});
}

// On a machine without a GPU the gate still answers: it comes before the device query.
TEST_CASE("cli: a cuBLAS caller is refused at link time, a redefined timer for the whole program", "[symbols][cli]") {
    auto root = " --root " + shell_quote(fixture_root().string()) + " --build-dir " + shell_quote(build_dir().string());
    auto flags = std::string(" --no-build");
    auto cublas = run_cli(root + " run 99-broken-kernels/cublas_caller" + flags);
    INFO(cublas.all());
    CHECK(cublas.exit_code == 8);
    check_mentions(cublas.all(), {"forbidden_call", "cublasScopy_v2"});

    auto clock = run_cli(root + " run 98-interposers/peer_wrapper" + flags);
    INFO(clock.all());
    CHECK(clock.exit_code == 8);
    CHECK(contains(clock.all(), "forbidden_symbol"));
    CHECK(contains(clock.all(), "cudaEventElapsedTime"));  // the other file's symbol taints this variant too
}

TEST_CASE("lab.yaml: allow_calls takes only copies and memsets", "[symbols][lab_spec]") {
    TempDir dir;
    auto lab = dir / "labs" / "50-x";
    fs::create_directories(lab / "kernels");
    write_file(lab / "kernels" / "k.cu", "");
    auto text = read_file(test_data() / "labs" / "good_elementwise" / "lab.yaml");
    write_file(lab / "lab.yaml", text + "allow_calls: [cudaMemcpy, cublasSgemm]\n");
    auto message = input_error_of([&] { roofline::load_lab(lab / "lab.yaml"); });
    check_mentions(message, {"cublasSgemm", "never allowed"});
    write_file(lab / "lab.yaml", text + "allow_calls: [cudaMemcpy]\n");
    CHECK(roofline::load_lab(lab / "lab.yaml").allow_calls == std::vector<std::string>{"cudaMemcpy"});
}

#include "../../harness/clock_cross_check.hpp"

TEST_CASE("timing cross-check: events inside the global timer's bracket agree; shrunk ones are refused", "[symbols]") {
    using roofline::harness::ClockCrossCheck;
    using roofline::harness::timing_disagreement;
    // A 3 ms GEMM: the bracket adds a few microseconds.
    CHECK_FALSE(timing_disagreement({{3.000e-3, 3.004e-3}}, {"variant"}));
    // A 5 us kernel: launch gaps are most of the bracket, and still no refusal.
    CHECK_FALSE(timing_disagreement({{5e-6, 12e-6}}, {"variant"}));
    // Events scaled to 80%, as the clock-scaling interposer did: refused, named.
    auto shrunk = timing_disagreement({{3.004e-3, 3.004e-3}, {2.40e-3, 3.004e-3}}, {"variant", "peer"});
    REQUIRE(shrunk);
    CHECK(contains(*shrunk, "peer timing disagrees"));
    // Events longer than the bracket around them cannot happen either.
    CHECK(timing_disagreement({{4.0e-3, 3.0e-3}}, {"variant"}));
    // No stamps (a timer that does not tick): nothing to compare, nothing refused.
    CHECK_FALSE(timing_disagreement({{3.0e-3, 0}}, {"variant"}));
}

TEST_CASE("judged clock: a runner's events a little under the judge's clock pass, within its noise too; far under, refused",
          "[symbols]") {
    using roofline::harness::judged_clock_refuses;
    // A 545 us copy: the judge's clock 2% over the events, a tight median: agreed.
    CHECK_FALSE(judged_clock_refuses(556e-6, 545e-6, 0.002));
    // Run 90's launch storm: 2787.23 us judged, 2696.72 us by the events (3.4% over), the
    // judge's median uncertain by ~2.6%: its own noise covers the gap, so no refusal...
    CHECK_FALSE(judged_clock_refuses(2787.23e-6, 2696.72e-6, 0.026));
    // ...while the same gap on a clock with no noise is refused (the old rule: 3% + 5 us).
    CHECK(judged_clock_refuses(2787.23e-6, 2696.72e-6, 0.0));
    // Events that hide a third of the work are refused whatever the noise within reason.
    CHECK(judged_clock_refuses(300e-6, 200e-6, 0.03));
}

// Shared libraries list their symbols with a version (malloc@@GLIBC_2.2.5): a kernel file's
// malloc or operator new must still be found among the C and C++ runtimes' own.
TEST_CASE("symbol check: redefining a C or C++ runtime function is refused", "[symbols]") {
    TempDir dir;
    write_file(dir / "runtime.cpp",
               "#include <cstddef>\n"
               "extern \"C\" void* malloc(std::size_t) { return nullptr; }\n"
               "void* operator new(std::size_t) { return nullptr; }\n"
               "namespace { int helper() { return 1; } }\n"
               "int kernel_file_entry() { return helper(); }\n");
    auto object = dir / "runtime.cpp.o";
    auto command = "c++ -c -O0 " + shell_quote((dir / "runtime.cpp").string()) + " -o " + shell_quote(object.string());
    REQUIRE(std::system(command.c_str()) == 0);
    roofline::LinkManifest manifest;
    manifest.objects = {object};
    auto check = roofline::check_symbols(manifest, {});
    INFO(roofline::describe(check));
    REQUIRE(check.error.empty());
    auto refused = findings_for(check.forbidden_symbols, "runtime.cpp.o");
    CHECK(has(refused, "malloc"));
    CHECK(has(refused, "_Znwm"));
    CHECK_FALSE(has(refused, "_Z17kernel_file_entryv"));  // its own function, defined nowhere else
}

// The libraries' listings are kept between gradings (a batch reads the same dozen per
// submission); a submission's objects never are, and a cache that cannot be written is no error.
TEST_CASE("symbol check: library listings are cached, objects are not, an unwritable cache is harmless",
          "[symbols][cli]") {
    auto root = " --root " + shell_quote(fixture_root().string()) + " --build-dir " + shell_quote(build_dir().string());
    TempDir cache;
    ::setenv("ROOFLINE_CACHE_DIR", cache.path().c_str(), 1);
    auto first = run_cli(root + " run 98-interposers/clock_scaler --no-build");
    INFO(first.all());
    CHECK(first.exit_code == 8);
    auto manifest = roofline::load_link_manifest(build_dir() / "labs" / "lab-98-interposers.objects");
    std::size_t listings = 0;
    for (const auto& entry : fs::directory_iterator(cache / "nm")) listings += entry.path().extension() == ".txt";
    CHECK(listings >= manifest.libraries.size() - 2);  // the -l flags have no file
    for (const auto& entry : fs::directory_iterator(cache / "nm")) {
        // clock_scaler.cu's own kernel: in its object's listing only, which is never kept.
        CHECK_FALSE(contains(read_file(entry.path()), "naive_gemm"));
    }

    TempDir blocked;
    write_file(blocked / "nm", "a file where the cache folder would go");
    ::setenv("ROOFLINE_CACHE_DIR", blocked.path().c_str(), 1);
    auto second = run_cli(root + " run 98-interposers/clock_scaler --no-build");
    ::unsetenv("ROOFLINE_CACHE_DIR");
    INFO(second.all());
    CHECK(second.exit_code == 8);
    CHECK(contains(second.all(), "cudaEventElapsedTime"));
}

// An object the link manifest names but no build made (a failed build, or --no-build before
// any build) is the build's failure, named as such: not a forbidden symbol (run 90 called a
// lab whose given headers had not moved "forbidden_symbol").
TEST_CASE("symbol check: objects that were never built are named as missing, not as forbidden", "[symbols]") {
    roofline::LinkManifest manifest;
    manifest.objects = {std::filesystem::temp_directory_path() / "roofline-never-built" / "01_copy.cu.o"};
    auto check = roofline::check_symbols(manifest, {});
    REQUIRE(check.missing_objects.size() == 1);
    CHECK(check.missing_objects.front().find("01_copy.cu.o") != std::string::npos);
    CHECK(check.error.find("not built") != std::string::npos);
    CHECK(check.forbidden_symbols.empty());
}

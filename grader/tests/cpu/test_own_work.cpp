// The grader's judgement of what a run launched (own_work.hpp), on lab-program answers
// written by hand: the GPU tests run the same judgement on real CUPTI records.
#include "test_support.hpp"

#include "own_work.hpp"

using namespace roofline_test;
using roofline::protocol::Result;
using roofline::protocol::WatchedLaunches;
using Kernels = std::map<std::string, long long>;

namespace {

// A host object's name for a templated kernel in an anonymous namespace, and the name the
// GPU reports for the same kernel (nvcc tags the device name with the file).
const char* kHostName = "_ZN12_GLOBAL__N_122copy_vectorized_kernelIfEEvPKT_PS1_m";
const char* kDeviceName = "_ZN59_GLOBAL__N__a059721f_21_02_copy_vectorized_cu_6633f2b5_280122copy_vectorized_kernelIfEEvPKT_PS1_m";
const char* kLibraryKernel = "_Z14scopy_kernel_vIfLi256EEvPKT_PS0_i";

// Host stubs as nvcc 13 writes them (nm of a kernel file's object): the kernels are read off these.
const char* kAnonymousStub = "_ZL93__device_stub__ZN36_GLOBAL__N__1f2e3d4c_5_k_cu_6633f2b522copy_vectorized_kernelIfEEvPKT_PS1_mPKfPfm";
const char* kPlainStub = "_Z32__device_stub__Z12plain_kernelPfPf";

roofline::SymbolCheck kernel_file() {
    roofline::SymbolCheck check;
    for (const char* stub : {kAnonymousStub, kPlainStub}) {
        check.defined.insert(stub);
        check.add_kernel(roofline::kernel_of_stub(stub).value());
    }
    check.defined.insert(kHostName);
    return check;
}

WatchedLaunches launched(Kernels kernels, long long copies = 0, Kernels other = {}) {
    return {.watched = true, .kernels = kernels, .other_stream_kernels = other, .copies = copies, .memsets = 0};
}

Result result_with(WatchedLaunches launch) {
    Result result;
    result.checks.emplace_back().launched = launch;
    return result;
}

}  // namespace

TEST_CASE("own work: the kernel file's kernels pass under either of their names", "[own_work]") {
    REQUIRE(roofline::demangle(kHostName) == roofline::demangle(kDeviceName));
    auto verdict = roofline::judge_own_work(result_with(launched({{kDeviceName, 3}, {"_Z12plain_kernelPf", 1}})),
                                            kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::correct);
    CHECK(verdict.message.empty());
}

TEST_CASE("own work: a kernel the kernel file does not define is a forbidden call, named", "[own_work]") {
    auto verdict = roofline::judge_own_work(result_with(launched({{kDeviceName, 1}, {kLibraryKernel, 1}})),
                                            kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::forbidden_call);
    CHECK(contains(verdict.message, "scopy_kernel_v<float, 256>"));
    CHECK_FALSE(contains(verdict.message, "copy_vectorized_kernel"));
}

TEST_CASE("own work: copies are refused unless lab.yaml allows them", "[own_work]") {
    auto result = result_with(launched({{kDeviceName, 1}}, 2));
    auto refused = roofline::judge_own_work(result, kernel_file(), {});
    CHECK(refused.outcome == roofline::Outcome::forbidden_call);
    CHECK(contains(refused.message, "2 cudaMemcpy copies"));
    CHECK(roofline::judge_own_work(result, kernel_file(), {"cudaMemcpy"}).outcome == roofline::Outcome::correct);
}

TEST_CASE("own work: a kernel on another stream is incorrect, with the fix", "[own_work]") {
    auto verdict = roofline::judge_own_work(
        result_with(launched({{kDeviceName, 1}}, 0, {{kDeviceName, 1}})), kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::incorrect);
    CHECK(contains(verdict.message, "legacy default stream"));
}

TEST_CASE("own work: the kernel file's kernel inside the peer's run is refused", "[own_work]") {
    auto result = result_with(launched({{kDeviceName, 1}}));
    result.peer_launched = launched({{kLibraryKernel, 1}, {"_Z12plain_kernelPf", 1}});
    auto verdict = roofline::judge_own_work(result, kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::forbidden_call);
    CHECK(contains(verdict.message, "peer"));
    result.peer_launched = launched({{kLibraryKernel, 1}});
    CHECK(roofline::judge_own_work(result, kernel_file(), {}).outcome == roofline::Outcome::correct);
}

TEST_CASE("own work: the replayed timed launches are judged as the checks are", "[own_work]") {
    Result result = result_with(launched({{kDeviceName, 1}}));
    result.replay = roofline::protocol::Replay{.shape = {{"n", 1}}, .launches = 3, .median_s = 1e-5,
                                               .launched = launched({{kDeviceName, 2}, {kLibraryKernel, 1}})};
    auto verdict = roofline::judge_own_work(result, kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::forbidden_call);
    CHECK(contains(verdict.message, "scopy_kernel_v<float, 256>"));
    result.replay->launched = launched({{kDeviceName, 3}});
    CHECK(roofline::judge_own_work(result, kernel_file(), {}).outcome == roofline::Outcome::correct);
}

TEST_CASE("own work: where CUPTI could not watch, the grade says so and goes on", "[own_work]") {
    auto result = result_with({.watched = false, .error = "cuptiActivityEnable: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS"});
    auto verdict = roofline::judge_own_work(result, kernel_file(), {});
    CHECK(verdict.outcome == roofline::Outcome::correct);
    check_mentions(verdict.note, {"did not run", "MULTIPLE_SUBSCRIBERS"});
}

TEST_CASE("own work: timed launches far faster than the same launches watched are refused", "[own_work]") {
    auto graded = [](double median_s) {
        Result result;
        result.timing.emplace().variant.median_s = median_s;
        return result;
    };
    auto watched = [](double median_s) {
        Result result;
        result.checks.emplace_back().when = "before timing";
        result.replay = roofline::protocol::Replay{.shape = {{"n", 1}}, .launches = 40, .median_s = median_s, .launched = {}};
        return result;
    };
    SECTION("a kernel that is slower watched (CUPTI's cost per launch) passes") {
        auto comparison = roofline::compare_replay(graded(100e-6), watched(250e-6));
        REQUIRE(comparison.has_value());
        CHECK_FALSE(comparison->refused);
        CHECK(comparison->launches == 40);
    }
    SECTION("one that ran 10x faster when timed is refused, with both times named") {
        auto comparison = roofline::compare_replay(graded(10e-6), watched(100e-6));
        REQUIRE(comparison.has_value());
        CHECK(comparison->refused);
        CHECK(contains(comparison->message, "took 10 us"));
        CHECK(contains(comparison->message, "took 100 us"));
    }
    SECTION("no replay in the watched result: nothing to compare") {
        CHECK_FALSE(roofline::compare_replay(graded(10e-6), Result{}).has_value());
        CHECK_FALSE(roofline::compare_replay(Result{}, watched(100e-6)).has_value());
    }
}

TEST_CASE("own work: kernels are read off nvcc's host stubs", "[own_work]") {
    CHECK(roofline::kernel_of_stub("_Z24__device_stub__Z5plainPfPf") == std::optional<std::string>("_Z5plainPf"));
    CHECK(roofline::kernel_of_stub("_Z30__device_stub__ZN2ns5innerEiPfiPf") ==
          std::optional<std::string>("_ZN2ns5innerEiPf"));
    CHECK(roofline::kernel_of_stub("_Z23__device_stub__Z4cfunPfPf") == std::optional<std::string>("_Z4cfunPf"));
    // An optimized build keeps only the stub's local statics: they name the kernel as well.
    CHECK(roofline::kernel_of_stub("_ZZ24__device_stub__Z5plainPfPfE3__f") == std::optional<std::string>("_Z5plainPf"));
    CHECK(roofline::kernel_of_stub(
              "_ZGVZL107__device_stub__ZN55_GLOBAL__N__7bff21f1_16_01_copy_naive_cu_6633f2b5_2363417copy_naive_"
              "kernelIfEEvPKT_PS1_mPKfPfmE5__tmp") ==
          std::optional<std::string>(
              "_ZN55_GLOBAL__N__7bff21f1_16_01_copy_naive_cu_6633f2b5_2363417copy_naive_kernelIfEEvPKT_PS1_m"));
    // The kernel's host symbol and plain functions are no stubs.
    CHECK_FALSE(roofline::kernel_of_stub("_Z5plainPf").has_value());
    CHECK_FALSE(roofline::kernel_of_stub("_Z15__device_stub__").has_value());
    CHECK_FALSE(roofline::kernel_of_stub("_Z99__device_stub__short").has_value());

    roofline::SymbolCheck check;
    check.add_kernel("_Z4cfunPf");  // extern "C" __global__ void cfun(float*): the GPU names it cfun
    CHECK(check.defines_kernel("cfun"));
    CHECK_FALSE(check.defines_kernel("scopy"));
}

TEST_CASE("own work: a host function named like a library kernel does not make that kernel the file's own",
          "[own_work]") {
    auto check = kernel_file();
    check.defined.insert(kLibraryKernel);  // void scopy_kernel_v<float, 256>(...) {} on the host
    auto verdict = roofline::judge_own_work(result_with(launched({{kLibraryKernel, 1}})), check, {});
    CHECK(verdict.outcome == roofline::Outcome::forbidden_call);
    CHECK(contains(verdict.message, "scopy_kernel_v<float, 256>"));
}

#include "judge.hpp"

#include "cuda_check.hpp"
#include "shared_buffers.hpp"

#include <cuda_runtime.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <stdexcept>

namespace roofline::harness {

namespace {
struct JudgeState {
    bool judge = false;
    std::vector<std::string> runner_argv;
    KindFinder find_kind = nullptr;
    std::string variant;  // where launches go
    double last_launch_s = 0;
    std::map<std::string, VariantEntry> entries;
};
JudgeState& state() {
    static JudgeState s;
    return s;
}
}  // namespace

void become_judge(std::vector<std::string> runner_argv, KindFinder find_kind) {
    state().judge = true;
    state().runner_argv = std::move(runner_argv);
    state().find_kind = find_kind;
}

bool is_judge() { return state().judge; }

void ensure_runner(double limit_s) {
    auto& runner = RemoteRunner::instance();
    if (runner.started()) return;
    state().entries.clear();
    // The runner's CUDA start overlaps the judge's, which the allocator set-up makes.
    runner.start(state().runner_argv, limit_s);
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    const auto& theirs = runner.hello().value("device", nlohmann::json::object());
    if (theirs.value("pci_bus_id", -1) != prop.pciBusID || theirs.value("pci_device_id", -1) != prop.pciDeviceID)
        throw std::runtime_error("the lab program sees another GPU than the judge (" + theirs.dump() +
                                 "): both must run on one device");
    enable_shared_allocation(device, {[](long long id, std::size_t bytes, int fd) {
                                          RemoteRunner::instance().export_buffer(id, bytes, fd);
                                      },
                                      [](long long id) { RemoteRunner::instance().release_buffer(id); }});
}

std::vector<std::string> runner_variant_names() {
    std::vector<std::string> names;
    for (const auto& v : RemoteRunner::instance().hello().value("variants", nlohmann::json::array()))
        if (v.is_object() && v.value("name", nlohmann::json()).is_string()) names.push_back(v["name"].get<std::string>());
    return names;
}

const VariantEntry* judge_entry(const std::string& name) {
    ensure_runner();
    auto& s = state();
    s.variant = name;
    if (auto it = s.entries.find(name); it != s.entries.end()) return &it->second;
    for (const auto& v : RemoteRunner::instance().hello().value("variants", nlohmann::json::array())) {
        if (!v.is_object() || v.value("name", std::string()) != name) continue;
        const std::string problem = v.value("problem", std::string()), dtype = v.value("dtype", std::string()),
                          signature = v.value("signature", std::string());
        const VariantEntry* kind = s.find_kind(problem, dtype, signature);
        if (!kind)
            throw std::runtime_error("variant '" + name + "' registers as " + problem + " (" + dtype +
                                     ") with a launch of kinds '" + signature + "', which no problem family has");
        VariantEntry entry = *kind;
        entry.name = name;
        entry.source_file = v.value("source_file", std::string());
        return &s.entries.emplace(name, std::move(entry)).first->second;
    }
    return nullptr;
}

RunnerLaunch launch_remotely(double launch_timeout_s) {
    auto launched = RemoteRunner::instance().launch(state().variant, launch_timeout_s);
    if (!launched.event_s.empty()) {
        auto sorted = launched.event_s;
        std::sort(sorted.begin(), sorted.end());
        state().last_launch_s = sorted[sorted.size() / 2];
    }
    return launched;
}

double last_remote_launch_s() { return state().last_launch_s; }

const std::string& current_variant() { return state().variant; }

void die_like_runner(const RunnerGone& gone) {
    std::fprintf(stderr, "roofline judge: %s\n", gone.what());
    std::fflush(nullptr);
    if (gone.signal > 0) {
        rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        ::signal(gone.signal, SIG_DFL);
        ::raise(gone.signal);
    }
    std::_Exit(gone.exit_code);
}

}  // namespace roofline::harness

// The runner: the lab program started with --runner by a judge (judge_main.cpp). It holds
// the student's kernel files and does one thing: launch a registered variant on the judge's
// buffers when asked, and say when it is done. It decides nothing: the inputs, the outputs'
// poison, the reference, the comparison and the clock that counts are all the judge's, in a
// process this one never runs in. What it reports (its own event times) is a cross-check.
//
// Messages (runner_channel.hpp), on the socket the judge left at fd 3:
//   runner -> judge   {"hello": {"variants": [...], "device": {...}}}, first
//   judge -> runner   {"op": "import", "id", "bytes"} + a descriptor   -> {"ok": true}
//                     {"op": "release", "id"}                          -> {"ok": true}
//                     {"op": "launch", "variant", "calls": [[...], ...], "launch_timeout_s"}
//                         -> {"ok": true, "event_s": [...] (the batch's events over its launches),
//                             "legacy_stream_busy": bool}
//                     the same with "baseline": true: one empty kernel in place of the
//                     launches, for the judge's fixed costs (remote_runner.hpp)
//   any failure       {"error": "...", "kind": "cuda_error" | "hang" | "bad_call"}; after a CUDA
//                     error or a hang the runner ends (its context may be broken).
#include "runner_serve.hpp"

#include "cuda_check.hpp"
#include "hang_watch.hpp"
#include "measure.cuh"
#include "registry.hpp"
#include "runner_channel.hpp"
#include "shared_buffers.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <cstdlib>

namespace roofline::harness {

namespace {

nlohmann::json hello() {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& e : registered_variants())
        variants.push_back({{"name", e.name}, {"problem", e.problem}, {"dtype", e.dtype},
                            {"source_file", e.source_file}, {"signature", e.invoker.signature}});
    int device = 0;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return {{"variants", variants},
            {"device", {{"name", prop.name}, {"pci_bus_id", prop.pciBusID}, {"pci_device_id", prop.pciDeviceID}}}};
}

nlohmann::json failure(const std::string& kind, const std::string& message) {
    return {{"error", message}, {"kind", kind}};
}

// The launches of one request, each between two events; waits for them under the limit.
nlohmann::json launch(const nlohmann::json& request, cudaStream_t stream) {
    const std::string name = request.at("variant").get<std::string>();
    const VariantEntry* entry = find_variant(name);
    if (!entry) return failure("bad_call", "no variant '" + name + "' is registered in this lab program");
    if (!entry->invoker.invoke) return failure("bad_call", "variant '" + name + "' cannot be called remotely");
    const auto& calls = request.at("calls");
    if (!calls.is_array()) return failure("bad_call", "calls must be an array");
    const double limit_s = request.value("launch_timeout_s", 0.0);
    // The baseline: the same request, one empty kernel for its work (remote_runner.hpp).
    const bool baseline = request.value("baseline", false);
    // Two events around the whole batch (made once and kept): an event between two launches
    // would cost a tiny kernel more than the kernel, and the baseline would not pay it.
    static const std::pair<cudaEvent_t, cudaEvent_t> events = [] {
        cudaEvent_t begin = nullptr, end = nullptr;
        CUDA_CHECK(cudaEventCreate(&begin));
        CUDA_CHECK(cudaEventCreate(&end));
        return std::pair{begin, end};
    }();
    CUDA_CHECK(cudaEventRecord(events.first, stream));
    for (std::size_t i = 0; i < calls.size(); ++i) {
        if (!baseline) entry->invoker.invoke(calls[i], stream);
        else if (i == 0) launch_empty_kernel(stream);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaEventRecord(events.second, stream));
    const bool on_legacy_stream = legacy_stream_busy();
    if (on_legacy_stream) wait_for_stream(cudaStreamLegacy, limit_s);
    wait_for_stream(stream, limit_s);
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events.first, events.second));
    // One figure a call: the batch's time over its launches.
    std::vector<double> seconds(calls.size(), ms * 1e-3 / std::max<std::size_t>(1, calls.size()));
    return {{"ok", true}, {"event_s", seconds}, {"legacy_stream_busy", on_legacy_stream}};
}

}  // namespace

int serve_as_runner() {
    const Channel channel(kRunnerSocketFd);
    cudaStream_t stream = nullptr;
    try {
        CUDA_CHECK(cudaFree(nullptr));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        channel.send({{"hello", hello()}});
    } catch (const std::exception& e) {
        channel.send(failure("no_device", e.what()));
        return 4;
    }
    set_hang_handler([&channel](double limit_s) {
        channel.send(failure("hang", fmt::format("a kernel was still running {:g} s after its launch", limit_s)));
        std::fflush(nullptr);
        std::_Exit(5);
    });
    for (;;) {
        int fd = -1;
        nlohmann::json request;
        try {
            request = channel.receive(0, &fd);
        } catch (const ChannelError&) {
            return 0;  // the judge is gone, or done with us
        }
        try {
            const std::string op = request.value("op", "");
            if (op == "import") {
                if (fd < 0) throw WireError("an import without a descriptor");
                import_buffer(request.at("id").get<long long>(), request.at("bytes").get<std::size_t>(), fd);
                channel.send({{"ok", true}});
            } else if (op == "release") {
                release_imported_buffer(request.at("id").get<long long>());
                channel.send({{"ok", true}});
            } else if (op == "launch") {
                channel.send(launch(request, stream));
            } else if (op == "quit") {
                return 0;
            } else {
                channel.send(failure("bad_call", "unknown request '" + op + "'"));
            }
        } catch (const CudaError& e) {
            channel.send(failure("cuda_error", e.what()));
            return 3;
        } catch (const std::exception& e) {
            if (fd >= 0 && request.value("op", "") != "import") ::close(fd);
            channel.send(failure("bad_call", e.what()));
        }
    }
}

}  // namespace roofline::harness

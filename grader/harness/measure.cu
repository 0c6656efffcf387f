#include "measure.cuh"
#include "hang_watch.hpp"
#include "lab_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace roofline::harness {

MeasureConfig measure_config_of(const protocol::Job& job) {
    MeasureConfig config;
    config.min_samples = job.min_samples;
    config.max_samples = job.max_samples;
    config.target_rse = job.target_rse;
    config.time_cap_s = job.time_cap_s;
    config.flush_l2 = job.flush_l2;
    config.launch_timeout_s = job.launch_timeout_s;
    return config;
}

namespace {

__device__ inline unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void clock_probe_kernel(unsigned long long spin_ns, unsigned long long* out) {
    unsigned long long t0 = global_timer_ns();
    long long c0 = clock64();
    unsigned long long t1 = t0;
    while (t1 - t0 < spin_ns) t1 = global_timer_ns();
    long long c1 = clock64();
    out[0] = static_cast<unsigned long long>(c1 - c0);
    out[1] = t1 - t0;
}

__global__ void stamp_kernel(unsigned long long* out) { *out = global_timer_ns(); }

double percentile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    double pos = q * (sorted.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(pos));
    auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

// A memset this large leaves none of the timed work's data in the L2: twice its size.
std::size_t l2_flush_bytes() {
    int device = 0, l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    return std::max<std::size_t>(2 * std::size_t(l2_bytes), 64u << 20);
}

// The SM clock's median, min and max over a run's samples, into either result type.
template <class Result>
void summarize_clocks(std::vector<double> clocks, Result& result) {
    std::sort(clocks.begin(), clocks.end());
    result.sm_clock_mhz_median = percentile(clocks, 0.5);
    result.sm_clock_mhz_min = clocks.empty() ? 0 : clocks.front();
    result.sm_clock_mhz_max = clocks.empty() ? 0 : clocks.back();
}

}  // namespace

SampleStats summarize(std::vector<double> samples_s) {
    SampleStats s;
    s.count = static_cast<int>(samples_s.size());
    if (samples_s.empty()) return s;
    s.samples_s = samples_s;
    std::sort(samples_s.begin(), samples_s.end());
    s.median_s = percentile(samples_s, 0.5);
    s.q1_s = percentile(samples_s, 0.25);
    s.q3_s = percentile(samples_s, 0.75);
    s.min_s = samples_s.front();
    s.mean_s = std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / s.count;
    if (s.count > 1) {
        double var = 0;
        for (double x : samples_s) var += (x - s.mean_s) * (x - s.mean_s);
        var /= (s.count - 1);
        s.rse = std::sqrt(var / s.count) / s.mean_s;
        if (s.median_s > 0) s.median_rse = 1.2533 * (s.q3_s - s.q1_s) / 1.349 / std::sqrt(double(s.count)) / s.median_s;
        else s.median_rse = std::numeric_limits<double>::infinity();
    }
    return s;
}

double sample_sm_clock_mhz(cudaStream_t stream) {
    unsigned long long* out = nullptr;
    CUDA_CHECK(cudaMallocAsync(&out, 2 * sizeof(unsigned long long), stream));
    clock_probe_kernel<<<1, 1, 0, stream>>>(20000, out);  // 20 us: globaltimer ticks are ~1 us or finer
    CUDA_CHECK(cudaGetLastError());
    unsigned long long host[2] = {0, 0};
    CUDA_CHECK(cudaMemcpyAsync(host, out, sizeof(host), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaFreeAsync(out, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return host[1] > 0 ? 1e3 * double(host[0]) / double(host[1]) : 0;
}

MeasureResult measure_interleaved(const std::vector<TimedTarget>& targets, const MeasureConfig& config,
                                  cudaStream_t stream) {
    MeasureResult result;
    result.l2_flush_bytes = config.flush_l2 ? l2_flush_bytes() : 0;
    DeviceBytes flush_buffer(result.l2_flush_bytes);

    for (const auto& target : targets) {
        for (int i = 0; i < config.warmup_launches; ++i) target.launch(stream);
    }
    CUDA_CHECK(cudaGetLastError());
    wait_for_stream(stream, config.launch_timeout_s * config.warmup_launches * targets.size());

    // Two global-timer stamps per sample: [target][sample][before, after].
    const std::size_t stamp_slots = targets.size() * std::size_t(config.max_samples) * 2;
    DeviceBytes stamps(stamp_slots * sizeof(unsigned long long));
    auto* stamp = static_cast<unsigned long long*>(stamps.data());
    auto stamp_index = [&](std::size_t t, std::size_t sample) { return (t * config.max_samples + sample) * 2; };
    auto slot = [&](std::size_t t, std::size_t sample, int end) { return stamp + stamp_index(t, sample) + end; };

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<std::vector<double>> samples(targets.size());
    std::vector<double> clocks;
    auto began = std::chrono::steady_clock::now();
    std::uint8_t flush_value = 0;

    auto converged = [&] {
        for (const auto& s : samples) {
            if (int(s.size()) < config.min_samples) return false;
            if (summarize(s).rse > config.target_rse) return false;
        }
        return true;
    };

    while (true) {
        for (std::size_t t = 0; t < targets.size(); ++t) {
            if (config.flush_l2) {
                CUDA_CHECK(cudaMemsetAsync(flush_buffer.data(), ++flush_value, flush_buffer.bytes(), stream));
            }
            stamp_kernel<<<1, 1, 0, stream>>>(slot(t, samples[t].size(), 0));
            CUDA_CHECK(cudaEventRecord(start, stream));
            targets[t].launch(stream);
            CUDA_CHECK(cudaEventRecord(stop, stream));
            stamp_kernel<<<1, 1, 0, stream>>>(slot(t, samples[t].size(), 1));
            CUDA_CHECK(cudaGetLastError());
            wait_for_event(stop, config.launch_timeout_s);
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            samples[t].push_back(ms * 1e-3);
            if (t == 0) clocks.push_back(sample_sm_clock_mhz(stream));
        }
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        if (converged()) break;
        // The cap never cuts a run below min_samples: a slow kernel gets its 10 samples.
        bool enough = int(samples[0].size()) >= config.min_samples;
        if (int(samples[0].size()) >= config.max_samples || (enough && elapsed > config.time_cap_s)) {
            result.hit_time_cap = true;
            break;
        }
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));

    for (auto& s : samples) result.stats.push_back(summarize(s));
    std::vector<unsigned long long> host_stamps(stamp_slots);
    CUDA_CHECK(cudaMemcpyAsync(host_stamps.data(), stamp, stamp_slots * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t t = 0; t < targets.size(); ++t) {
        std::vector<double> brackets;
        for (std::size_t i = 0; i < samples[t].size(); ++i) {
            const auto* pair = &host_stamps[stamp_index(t, i)];
            brackets.push_back(pair[1] > pair[0] ? double(pair[1] - pair[0]) * 1e-9 : 0.0);
        }
        result.cross_checks.push_back({result.stats[t].median_s, summarize(brackets).median_s});
    }
    summarize_clocks(clocks, result);
    return result;
}

}  // namespace roofline::harness

namespace roofline::harness {

namespace {
__global__ void empty_kernel() {}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One batch's time a launch: the batch less the baselines' median. A batch no longer than the
// empty request is below what this clock resolves: it counts as the baselines' own spread, the
// least the clock could have seen (never zero, which a size sweep cannot take).
double per_launch_sample(double batch_s, const SampleStats& empty, int launches) {
    const double resolution_s = std::max(empty.q3_s - empty.q1_s, 1e-9) / launches;
    return std::max((batch_s - empty.median_s) / launches, resolution_s);
}
}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK(cudaGetLastError());
}

BatchMeasureResult measure_batches(const std::vector<BatchTarget>& targets, const MeasureConfig& config,
                                   cudaStream_t stream) {
    BatchMeasureResult result;
    result.l2_flush_bytes = config.flush_l2 ? l2_flush_bytes() : 0;
    DeviceBytes flush_buffer(result.l2_flush_bytes);
    std::uint8_t flush_value = 0;
    auto settle = [&] {  // the judge's own work done, the L2 holding none of the batch's data
        if (config.flush_l2)
            CUDA_CHECK(cudaMemsetAsync(flush_buffer.data(), ++flush_value, flush_buffer.bytes(), stream));
        wait_for_stream(stream, config.launch_timeout_s);
    };

    for (const auto& target : targets) {  // warm-up: one batch and one baseline each, untimed but checked
        target.prepare(stream);
        settle();
        target.run();
        if (!target.check(stream)) {
            result.check_failed = true;
            return result;
        }
        settle();
        target.run_empty();  // the first pays for loading the empty kernel's module
    }

    const std::size_t n = targets.size();
    std::vector<std::vector<double>> samples(n), batches(n), events(n), empties(n);
    std::vector<double> clocks;
    const auto began = std::chrono::steady_clock::now();
    auto converged = [&] {
        for (const auto& s : samples)
            if (int(s.size()) < config.min_samples || summarize(s).median_rse > config.target_rse) return false;
        return true;
    };
    auto& phases = result.phases;
    auto timed = [](double& sum, auto&& work) {
        const auto t0 = std::chrono::steady_clock::now();
        work();
        sum += seconds_since(t0);
    };
    while (true) {
        ++phases.rounds;
        for (std::size_t t = 0; t < n; ++t) {
            const auto& target = targets[t];
            timed(phases.prepare_s, [&] { target.prepare(stream); });
            timed(phases.settle_s, settle);
            auto t0 = std::chrono::steady_clock::now();
            auto launch_events = target.run();
            const double batch_s = seconds_since(t0);
            phases.batch_s += batch_s;
            bool checked = false;
            timed(phases.check_s, [&] { checked = target.check(stream); });
            if (!checked) {
                result.check_failed = true;
                return result;
            }
            timed(phases.settle_s, settle);
            t0 = std::chrono::steady_clock::now();
            target.run_empty();
            empties[t].push_back(seconds_since(t0));
            phases.empty_s += empties[t].back();
            // Against the baselines so far, for the stopping rule; every sample is taken again
            // against all the baselines at the end.
            batches[t].push_back(batch_s);
            samples[t].push_back(per_launch_sample(batch_s, summarize(empties[t]), target.launches));
            for (double e : launch_events) events[t].push_back(e);
            if (t == 0) timed(phases.clock_s, [&] { clocks.push_back(sample_sm_clock_mhz(stream)); });
        }
        if (converged()) break;
        const bool enough = int(samples[0].size()) >= config.min_samples;
        if (int(samples[0].size()) >= config.max_samples || (enough && seconds_since(began) > config.time_cap_s)) {
            result.hit_time_cap = true;
            break;
        }
    }
    for (const auto& target : targets) {
        if (target.final_check && !target.final_check(stream)) {
            result.check_failed = true;
            return result;
        }
    }
    for (std::size_t t = 0; t < n; ++t) {
        const auto empty = summarize(empties[t]);
        for (std::size_t i = 0; i < batches[t].size(); ++i)
            samples[t][i] = per_launch_sample(batches[t][i], empty, targets[t].launches);
        result.per_launch.push_back(summarize(samples[t]));
        result.event_per_launch.push_back(summarize(events[t]));
        result.empty_round_trip.push_back(summarize(empties[t]));
    }
    summarize_clocks(clocks, result);
    return result;
}

}  // namespace roofline::harness

// Timing one launch at a time with CUDA events, with the L2 flushed before each
// sample (outside the timed region) and the samples of several targets
// interleaved (A, B, A, B ...) so that a variant and its peer see the same
// thermal and clock state. Sampling stops when every target's relative standard
// error is under the goal, after at least `min_samples`, or at the time cap.
#pragma once
#include "clock_cross_check.hpp"
#include "device_buffer.hpp"

#include <functional>
#include <string>
#include <vector>

namespace roofline::protocol {
struct Job;
}

namespace roofline::harness {

// How a measurement samples. All but the warm-up are a job's settings, made by
// measure_config_of: their defaults are the Job's (protocol/lab_job.hpp), stated once.
struct MeasureConfig {
    int warmup_launches = 2;
    int min_samples = 0;
    int max_samples = 0;
    double target_rse = 0;
    double time_cap_s = 0;
    bool flush_l2 = false;
    double launch_timeout_s = 0;  // > 0: a launch still running after this is a hang (hang_watch.hpp)
};

// The sampling settings a job carries (a default Job: the grader's defaults).
MeasureConfig measure_config_of(const protocol::Job& job);

struct SampleStats {
    int count = 0;
    double median_s = 0, q1_s = 0, q3_s = 0, min_s = 0, mean_s = 0;
    double rse = 0;  // standard error of the mean over the mean
    // The median's standard error over the median, from the interquartile range (sigma ~ IQR / 1.349,
    // the median's error ~ 1.2533 sigma / sqrt(n)): a batch that a context switch stretched moves
    // the mean and its error far more than the median the grade reports.
    double median_rse = 0;
    std::vector<double> samples_s;
};

SampleStats summarize(std::vector<double> samples_s);

struct TimedTarget {
    std::string name;
    std::function<void(cudaStream_t)> launch;
};

struct MeasureResult {
    std::vector<SampleStats> stats;  // one per target, in order
    std::vector<ClockCrossCheck> cross_checks;  // one per target
    double sm_clock_mhz_median = 0;  // sampled right after each timed launch
    double sm_clock_mhz_min = 0;
    double sm_clock_mhz_max = 0;
    bool hit_time_cap = false;
    std::size_t l2_flush_bytes = 0;
};

MeasureResult measure_interleaved(const std::vector<TimedTarget>& targets, const MeasureConfig& config,
                                  cudaStream_t stream);

// The SM clock now, from one short kernel that reads clock64() and %globaltimer
// at both ends of a spin (the method nvbench uses). MHz.
double sample_sm_clock_mhz(cudaStream_t stream);

}  // namespace roofline::harness

namespace roofline::harness {

// One kernel that does nothing: what a baseline of fixed costs launches.
void launch_empty_kernel(cudaStream_t stream);

// Timing launches the judge cannot bracket with its own events (the runner's, in another
// process): each sample is a batch of launches on distinct inputs and outputs, timed on the
// judge's host clock from the request to the answer, less the same round trip with an empty
// kernel (which also pays the GPU's switch between the two processes' contexts), over the
// number of launches. The same rule times the peer in the judge's own process, so that both
// carry the same method. Outputs are prepared (poisoned) and the L2 flushed before every
// batch, outside the clock; every batch's outputs are checked, as the launches left them.
struct BatchTarget {
    std::string name;
    int launches = 1;                                  // per batch
    std::function<void(cudaStream_t)> prepare;         // before the clock: poison the outputs
    std::function<std::vector<double>()> run;          // the batch, waited for: each launch's own event time
    std::function<void()> run_empty;                   // the same fixed costs, one empty kernel as the work
    std::function<bool(cudaStream_t)> check;           // after the batch: false ends the timing (a failed check)
    std::function<bool(cudaStream_t)> final_check;     // once, after the last batch (optional)
};

struct BatchMeasureResult {
    std::vector<SampleStats> per_launch;        // the judge's clock, one sample per batch
    std::vector<SampleStats> event_per_launch;  // the events each batch reported, per launch
    std::vector<SampleStats> empty_round_trip;  // the fixed costs subtracted
    double sm_clock_mhz_median = 0, sm_clock_mhz_min = 0, sm_clock_mhz_max = 0;
    bool hit_time_cap = false;
    bool check_failed = false;
    std::size_t l2_flush_bytes = 0;
    // Where the judge's seconds went, summed over every target and round (for the trace).
    struct Phases {
        double prepare_s = 0, settle_s = 0, batch_s = 0, check_s = 0, empty_s = 0, clock_s = 0;
        int rounds = 0;
    } phases;
};

BatchMeasureResult measure_batches(const std::vector<BatchTarget>& targets, const MeasureConfig& config,
                                   cudaStream_t stream);

}  // namespace roofline::harness

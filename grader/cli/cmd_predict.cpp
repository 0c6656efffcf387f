// roofline predict LAB/VARIANT: write the prediction down before measuring.
#include "command.hpp"
#include "hardware.hpp"
#include "input_error.hpp"
#include "number_flags.hpp"
#include "lab_spec.hpp"
#include "prediction_log.hpp"
#include "source_hash.hpp"
#include "units.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

struct PredictFlags {
    std::string target;
    std::optional<double> time_us, tflops, gbps;
    std::optional<double> bytes;  // DRAM bytes read + written, checked by `roofline profile`
    std::string regime;
    std::string why;
    std::string log;
    bool solutions = false;
};

constexpr double kMaxPredictedS = 3600;  // an hour: no lab's timed shape comes near it

// A prediction faster than the datasheet floor of every GPU in hardware/ cannot come
// true anywhere; it is a typo (1e-30) or a unit slip (TB/s typed as GB/s).
// `flag` and `typed` say what was given ("--time-us", 1e-30).
void require_above_floor(const Context& context, const std::string& lab, const VariantSpec& variant,
                         const Workload& work, double predicted_s, const std::string& flag, double typed) {
    const HardwareProfile* fastest = nullptr;
    double floor_s = 0;
    auto profiles = load_profiles(context.hardware_dir());
    for (const auto& profile : profiles) {
        if (!profile.supports(variant.dtype)) continue;
        auto point = analyze(work, profile.datasheet_ceiling(variant.dtype));
        if (!fastest || point.floor_s < floor_s) {
            fastest = &profile;
            floor_s = point.floor_s;
        }
    }
    if (!fastest || predicted_s >= floor_s) return;
    std::string moved = work.flops > 0 ? fmt::format("{} and {} moved", si(work.flops, "FLOP"), si(work.bytes, "B"))
                                       : fmt::format("{} moved", si(work.bytes, "B"));
    throw InputError(fmt::format("{} {:g} means {}, faster than any GPU in hardware/ can run {}/{} ({}): the lowest "
                                 "datasheet floor is {} on the {}; predict a time at or above it",
                                 flag, typed, seconds(predicted_s), lab, variant.name, moved, seconds(floor_s),
                                 fastest->id));
}

void run_predict(Context& context, const PredictFlags& f) {
    auto ws = context.workspace();
    auto target = load_target(ws, f.target);
    const auto& lab = target.lab;
    const auto& variant = target.variant();
    if (variant.cpu_graded) {
        throw InputError(fmt::format("{}/{} is graded on the CPU for correctness only: there is no time to predict. "
                                     "Grade it with: roofline grade {}/{}", lab.id, variant.name, lab.id, variant.name));
    }
    auto work = lab.work(variant, variant.timed);

    int given = f.time_us.has_value() + f.tflops.has_value() + f.gbps.has_value();
    if (given != 1) throw InputError("predict: give exactly one of --time-us, --tflops or --gbps");
    auto regime = parse_regime(f.regime);
    if (!regime) throw InputError(fmt::format("--regime: '{}' must be compute, memory or overhead", f.regime));
    if (f.why.find_first_of("\r\n") != std::string::npos) {
        throw InputError("--why: it holds a line break; write the reason on one line (it is kept in the log)");
    }
    if (f.why.find_first_not_of(" \t") == std::string::npos) {
        throw InputError("--why: give one sentence saying why you expect this time (it is kept in the log)");
    }

    Prediction p;
    p.lab = lab.id;
    p.variant = variant.name;
    p.shape = shape_text(variant.timed);
    if (f.time_us) {
        p.predicted_time_s = *f.time_us * 1e-6;
        p.given_as = fmt::format("time_us {:g}", *f.time_us);
    } else if (f.tflops) {
        if (work.flops == 0) throw InputError(fmt::format("--tflops: {} does no arithmetic; predict --time-us or --gbps", variant.name));
        p.predicted_time_s = work.flops / (*f.tflops * 1e12);
        p.given_as = fmt::format("tflops {:g}", *f.tflops);
    } else {
        p.predicted_time_s = work.bytes / (*f.gbps * 1e9);
        p.given_as = fmt::format("gbps {:g}", *f.gbps);
    }
    // A rate so low that the time passes an hour is a slip too (--gbps 1e-30).
    if (!(p.predicted_time_s <= kMaxPredictedS)) {
        throw InputError(fmt::format("{}: that means {}, more than the hour a prediction may be; check the unit",
                                     f.time_us ? "--time-us" : f.tflops ? "--tflops" : "--gbps",
                                     seconds(p.predicted_time_s)));
    }
    if (f.time_us) require_above_floor(context, lab.id, variant, work, p.predicted_time_s, "--time-us", *f.time_us);
    if (f.tflops) require_above_floor(context, lab.id, variant, work, p.predicted_time_s, "--tflops", *f.tflops);
    if (f.gbps) require_above_floor(context, lab.id, variant, work, p.predicted_time_s, "--gbps", *f.gbps);
    p.regime = *regime;
    p.why = f.why;
    p.predicted_dram_bytes = f.bytes;
    p.source_hash = hash_file(ws.kernel_file(lab.id, f.solutions, variant.file));
    p.made_at = utc_now_iso8601();
    auto log_path = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto written = append_prediction(log_path, p);
    fmt::print("recorded {} in {}: {} at {}: {} ({:.4g} TB/s{}), {}-bound\n", written.id, log_path.string(),
               target.name(), p.shape, seconds(p.predicted_time_s), work.bytes / p.predicted_time_s / 1e12,
               work.flops > 0 ? fmt::format(", {:.4g} TFLOP/s", work.flops / p.predicted_time_s / 1e12) : "",
               regime_name(p.regime));
    if (f.bytes) {
        fmt::print("  and {} of DRAM traffic ({:.3f}x the {} the model counts); `roofline profile {}` checks it\n",
                   si(*f.bytes, "B"), *f.bytes / work.bytes, si(work.bytes, "B"), target.name());
    }
    fmt::print("now: roofline grade {}{}\n", target.name(), f.log.empty() ? "" : " --log " + f.log);
}

}  // namespace

void add_predict_command(CLI::App& app, Context& context) {
    static PredictFlags f;
    auto* predict = app.add_subcommand("predict", "record how fast a variant will run, and why, before grading it");
    predict->add_option("target", f.target, "LAB/VARIANT")->required();
    // Upper bounds: an hour; then rates no GPU comes near. The lower bound is the
    // datasheet floor of the variant's work (require_above_floor).
    predict->add_option("--time-us", f.time_us, "predicted time at the lab's timed shape, microseconds")
        ->check(number_in(0, kMaxPredictedS * 1e6, true));
    predict->add_option("--tflops", f.tflops, "or the predicted rate in TFLOP/s")->check(number_in(0, 1e5, true));
    predict->add_option("--gbps", f.gbps, "or the predicted bandwidth in GB/s")->check(number_in(0, 1e6, true));
    // Bytes: at most a petabyte, far above any lab's traffic; the lower end is one byte.
    predict->add_option("--bytes", f.bytes,
                        "also the DRAM bytes (read + written) you expect ncu to count; `roofline profile` compares "
                        "them (within 10% earns the byte prediction)")
        ->check(number_in(1, 1e15, false));
    predict->add_option("--regime", f.regime, "compute, memory or overhead")->required();
    predict->add_option("--why", f.why, "one sentence: the reasoning behind the number")->required();
    predict->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)")->check(file_path());
    predict->add_flag("--solutions", f.solutions, "predict for the reference solution's source (instructors)");
    predict->footer("Example: roofline predict 01-memory-roof/copy_naive_fp32 --gbps 3800 --regime memory \\\n"
                    "           --why \"2 GiB moved at about 90% of the 4.2 TB/s cudaMemcpy reaches\"");
    predict->callback([&context] { run_predict(context, f); });
}

}  // namespace roofline::cli

// roofline predict LAB/VARIANT: write the prediction down before measuring.
#include "command.hpp"
#include "input_error.hpp"
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
    std::string regime;
    std::string why;
    std::string log;
    bool solutions = false;
};

void run_predict(Context& context, const PredictFlags& f) {
    auto ws = context.workspace();
    auto [lab_id, variant_name] = split_target(f.target);
    if (!std::filesystem::exists(ws.lab_yaml(lab_id))) {
        throw InputError(fmt::format("no lab '{}'; see `roofline list`", lab_id));
    }
    auto lab = load_lab(ws.lab_yaml(lab_id));
    const auto& variant = lab.variant(variant_name);
    auto work = lab.work(variant, variant.timed);

    int given = f.time_us.has_value() + f.tflops.has_value() + f.gbps.has_value();
    if (given != 1) throw InputError("predict: give exactly one of --time-us, --tflops or --gbps");
    auto regime = parse_regime(f.regime);
    if (!regime) throw InputError(fmt::format("--regime: '{}' must be compute, memory or overhead", f.regime));
    if (f.why.empty() || f.why.find('\n') != std::string::npos) {
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
    p.regime = *regime;
    p.why = f.why;
    p.source_hash = hash_file(ws.kernel_file(lab.id, f.solutions, variant.file));
    p.made_at = utc_now_iso8601();
    auto log_path = f.log.empty() ? ws.default_log() : std::filesystem::path(f.log);
    auto written = append_prediction(log_path, p);
    fmt::print("recorded {} in {}: {} at {}: {} ({:.4g} TB/s{}), {}-bound\n", written.id, log_path.string(), f.target,
               p.shape, seconds(p.predicted_time_s), work.bytes / p.predicted_time_s / 1e12,
               work.flops > 0 ? fmt::format(", {:.4g} TFLOP/s", work.flops / p.predicted_time_s / 1e12) : "",
               regime_name(p.regime));
    fmt::print("now: roofline grade {}{}\n", f.target, f.log.empty() ? "" : " --log " + f.log);
}

}  // namespace

void add_predict_command(CLI::App& app, Context& context) {
    static PredictFlags f;
    auto* predict = app.add_subcommand("predict", "record how fast a variant will run, and why, before grading it");
    predict->add_option("target", f.target, "LAB/VARIANT")->required();
    predict->add_option("--time-us", f.time_us, "predicted time at the lab's timed shape, microseconds")
        ->check(CLI::PositiveNumber);
    predict->add_option("--tflops", f.tflops, "or the predicted rate in TFLOP/s")->check(CLI::PositiveNumber);
    predict->add_option("--gbps", f.gbps, "or the predicted bandwidth in GB/s")->check(CLI::PositiveNumber);
    predict->add_option("--regime", f.regime, "compute, memory or overhead")->required();
    predict->add_option("--why", f.why, "one sentence: the reasoning behind the number")->required();
    predict->add_option("--log", f.log, "the prediction log (default: predictions.yaml at the course root)");
    predict->add_flag("--solutions", f.solutions, "predict for the reference solution's source (instructors)");
    predict->footer("Example: roofline predict 01-memory-roof/copy_naive_fp32 --gbps 3800 --regime memory \\\n"
                    "           --why \"2 GiB moved at about 90% of the 4.2 TB/s cudaMemcpy reaches\"");
    predict->callback([&context] { run_predict(context, f); });
}

}  // namespace roofline::cli

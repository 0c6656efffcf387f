#include "report.hpp"

#include "output_file.hpp"

#include "units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

namespace roofline {

std::string mismatch_lines(const protocol::Result& result) {
    std::string out;
    for (const auto& check : result.checks) {
        if (check.report.passed) continue;
        for (const auto& m : check.report.first_mismatches) {
            std::string got = m.unwritten           ? "never written (still the NaN poison)"
                              : std::isnan(m.got) ? "NaN"
                              : std::isinf(m.got) ? (m.got > 0 ? "Inf" : "-Inf")
                                                  : fmt::format("{:.6g}", m.got);
            out += fmt::format("    index {:>12}: expected {:.6g}, got {}\n", m.index, m.expected, got);
        }
        break;
    }
    return out;
}

std::string terminal_report(const GradeContext& c, const Score& s, const protocol::Result& result) {
    std::string out;
    out += fmt::format("{}  {}  on {}\n", c.target, s.correct ? "CORRECT" : "INCORRECT", c.gpu);
    if (!s.correct) out += fmt::format("  {}\n", s.verdict);
    out += fmt::format("  time      {} median (IQR {} - {}, min {}, {} samples, rse {:.2f}%)\n",
                       seconds(s.variant.median_s), seconds(s.variant.q1_s), seconds(s.variant.q3_s),
                       seconds(s.variant.min_s), s.variant.count, 100 * s.variant.rse);
    if (s.peer_achieved > 0) {
        out += fmt::format("  rate      {:.4g} {} = {:.1f}% of {} ({:.4g} {}){}\n", s.achieved, s.unit,
                           100 * s.fraction_of_peer, s.peer_name, s.peer_achieved, s.unit,
                           s.scored_against.rfind("roofline", 0) == 0 ? "" : "  <- scored");
    } else {
        out += fmt::format("  rate      {:.4g} {} ({} does no such work: no peer comparison)\n", s.achieved, s.unit,
                           s.peer_name);
    }
    out += fmt::format("            {:.1f}% of the roofline ({:.4g} {}, {}){}\n", 100 * s.fraction_of_roofline,
                       s.attainable, s.unit, s.ceiling_origin,
                       s.scored_against.rfind("roofline", 0) == 0 ? "  <- scored" : "");
    if (s.instruction_roof) out += instruction_roof_line(*s.instruction_roof);
    if (s.also) out += also_measured_line(*s.also, s.unit);
    if (s.unfused) {
        out += fmt::format("  bytes     the operation needs {}; the unfused chain moves {}: fusing saves {} ({:.0f}%)\n",
                           si(s.work.bytes, "B"), si(s.unfused->bytes, "B"), si(s.unfused->bytes - s.work.bytes, "B"),
                           100 * (1 - s.work.bytes / s.unfused->bytes));
    }
    out += fmt::format("  regime    {}-bound: {:.3g} FLOP/byte against a ridge of {:.3g}\n",
                       regime_name(s.roofline.regime), s.roofline.intensity, s.roofline.ridge);
    if (s.prediction) {
        out += fmt::format("  predicted {}\n", s.prediction->verdict);
    }
    if (s.byte_prediction) out += fmt::format("  bytes     {}\n", s.byte_prediction->verdict);
    if (s.diagnosis) out += fmt::format("  diagnosis {}\n", s.diagnosis->verdict);
    if (c.prediction_edited) out += "  WARNING   the prediction was edited after it was measured (see roofline log)\n";
    out += fmt::format("  SM clock  {:.0f} MHz median ({:.0f}-{:.0f}) sampled after each timed launch\n", s.sm_clock_mhz,
                       s.sm_clock_min_mhz, s.sm_clock_max_mhz);
    out += fmt::format("  points    {:g} correctness + {:.1f} performance + {:.1f} prediction{}{} = {:.1f} / {:g}\n",
                       s.correctness_points, s.performance_points, s.prediction_points,
                       s.byte_prediction ? fmt::format(" + {:g} bytes", s.byte_prediction_points) : "",
                       s.diagnosis ? fmt::format(" + {:g} diagnosis", s.diagnosis_points) : "", s.total(),
                       s.max_points);
    if (!s.correct) out += mismatch_lines(result);
    return out;
}

std::string failure_report(const GradeContext& c, const LabRun& run) {
    std::string out = fmt::format("{}  {}  on {}\n  {}\n", c.target,
                                  run.outcome == Outcome::incorrect          ? "INCORRECT"
                                  : run.outcome == Outcome::forbidden_call ||
                                            run.outcome == Outcome::forbidden_symbol ? "FORBIDDEN"
                                  : run.outcome == Outcome::timing_refused   ? "REFUSED"
                                                                               : "FAILED",
                                  c.gpu, run.message);
    out += mismatch_lines(run.result);
    if (run.outcome != Outcome::incorrect && !run.child.output_tail.empty()) {
        out += "  last output of the lab program:\n";
        std::string line;
        for (char ch : run.child.output_tail) {
            line += ch;
            if (ch == '\n') {
                out += "    " + line;
                line.clear();
            }
        }
        if (!line.empty()) out += "    " + line + "\n";
    }
    return out;
}

nlohmann::json score_json(const GradeContext& c, const Score& s, const protocol::Result& result) {
    nlohmann::json j = {
        {"target", c.target},
        {"source", c.source},
        {"gpu", c.gpu},
        {"outcome", outcome_name(s.correct ? Outcome::correct : Outcome::incorrect)},  // every grade JSON names its outcome
        {"correct", s.correct},
        {"verdict", s.verdict},
        {"impossible", s.impossible},
        {"work", {{"flops", s.work.flops}, {"bytes", s.work.bytes}}},
        {"time_s", {{"median", s.variant.median_s}, {"q1", s.variant.q1_s}, {"q3", s.variant.q3_s},
                    {"min", s.variant.min_s}, {"samples", s.variant.count}, {"rse", s.variant.rse}}},
        {"peer", {{"name", s.peer_name}, {"median_s", s.peer.median_s}, {"rate", s.peer_achieved}}},
        {"unit", s.unit},
        {"achieved", s.achieved},
        {"attainable", s.attainable},
        {"fraction_of_peer", s.fraction_of_peer},
        {"fraction_of_roofline", s.fraction_of_roofline},
        {"fraction_scored", s.fraction},
        {"scored_against", s.scored_against},
        {"ceiling_origin", s.ceiling_origin},
        {"physical_floor_s", s.physical_floor_s},
        {"intensity", s.roofline.intensity},
        {"ridge", s.roofline.ridge},
        {"regime", regime_name(s.roofline.regime)},
        {"measured_regime", regime_name(s.measured_regime)},
        {"sm_clock_mhz", {{"median", s.sm_clock_mhz}, {"min", s.sm_clock_min_mhz}, {"max", s.sm_clock_max_mhz}}},
        {"points", {{"correctness", s.correctness_points}, {"performance", s.performance_points},
                    {"prediction", s.prediction_points}, {"total", s.total()}, {"max", s.max_points}}},
        {"prediction_edited", c.prediction_edited},
        {"checks", protocol::checks_json(result)},
    };
    if (s.unfused) {
        j["bytes_saved_by_fusion"] = {{"fused_bytes", s.work.bytes}, {"unfused_bytes", s.unfused->bytes},
                                      {"saved_bytes", s.unfused->bytes - s.work.bytes}};
    }
    if (s.instruction_roof) j["instruction_roof"] = instruction_roof_json(*s.instruction_roof);
    if (s.also) {
        j["also_measured"] = {{"name", s.also->name},
                              {"median_s", s.also->timing.median_s},
                              {"rate", s.also->achieved},
                              {"unit", s.unit},
                              {"speedup", s.also->speedup},
                              {"bytes_predicted_speedup", s.also->bytes_speedup},
                              {"scored", false}};
    }
    if (s.prediction) {
        j["prediction"] = {{"ratio", s.prediction->ratio}, {"regime_right", s.prediction->regime_right},
                           {"verdict", s.prediction->verdict}};
    }
    if (s.byte_prediction) {
        j["points"]["byte_prediction"] = s.byte_prediction_points;
        j["byte_prediction"] = {{"ratio", s.byte_prediction->ratio}, {"verdict", s.byte_prediction->verdict}};
    }
    if (s.diagnosis) {
        j["points"]["diagnosis"] = s.diagnosis_points;
        j["diagnosis"] = {{"cause", s.diagnosis->cause},
                          {"shown_before", s.diagnosis->shown_before},
                          {"fixed_after", s.diagnosis->fixed_after},
                          {"verdict", s.diagnosis->verdict}};
    }
    return j;
}

nlohmann::json failure_json(const GradeContext& c, const LabRun& run, double max_points) {
    return {{"target", c.target},
            {"source", c.source},
            {"gpu", c.gpu},
            {"correct", false},
            {"outcome", outcome_name(run.outcome)},
            {"verdict", run.message},
            {"points", {{"total", 0}, {"max", max_points}}},
            {"checks", protocol::checks_json(run.result)},
            {"output_tail", run.child.output_tail}};
}

nlohmann::json gradescope_json(const LabSpec& lab, const GradeContext& c, const Score* s, const LabRun* failure) {
    nlohmann::json tests = nlohmann::json::array();
    auto test = [&](const std::string& name, double score, double max, const std::string& output) {
        tests.push_back({{"name", name}, {"score", score}, {"max_score", max}, {"output", output}, {"visibility", "visible"}});
    };
    double total = 0;
    if (s) {
        test(c.target + ": correctness", s->correctness_points, lab.scoring.correctness, s->verdict);
        test(c.target + ": performance", s->performance_points, lab.scoring.performance,
             fmt::format("{:.4g} {} = {:.1f}% of {}; full marks at {:.0f}%", s->achieved, s->unit, 100 * s->fraction,
                         s->scored_against, 100 * lab.variant(c.target.substr(c.target.find('/') + 1)).target_fraction));
        test(c.target + ": prediction", s->prediction_points, lab.scoring.prediction,
             s->prediction ? s->prediction->verdict : "no prediction scored");
        if (lab.scoring.byte_prediction > 0) {
            test(c.target + ": byte prediction", s->byte_prediction_points, lab.scoring.byte_prediction,
                 s->byte_prediction ? s->byte_prediction->verdict : "no prediction scored");
        }
        if (lab.scoring.diagnosis > 0) {
            test(c.target + ": diagnosis", s->diagnosis_points, lab.scoring.diagnosis,
                 s->diagnosis ? s->diagnosis->verdict : "no diagnosis scored (grade with a prediction)");
        }
        total = s->total();
    } else if (failure) {
        test(c.target + ": correctness", 0, lab.scoring.correctness, failure->message + "\n" + mismatch_lines(failure->result));
        test(c.target + ": performance", 0, lab.scoring.performance, "not timed: the kernel must be correct first");
        test(c.target + ": prediction", 0, lab.scoring.prediction, "not scored: the kernel must be correct first");
        if (lab.scoring.byte_prediction > 0) {
            test(c.target + ": byte prediction", 0, lab.scoring.byte_prediction,
                 "not scored: the kernel must be correct first");
        }
        if (lab.scoring.diagnosis > 0) {
            test(c.target + ": diagnosis", 0, lab.scoring.diagnosis, "not scored: the kernel must be correct first");
        }
    }
    return {{"score", total}, {"max_score", lab.scoring.total()}, {"output", c.target + " on " + c.gpu},
            {"visibility", "visible"}, {"tests", tests}};
}

std::string shared_gpu_gradescope_note(const nlohmann::json& grading) {
    if (!grading.is_object() || !grading.contains("shared_gpu") || !grading["shared_gpu"].is_object()) return {};
    const auto& shared = grading["shared_gpu"];
    auto count = shared.contains("processes") && shared["processes"].is_array() ? shared["processes"].size() : 0;
    auto who = count == 1 ? std::string("another process")
               : count > 1 ? fmt::format("{} other processes", count)
                           : std::string("other processes");
    return fmt::format("shared GPU: {} used the GPU while this was timed, so the time may be slower than the GPU's "
                       "own; the score is as measured (the instructor's report names the processes)",
                       who);
}

void add_shared_gpu_note(nlohmann::json& gradescope, const nlohmann::json& grading) {
    auto note = shared_gpu_gradescope_note(grading);
    if (note.empty() || !gradescope.is_object()) return;
    auto append = [&](nlohmann::json& holder) {
        auto text = holder.value("output", std::string());
        holder["output"] = text.empty() ? note : text + "\n" + note;
    };
    append(gradescope);
    if (!gradescope.contains("tests") || !gradescope["tests"].is_array()) return;
    const std::string performance = ": performance";
    for (auto& test : gradescope["tests"]) {
        auto name = test.value("name", std::string());
        if (name.ends_with(performance)) append(test);
    }
}

}  // namespace roofline

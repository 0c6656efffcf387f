#include "result.hpp"

#include <algorithm>

namespace roofline::batch {

nlohmann::json to_json(const SubmissionResult& r) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : r.variants) {
        variants.push_back({{"name", v.name}, {"outcome", outcome_name(v.outcome)}, {"points", v.points},
                            {"max_points", v.max_points}, {"fraction_of_roofline", v.fraction_of_roofline},
                            {"verdict", v.verdict}});
    }
    nlohmann::json shared_gpu = nlohmann::json::array();
    for (const auto& n : r.shared_gpu) shared_gpu.push_back({{"variant", n.variant}, {"note", n.note}});
    return {{"submission", r.submission},
            {"outcome", outcome_name(r.outcome)},
            {"score", r.score},
            {"max_score", r.max_score},
            {"correctness", r.correctness},
            {"performance", r.performance},
            {"prediction", r.prediction},
            {"mean_fraction_of_roofline", r.mean_fraction_of_roofline},
            {"best_fraction_of_roofline", r.best_fraction_of_roofline},
            {"gpu", r.gpu},
            {"seconds", r.seconds},
            {"reason", r.reason},
            {"gap_notes", r.gap_notes},
            {"logged_hours", r.logged_hours ? nlohmann::json(*r.logged_hours) : nlohmann::json(nullptr)},
            {"sandbox", r.sandbox},
            {"warnings", r.warnings},
            {"shared_gpu", shared_gpu},
            {"variants", variants}};
}

SubmissionResult result_from_json(const nlohmann::json& j) {
    SubmissionResult r;
    r.submission = j.at("submission").get<std::string>();
    r.outcome = parse_submission_outcome(j.at("outcome").get<std::string>()).value_or(SubmissionOutcome::error);
    r.score = j.at("score").get<double>();
    r.max_score = j.at("max_score").get<double>();
    r.correctness = j.at("correctness").get<double>();
    r.performance = j.at("performance").get<double>();
    r.prediction = j.at("prediction").get<double>();
    r.mean_fraction_of_roofline = j.at("mean_fraction_of_roofline").get<double>();
    r.best_fraction_of_roofline = j.at("best_fraction_of_roofline").get<double>();
    r.gpu = j.at("gpu").get<std::string>();
    r.seconds = j.at("seconds").get<double>();
    r.reason = j.at("reason").get<std::string>();
    r.gap_notes = j.value("gap_notes", 0);  // result.json files from before gap notes have none
    if (j.contains("logged_hours") && j["logged_hours"].is_number()) r.logged_hours = j["logged_hours"].get<double>();
    r.sandbox = j.value("sandbox", std::string("unrecorded"));
    r.warnings = j.value("warnings", std::vector<std::string>());
    if (j.contains("shared_gpu")) {  // result.json files from before the field have none
        for (const auto& n : j.at("shared_gpu")) {
            r.shared_gpu.push_back({n.at("variant").get<std::string>(), n.at("note").get<std::string>()});
        }
    }
    for (const auto& v : j.at("variants")) {
        r.variants.push_back({v.at("name").get<std::string>(),
                              parse_submission_outcome(v.at("outcome").get<std::string>()).value_or(SubmissionOutcome::error),
                              v.at("points").get<double>(), v.at("max_points").get<double>(),
                              v.at("fraction_of_roofline").get<double>(), v.at("verdict").get<std::string>()});
    }
    return r;
}

void add_up(SubmissionResult& r) {
    r.score = r.max_score = 0;
    double fraction_sum = 0;
    r.best_fraction_of_roofline = 0;
    for (const auto& v : r.variants) {
        r.score += v.points;
        r.max_score += v.max_points;
        fraction_sum += v.fraction_of_roofline;
        r.best_fraction_of_roofline = std::max(r.best_fraction_of_roofline, v.fraction_of_roofline);
    }
    r.mean_fraction_of_roofline = r.variants.empty() ? 0 : fraction_sum / r.variants.size();
}

}  // namespace roofline::batch

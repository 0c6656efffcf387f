#include "debrief.hpp"

#include "file_text.hpp"
#include "input_error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace roofline {

std::filesystem::path debrief_file(const Workspace& ws, const std::string& lab, const std::string& variant) {
    return ws.labs_dir() / lab / "debrief" / (variant + ".md");
}

namespace {

// A CPU-graded variant (cpu_grade.hpp) has no measurement in the log; its saved grade says.
bool graded_correct_on_cpu(const Workspace& ws, const std::string& lab, const std::string& variant) {
    std::ifstream in(ws.saved_grade(lab, false, variant));
    if (!in) return false;
    auto grade = nlohmann::json::parse(in, nullptr, false);
    return grade.is_object() && grade.value("graded_on", "") == "cpu" && grade.value("correct", false);
}

}  // namespace

DebriefGate open_debrief(const Workspace& ws, const PredictionLog& log, const std::string& lab,
                         const std::string& variant, bool solutions, const std::string& log_flag) {
    DebriefGate gate;
    auto file = debrief_file(ws, lab, variant);
    if (!std::filesystem::is_regular_file(file)) {
        throw InputError(file, 0, fmt::format("no debrief for {}/{}; every variant's lab folder holds "
                                              "debrief/VARIANT.md (restore it with git checkout)", lab, variant));
    }
    gate.measurement = log.latest_graded(lab, variant);
    if (!gate.measurement && !solutions && graded_correct_on_cpu(ws, lab, variant)) {
        gate.text = read_file_text(file);  // a CPU-graded part (lab 05): no prediction, opened by a correct grade
        return gate;
    }
    if (!gate.measurement && !solutions) {
        gate.refusal = fmt::format(
            "the debrief of {}/{} opens after your own graded measurement: it holds the measured answer, and a "
            "prediction made after reading it measures nothing. {} holds no correct measurement of it yet:\n"
            "  roofline predict {}/{} --time-us <microseconds> --regime <compute|memory|overhead> --why \"<one sentence>\"{}\n"
            "  roofline grade {}/{}{}",
            lab, variant, log.file.string(), lab, variant, log_flag, lab, variant, log_flag);
        return gate;
    }
    gate.text = read_file_text(file);
    return gate;
}

}  // namespace roofline

#include "debrief.hpp"

#include "file_text.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

namespace roofline {

std::filesystem::path debrief_file(const Workspace& ws, const std::string& lab, const std::string& variant) {
    return ws.labs_dir() / lab / "debrief" / (variant + ".md");
}

DebriefGate open_debrief(const Workspace& ws, const PredictionLog& log, const std::string& lab,
                         const std::string& variant, bool solutions, const std::string& log_flag) {
    DebriefGate gate;
    auto file = debrief_file(ws, lab, variant);
    if (!std::filesystem::is_regular_file(file)) {
        throw InputError(file, 0, fmt::format("no debrief for {}/{}; every variant's lab folder holds "
                                              "debrief/VARIANT.md (restore it with git checkout)", lab, variant));
    }
    gate.measurement = log.latest_graded(lab, variant);
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

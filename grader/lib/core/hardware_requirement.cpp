#include "hardware_requirement.hpp"

#include <fmt/format.h>

#include <regex>

namespace roofline {

std::optional<ComputeCapability> parse_compute_capability(const std::string& text) {
    static const std::regex form(R"(([0-9]{1,2})\.([0-9]))");
    std::smatch match;
    if (!std::regex_match(text, match, form)) return std::nullopt;
    return ComputeCapability{std::stoi(match[1]), std::stoi(match[2])};
}

std::string compute_capability_text(const ComputeCapability& cc) { return fmt::format("{}.{}", cc.major, cc.minor); }

std::string architecture_name(const ComputeCapability& cc) {
    switch (cc.major) {
        case 7: return cc.minor >= 5 ? "Turing" : "Volta";
        case 8: return cc.minor == 9 ? "Ada" : "Ampere";
        case 9: return "Hopper";
        case 10:
        case 11:
        case 12: return "Blackwell";
        default: return "compute capability " + compute_capability_text(cc);
    }
}

std::optional<std::string> hardware_refusal(const std::string& target, const ComputeCapability& required,
                                            const std::string& gpu_name, const ComputeCapability& gpu) {
    if (gpu == required) return std::nullopt;
    // The profile to predict with: the B200 for Blackwell code, else the calculator's list.
    std::string profile = required.major == 10 ? "b200" : "<profile>";
    return fmt::format(
        "{} needs a {} GPU of compute capability {} (its machine code is for sm_{}{}a and runs on no other); "
        "this GPU is {} ({}). Nothing was built, run or scored. Predict its time there with "
        "`roofline calc --hardware {} ...` and `roofline predict`, and grade it on such a GPU.",
        target, architecture_name(required), compute_capability_text(required), required.major, required.minor,
        gpu_name, compute_capability_text(gpu), profile);
}

}  // namespace roofline

#include "number_flags.hpp"

#include "number_text.hpp"

#include <fmt/format.h>

namespace roofline::cli {

CLI::Validator number_in(double min, double max, bool above_min) {
    std::string range = above_min ? fmt::format("above {:g} and at most {:g}", min, max)
                                  : fmt::format("from {:g} to {:g}", min, max);
    auto check = [=](std::string& text) -> std::string {
        auto value = parse_decimal(text);
        bool inside = value && (above_min ? *value > min : *value >= min) && *value <= max;
        if (min >= 0 && !text.empty() && text.front() == '-') inside = false;  // "-0" for a count is a slip
        return inside ? std::string() : fmt::format("must be a number {} (got '{}')", range, text);
    };
    return CLI::Validator(check, above_min ? fmt::format("NUMBER in ({:g}, {:g}]", min, max)
                                           : fmt::format("NUMBER in [{:g}, {:g}]", min, max));
}

CLI::Validator whole_in(unsigned long long min, unsigned long long max) {
    auto check = [=](std::string& text) -> std::string {
        auto value = parse_whole(text);
        if (value && *value >= min && *value <= max) return {};
        return fmt::format("must be a whole number from {} to {} (got '{}')", min, max, text);
    };
    return CLI::Validator(check, fmt::format("WHOLE in [{}, {}]", min, max));
}

CLI::Validator file_path() {
    auto check = [](std::string& text) -> std::string {
        if (text.find_first_not_of(" \t") != std::string::npos) return {};
        return "the path is empty; give a path or leave the flag out (an empty value is not the default)";
    };
    return CLI::Validator(check, "PATH");
}

}  // namespace roofline::cli

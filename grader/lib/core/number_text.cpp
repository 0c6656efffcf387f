#include "number_text.hpp"

#include <charconv>
#include <cmath>

namespace roofline {

std::optional<double> parse_decimal(std::string_view text) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

std::optional<unsigned long long> parse_whole(std::string_view text) {
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;  // digits first: no sign
    unsigned long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace roofline

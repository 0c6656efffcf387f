#include "units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace roofline {

std::string si(double value, const std::string& unit, int digits) {
    static const std::array<const char*, 7> prefixes{"", "k", "M", "G", "T", "P", "E"};
    int index = 0;
    double scaled = value;
    while (std::fabs(scaled) >= 1000 && index + 1 < int(prefixes.size())) {
        scaled /= 1000;
        ++index;
    }
    return fmt::format("{:.{}g} {}{}", scaled, digits, prefixes[index], unit);
}

std::string seconds(double s) {
    if (s < 1e-6) return fmt::format("{:.3g} ns", s * 1e9);
    if (s < 1e-3) return fmt::format("{:.4g} us", s * 1e6);
    if (s < 1) return fmt::format("{:.4g} ms", s * 1e3);
    return fmt::format("{:.4g} s", s);
}

std::string bar(double value, double max_value, int width) {
    static const std::array<const char*, 8> partial{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    double fraction = max_value > 0 ? std::clamp(value / max_value, 0.0, 1.0) : 0;
    int eighths = static_cast<int>(std::round(fraction * width * 8));
    std::string out;
    for (int i = 0; i < eighths / 8; ++i) out += "█";
    out += partial[eighths % 8];
    int used = eighths / 8 + (eighths % 8 ? 1 : 0);
    out.append(std::max(0, width - used), ' ');
    return out;
}

}  // namespace roofline

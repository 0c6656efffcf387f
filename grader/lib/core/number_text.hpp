// Numbers a person typed (a flag, a YAML field), read strictly: plain decimal
// only. std::from_chars on its own also takes "nan", "inf" and "infinity",
// which then travel through every sum and land in the prediction log.
#pragma once
#include <optional>
#include <string_view>

namespace roofline {

// A finite number in decimal or exponent notation ("600", "-2.5", "1e9"): no
// blanks, no leading '+', no hex, nothing left over. nullopt otherwise.
std::optional<double> parse_decimal(std::string_view text);
// A whole number written with digits only ("4096"). nullopt otherwise, and for
// values past unsigned long long.
std::optional<unsigned long long> parse_whole(std::string_view text);

}  // namespace roofline

// Names a user types (dtypes, regimes) match whatever their case: BF16 is bf16.
#pragma once
#include <algorithm>
#include <cctype>
#include <string_view>

namespace roofline {

inline bool same_name_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace roofline

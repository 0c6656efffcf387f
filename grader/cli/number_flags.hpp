// Checks for numeric flags, run on the text as typed, before CLI11 converts it:
// plain decimal digits only (no nan, inf, hex, blanks or empty values), inside a
// range that makes sense for the quantity. A refusal is one line naming the flag,
// the range and what was typed: "--time-us: must be a number above 0 and at most
// 3.6e+09 (got 'nan')".
#pragma once
#include <CLI/CLI.hpp>

namespace roofline::cli {

// A real number in [min, max]; with `above_min`, in (min, max].
CLI::Validator number_in(double min, double max, bool above_min = false);
// A whole number in [min, max], digits only ("4096", never "4096.5" or "4e3").
CLI::Validator whole_in(unsigned long long min, unsigned long long max);
// A file path: refuses an empty value (`--log ""`), which would otherwise read as "not
// given" and silently mean the default.
CLI::Validator file_path();

}  // namespace roofline::cli

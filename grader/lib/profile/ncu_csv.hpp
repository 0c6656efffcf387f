// Nsight Compute's CSV (`ncu --csv --page raw`, or the default details page with
// --metrics), read into one record per profiled kernel launch. Both layouts are read:
//   raw:     one row per launch, one column per metric, a row of units under the header;
//   details: one row per launch and metric ("Metric Name", "Metric Unit", "Metric Value").
// Lines ncu prints around the table (==PROF==, ==WARNING==, ==ERROR==) and the profiled
// program's own output are skipped. Values are converted to base units (byte, second,
// cycle per second) so that the report never has to know which prefix ncu chose.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct NcuMetric {
    std::string unit;             // as ncu printed it: byte, Gbyte, nsecond, %, inst, ...
    std::string text;             // the value as printed
    std::optional<double> value;  // in base units; empty when the text is not a number (n/a)
};

struct NcuLaunch {
    std::string id;  // ncu's launch number, "0", "1", ...
    std::string kernel;
    std::string block_size, grid_size;  // "(256, 1, 1)"
    std::map<std::string, NcuMetric> metrics;

    // The metric in base units, or nothing when it is absent or not a number.
    std::optional<double> number(const std::string& metric) const;
};

struct NcuCsv {
    std::vector<NcuLaunch> launches;       // in the order ncu profiled them
    std::vector<std::string> tool_lines;   // ncu's own ==PROF== / ==WARNING== / ==ERROR== lines
};

// `source` names the text in errors (the file it came from, or "ncu's output").
// Throws InputError (source:line) for a table that cannot be read: no header, a row
// with the wrong number of fields, an unterminated quote.
NcuCsv parse_ncu_csv(const std::string& text, const std::string& source);

// A value of `unit` in base units (Gbyte -> x1e9 bytes, usecond -> x1e-6 s); a unit it
// does not know is taken as it is.
double to_base_units(double value, const std::string& unit);

// Why ncu could not profile, read off its output: the counters are not permitted for
// this user (ERR_NVGPUCTRPERM), a metric name it does not know, no kernel profiled, the
// launcher script finding no Nsight Compute behind it; or nothing when none of these is there.
struct NcuFailure {
    enum class Kind { counters_not_permitted, unknown_metric, no_kernels, not_installed, other } kind = Kind::other;
    std::string message;  // one paragraph: what happened and what to do
};
std::optional<NcuFailure> ncu_failure(const std::string& output);

}  // namespace roofline

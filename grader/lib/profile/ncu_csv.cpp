#include "ncu_csv.hpp"

#include "input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace roofline {

namespace {

// One CSV record from `lines` starting at `*index` (a quoted field may span lines).
// Returns false at the end; throws for an unterminated quote.
bool read_record(const std::vector<std::string>& lines, std::size_t* index, std::vector<std::string>& fields,
                 const std::string& source) {
    if (*index >= lines.size()) return false;
    int first_line = static_cast<int>(*index) + 1;
    fields.clear();
    std::string field;
    bool quoted = false, in_field = false;
    std::string line = lines[(*index)++];
    for (std::size_t i = 0;; ++i) {
        if (i == line.size()) {
            if (!quoted) break;
            if (*index >= lines.size()) {
                throw InputError(source, first_line,
                                 "a quoted field is never closed; the CSV was cut off (run ncu again)");
            }
            field += '\n';
            line = lines[(*index)++];
            i = static_cast<std::size_t>(-1);
            continue;
        }
        char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && !in_field) {
            quoted = true;
            in_field = true;
        } else if (c == ',') {
            fields.push_back(field);
            field.clear();
            in_field = false;
        } else if (c != '\r') {
            field += c;
            in_field = true;
        }
    }
    fields.push_back(field);
    return true;
}

bool is_tool_line(const std::string& line) { return line.rfind("==", 0) == 0; }

// "1,073,741,824" and "82.90" as numbers; "n/a", "" and words as nothing.
std::optional<double> parse_number(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    auto start = text.find_first_not_of(" \t");
    if (start == std::string::npos) return std::nullopt;
    text = text.substr(start, text.find_last_not_of(" \t") - start + 1);
    try {
        std::size_t used = 0;
        double value = std::stod(text, &used);
        if (used != text.size()) return std::nullopt;
        return value;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

int column_of(const std::vector<std::string>& header, const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
}

// The identifying columns both layouts share, before the metrics.
const std::vector<std::string> kLaunchColumns{"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name",
                                              "Context", "Stream",    "Block Size",   "Grid Size", "Device",
                                              "CC",     "Section Name"};

}  // namespace

double to_base_units(double value, const std::string& unit) {
    static const std::map<std::string, double> scale{
        {"byte", 1},        {"Kbyte", 1e3},      {"Mbyte", 1e6},      {"Gbyte", 1e9},     {"Tbyte", 1e12},
        {"KB", 1e3},        {"MB", 1e6},         {"GB", 1e9},         {"TB", 1e12},
        {"nsecond", 1e-9},  {"usecond", 1e-6},   {"msecond", 1e-3},   {"second", 1},
        {"ns", 1e-9},       {"us", 1e-6},        {"ms", 1e-3},        {"s", 1},
        {"hz", 1},          {"Khz", 1e3},        {"Mhz", 1e6},        {"Ghz", 1e9},
        {"inst", 1},        {"Kinst", 1e3},      {"Minst", 1e6},      {"Ginst", 1e9},
        {"cycle", 1},       {"Kcycle", 1e3},     {"Mcycle", 1e6},     {"Gcycle", 1e9},
        {"byte/second", 1}, {"Kbyte/second", 1e3}, {"Mbyte/second", 1e6}, {"Gbyte/second", 1e9},
        {"Tbyte/second", 1e12},
        {"cycle/nsecond", 1e9}, {"cycle/usecond", 1e6}, {"cycle/msecond", 1e3}, {"cycle/second", 1},
    };
    auto it = scale.find(unit);
    return it == scale.end() ? value : value * it->second;
}

std::optional<double> NcuLaunch::number(const std::string& metric) const {
    auto it = metrics.find(metric);
    if (it == metrics.end()) return std::nullopt;
    return it->second.value;
}

NcuCsv parse_ncu_csv(const std::string& text, const std::string& source) {
    std::vector<std::string> lines;
    {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) lines.push_back(line);
    }
    NcuCsv csv;
    std::size_t index = 0;
    std::vector<std::string> header;
    int header_line = 0;
    // The header is the first line that opens with an "ID" field; what comes before it is
    // ncu's messages and the profiled program's own output.
    while (index < lines.size()) {
        const auto& line = lines[index];
        if (is_tool_line(line)) {
            csv.tool_lines.push_back(line);
            ++index;
            continue;
        }
        if (line.rfind("\"ID\",", 0) == 0 || line.rfind("ID,", 0) == 0) {
            header_line = static_cast<int>(index) + 1;
            read_record(lines, &index, header, source);
            break;
        }
        ++index;
    }
    if (header.empty()) {
        std::string said;
        for (const auto& l : csv.tool_lines) {
            if (l.rfind("==ERROR==", 0) == 0) said = l;
        }
        throw InputError(source, 0,
                         fmt::format("no ncu table in it (no header line starting \"ID\",...){}; profile with "
                                     "`ncu --csv --page raw --metrics ...`",
                                     said.empty() ? "" : "; ncu said: " + said));
    }
    int name_column = column_of(header, "Metric Name");
    int value_column = column_of(header, "Metric Value");
    int unit_column = column_of(header, "Metric Unit");
    int id_column = column_of(header, "ID");
    int kernel_column = column_of(header, "Kernel Name");
    int block_column = column_of(header, "Block Size");
    int grid_column = column_of(header, "Grid Size");
    if (kernel_column < 0) {
        throw InputError(source, header_line, "the header has no \"Kernel Name\" column; is this ncu's CSV?");
    }
    bool long_layout = name_column >= 0;
    if (long_layout && value_column < 0) {
        throw InputError(source, header_line, "the header has \"Metric Name\" but no \"Metric Value\" column");
    }

    std::vector<std::string> units(header.size());
    std::vector<std::string> fields;
    auto launch_for = [&](const std::vector<std::string>& row) -> NcuLaunch& {
        const std::string& id = row[id_column];
        for (auto& launch : csv.launches) {
            if (launch.id == id) return launch;
        }
        NcuLaunch launch;
        launch.id = id;
        launch.kernel = row[kernel_column];
        if (block_column >= 0) launch.block_size = row[block_column];
        if (grid_column >= 0) launch.grid_size = row[grid_column];
        csv.launches.push_back(launch);
        return csv.launches.back();
    };
    bool first_row = true;
    while (index < lines.size()) {
        if (lines[index].empty()) {
            ++index;
            continue;
        }
        if (is_tool_line(lines[index])) {
            csv.tool_lines.push_back(lines[index++]);
            continue;
        }
        int row_line = static_cast<int>(index) + 1;
        read_record(lines, &index, fields, source);
        if (fields.size() != header.size()) {
            throw InputError(source, row_line,
                             fmt::format("this row has {} fields and the header (line {}) has {}; the CSV is cut "
                                         "or mixed with other output (write it with ncu --log-file or --export "
                                         "and --import)",
                                         fields.size(), header_line, header.size()));
        }
        // raw layout: the row under the header holds each column's unit, and no launch ID.
        if (!long_layout && first_row && fields[id_column].empty()) {
            units = fields;
            first_row = false;
            continue;
        }
        first_row = false;
        auto& launch = launch_for(fields);
        if (long_layout) {
            const auto& name = fields[name_column];
            if (name.empty()) continue;
            NcuMetric metric;
            metric.unit = unit_column >= 0 ? fields[unit_column] : "";
            metric.text = fields[value_column];
            if (auto v = parse_number(metric.text)) metric.value = to_base_units(*v, metric.unit);
            launch.metrics[name] = metric;
        } else {
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (std::find(kLaunchColumns.begin(), kLaunchColumns.end(), header[i]) != kLaunchColumns.end())
                    continue;
                NcuMetric metric;
                metric.unit = units[i];
                metric.text = fields[i];
                if (auto v = parse_number(metric.text)) metric.value = to_base_units(*v, metric.unit);
                launch.metrics[header[i]] = metric;
            }
        }
    }
    return csv;
}

namespace {
// The whole line of `text` that holds position `at`.
std::string line_at(const std::string& text, std::size_t at) {
    auto newline_before = text.rfind('\n', at);
    auto begin = newline_before == std::string::npos ? 0 : newline_before + 1;
    auto end = text.find('\n', at);
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}
}  // namespace

std::optional<NcuFailure> ncu_failure(const std::string& output) {
    if (output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        return NcuFailure{NcuFailure::Kind::counters_not_permitted,
                          "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM). An administrator "
                          "can allow it for every user: load the nvidia module with "
                          "NVreg_RestrictProfilingToAdminUsers=0 (a file in /etc/modprobe.d/, then reboot), or run "
                          "the profile as root. `roofline grade` needs no counters and works as it is."};
    }
    for (const char* phrase : {"Failed to find metric", "failed to find metric", "Invalid metric", "invalid metric"}) {
        auto at = output.find(phrase);
        if (at == std::string::npos) continue;
        auto line = line_at(output, at);
        return NcuFailure{NcuFailure::Kind::unknown_metric,
                          fmt::format("this ncu does not know a metric the course asks for ({}); the metric list is "
                                      "grader/lib/profile/ncu_metrics.hpp: `ncu --query-metrics` lists the names this GPU "
                                      "and ncu version have",
                                      line)};
    }
    if (auto at = output.find("nsight-compute directory is not found"); at != std::string::npos) {
        auto line = line_at(output, at);
        return NcuFailure{NcuFailure::Kind::not_installed,
                          fmt::format("ncu is the CUDA Toolkit's launcher script, and it found no Nsight Compute to "
                                      "start ({}); set ROOFLINE_NCU to the ncu inside the nsight-compute folder",
                                      line)};
    }
    if (output.find("No kernels were profiled") != std::string::npos) {
        return NcuFailure{NcuFailure::Kind::no_kernels,
                          "ncu profiled no kernel: the variant launched nothing inside the profiled range (does "
                          "its launch function return before launching at this shape?)"};
    }
    return std::nullopt;
}

}  // namespace roofline

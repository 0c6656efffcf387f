#include "overlap_timeline.hpp"

#include "input_error.hpp"
#include "number_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>

namespace roofline {

namespace {

constexpr const char* kHeader = "block,role,event,tile,k_slice,stage,begin_ns,end_ns";
constexpr const char* kSourcePrefix = "# source:";

const std::pair<OverlapRole, const char*> kRoles[] = {
    {OverlapRole::producer, "producer"}, {OverlapRole::consumer0, "consumer0"}, {OverlapRole::consumer1, "consumer1"}};
const std::pair<OverlapEvent, const char*> kEvents[] = {
    {OverlapEvent::wait_empty, "wait_empty"}, {OverlapEvent::issue, "issue"},
    {OverlapEvent::wait_full, "wait_full"},   {OverlapEvent::mma_issue, "mma_issue"},
    {OverlapEvent::mma_wait, "mma_wait"},     {OverlapEvent::epilogue, "epilogue"}};

std::vector<std::string> split(const std::string& line, char separator) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, separator)) fields.push_back(field);
    if (!line.empty() && line.back() == separator) fields.emplace_back();
    return fields;
}

std::string trim(const std::string& text) {
    auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") + 1 - first);
}

bool is_producer_event(OverlapEvent e) { return e == OverlapEvent::wait_empty || e == OverlapEvent::issue; }

}  // namespace

const char* overlap_role_name(OverlapRole role) {
    for (auto [r, name] : kRoles)
        if (r == role) return name;
    return "?";
}

const char* overlap_event_name(OverlapEvent event) {
    for (auto [e, name] : kEvents)
        if (e == event) return name;
    return "?";
}

std::vector<OverlapInterval> OverlapTimeline::of(int block) const {
    std::vector<OverlapInterval> out;
    for (const auto& i : intervals)
        if (i.block == block) out.push_back(i);
    return out;
}

std::vector<OverlapInterval> OverlapTimeline::of(int block, OverlapRole role) const {
    std::vector<OverlapInterval> out;
    for (const auto& i : intervals)
        if (i.block == block && i.role == role) out.push_back(i);
    return out;
}

int OverlapTimeline::k_slices() const {
    int most = -1;
    for (const auto& i : intervals) most = std::max(most, i.k_slice);
    return most + 1;
}

OverlapTimeline read_overlap_timeline(const std::string& text, const std::filesystem::path& file) {
    OverlapTimeline timeline;
    bool header_seen = false;
    std::map<std::pair<int, OverlapRole>, std::pair<double, int>> last_end;  // (block, role) -> (end, its line)
    std::istringstream in(text);
    std::string raw;
    int line_number = 0;
    while (std::getline(in, raw)) {
        ++line_number;
        const std::string line = trim(raw);
        if (line.empty()) continue;
        if (line[0] == '#') {
            if (line.rfind(kSourcePrefix, 0) == 0) timeline.source = trim(line.substr(std::string(kSourcePrefix).size()));
            continue;
        }
        if (!header_seen) {
            if (line != kHeader)
                throw InputError(file, line_number,
                                 fmt::format("expected the header \"{}\", found \"{}\"; write "
                                             "scripts/probes/lab06_overlap_timeline.cu's output unchanged",
                                             kHeader, line));
            header_seen = true;
            continue;
        }
        const auto fields = split(line, ',');
        if (fields.size() != 8)
            throw InputError(file, line_number,
                             fmt::format("{} fields where the header has 8 ({}); give every row all eight",
                                         fields.size(), kHeader));
        auto whole = [&](const std::string& field, const char* name, bool may_be_minus_one) {
            std::string digits = field;
            bool negative = may_be_minus_one && field == "-1";
            auto value = negative ? std::optional<unsigned long long>(1) : parse_whole(digits);
            if (!value || *value > 1u << 30)
                throw InputError(file, line_number,
                                 fmt::format("{} \"{}\" is not a whole number{}; write it in digits", name, field,
                                             may_be_minus_one ? " (or -1)" : ""));
            return negative ? -1 : int(*value);
        };
        auto time = [&](const std::string& field, const char* name) {
            auto value = parse_decimal(field);
            if (!value || *value < 0)
                throw InputError(file, line_number,
                                 fmt::format("{} \"{}\" is not a time in ns (a number, 0 or more); write it as the "
                                             "probe does, e.g. 1234.5",
                                             name, field));
            return *value;
        };

        OverlapInterval interval;
        interval.block = whole(fields[0], "block", false);
        const auto role = std::find_if(std::begin(kRoles), std::end(kRoles),
                                       [&](const auto& r) { return fields[1] == r.second; });
        if (role == std::end(kRoles))
            throw InputError(file, line_number,
                             fmt::format("unknown role \"{}\"; the roles are producer, consumer0 and consumer1",
                                         fields[1]));
        interval.role = role->first;
        const auto event = std::find_if(std::begin(kEvents), std::end(kEvents),
                                        [&](const auto& e) { return fields[2] == e.second; });
        if (event == std::end(kEvents))
            throw InputError(file, line_number,
                             fmt::format("unknown event \"{}\"; the events are wait_empty and issue (producer), "
                                         "wait_full, mma_issue, mma_wait and epilogue (consumers)",
                                         fields[2]));
        interval.event = event->first;
        if (is_producer_event(interval.event) != (interval.role == OverlapRole::producer))
            throw InputError(file, line_number,
                             fmt::format("{} is not an event of the {}; the producer has wait_empty and issue, a "
                                         "consumer wait_full, mma_issue, mma_wait and epilogue",
                                         fields[2], fields[1]));
        interval.tile = whole(fields[3], "tile", false);
        const bool epilogue = interval.event == OverlapEvent::epilogue;
        interval.k_slice = whole(fields[4], "k_slice", epilogue);
        interval.stage = whole(fields[5], "stage", epilogue);
        interval.begin_ns = time(fields[6], "begin_ns");
        interval.end_ns = time(fields[7], "end_ns");
        if (interval.end_ns < interval.begin_ns)
            throw InputError(file, line_number,
                             fmt::format("the interval ends ({} ns) before it begins ({} ns); swap the two or "
                                         "measure again",
                                         fields[7], fields[6]));
        auto key = std::pair{interval.block, interval.role};
        if (auto previous = last_end.find(key);
            previous != last_end.end() && interval.begin_ns < previous->second.first) {
            throw InputError(file, line_number,
                             fmt::format("block {}'s {} begins this {} at {} ns, before its interval on line {} "
                                         "ended ({} ns); one thread's stamps are in program order, so keep the "
                                         "probe's rows in the order it printed them",
                                         interval.block, fields[1], fields[2], fields[6], previous->second.second,
                                         previous->second.first));
        }
        last_end[key] = {interval.end_ns, line_number};
        timeline.intervals.push_back(interval);
    }
    if (timeline.source.empty())
        throw InputError(file, 1,
                         "no \"# source: ...\" line; say where the numbers come from (the GPU and date they were "
                         "measured on, or that they are synthetic)");
    if (!header_seen)
        throw InputError(file, line_number, fmt::format("no header line \"{}\" and no rows", kHeader));
    if (timeline.intervals.empty()) throw InputError(file, line_number, "a header but no rows; add the probe's rows");
    return timeline;
}

}  // namespace roofline

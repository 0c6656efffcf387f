// `roofline serve`'s report: what the decode server measured of itself (its JSON), against the
// step's floor on this GPU (decode_step.hpp), op by op, and which regime binds. Pure: the run
// itself is lib/launch/serve_run.hpp's.
//
// The server times itself. That is fine here: `serve` reports a server's speed, it grades no
// submission. A grade of a fixed step would go through the judge, which times what it does not trust.
#pragma once
#include "decode_step.hpp"
#include "hardware.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct ServeOp {
    std::string name;
    double seconds = 0;  // in the instrumented step
    double bytes = 0, flops = 0;
    double floor_s = 0;  // the op's own floor at the same roofs
};

// One op's span in the instrumented step, from the events the server records before and after
// it: seconds from the step's begin event. Between two spans, no op ran: the events' own cost, or
// the GPU waiting for the host to record the next one (lessons/10-production.md).
struct ServeEvent {
    std::string name;
    double start_s = 0, end_s = 0;
};
// The most spans a report or a record takes (the server keeps at most 4,096 and merges beyond).
inline constexpr std::size_t kMaxServeEvents = 20000;

// Time in a step of `step_s` outside the spans: before the first, between each two, after the last.
// The spans in order, as serve_report and read_incident_report check them.
double gap_seconds(const std::vector<ServeEvent>& events, double step_s);
// What is wrong with one span of the events, the span before it ending at `previous_end`, in an
// instrumented step of `step_s`: the field ("name", "start_s" or "end_s") and why, or nothing.
// serve_report and read_incident_report both check each span with it.
struct EventFault {
    const char* field;
    std::string why;
};
std::optional<EventFault> event_fault(const ServeEvent& span, bool names_an_op, double previous_end, double step_s);
// The server times each op as the sum of its spans (a record's merged spans keep those sums), so
// the two must agree: the first op whose `seconds` differ from its spans' total (more than the
// doubles' rounding), or that has no span at all, and why; nothing when every op agrees.
// serve_report and read_incident_report both check the events with it.
struct OpSpanFault {
    std::string op;
    std::string why;
};
std::optional<OpSpanFault> op_span_fault(const std::vector<ServeEvent>& events,
                                         const std::vector<std::pair<std::string, double>>& op_seconds);
// The text reports' line on it: the gap time, its share of the instrumented step, the spans' count.
std::string gap_line(double gap_s, double step_s, std::size_t spans);

struct ServeReport {
    std::string source;  // where the server's JSON came from, for messages
    std::string config;
    std::string device;
    std::string profile_id;
    std::string bandwidth_origin, peak_origin;
    double copy_bytes_per_s = 0, tensor_flops_per_s = 0, fp32_flops_per_s = 0;
    DecodeModel model;
    int batch = 0;
    bool graph = false, per_request = false;
    int launches_per_step = 0;
    std::vector<long long> contexts;
    double tokens_per_s = 0;
    double instrumented_step_s = 0;
    StepTiming timing;
    DecodeStepFloor floor;
    StepReading reading;
    std::vector<ServeOp> ops;
    std::vector<ServeEvent> events;  // in order; empty when the server wrote none (an older server)
    double gap_s = 0;                // gap_seconds of them (0 without events)
    bool check_ran = false, check_passed = false;
    nlohmann::json check;  // the server's "check" object, as it wrote it
    nlohmann::json server;  // the server's whole output
};

// From the server's JSON (InputError naming `source` and the missing or bad key), the GPU's
// profile and, where `roofline ceilings` measured this GPU, its ceilings.
ServeReport serve_report(const nlohmann::json& server_output, const std::string& source, const HardwareProfile& profile,
                         const MeasuredCeilings* measured);
std::string serve_text(const ServeReport& report);
nlohmann::json serve_json(const ServeReport& report);

}  // namespace roofline

// Module 10's incident lab: the record `roofline serve` keeps of a run (.roofline/serve/NAME.json,
// written by the grader process from its report, never by the server), read back by `roofline
// diagnose 10-production/NAME` and `roofline report`. The file sits in the student's workspace,
// so it is read as untrusted input: every field is checked (type, range), and everything the
// grader computes from the server's numbers (each op's bytes and FLOPs, the floor, tokens/s,
// the regime) is computed again and compared, so an edited or half-written record is refused
// with an error naming the file and the field, never scored.
//
// The record holds what the step's reading needs and serve_json leaves out (the model's shapes,
// the CUDA cores' fp32 roof, the launch's fixed cost), with serve_json's report under "serve".
#pragma once
#include "decode_step.hpp"
#include "serve_report.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace roofline {

inline constexpr const char* kServeRecordFormat = "roofline serve record 1";

// The record of one `roofline serve` run. `incident`: the configuration's name (incident-b),
// `config`: its path as given, `saved_at`: UTC, ISO 8601.
nlohmann::json serve_record_json(const ServeReport& report, const std::string& incident, const std::string& config,
                                 const std::string& saved_at);

// One op of the step as the timeline and the step's roofline draw it.
struct IncidentOp {
    std::string name;
    double seconds = 0;      // in the instrumented step, summed over the layers
    double bytes = 0, flops = 0;
    double floor_s = 0;      // its own floor at the step's roofs
    std::string regime;      // op_regime below
};

// A span of the step's time axis: an op, or a gap where no op ran.
struct StepSpan {
    std::string name;  // the op's, or "" for a gap
    double start_s = 0, end_s = 0;
    bool gap() const { return name.empty(); }
};

struct IncidentReport {
    std::filesystem::path file;
    std::string incident, config, saved_at, device, hardware;
    DecodeModel model;
    int batch = 0;
    std::vector<long long> contexts;
    bool graph = false, per_request = false;
    StepTiming timing;  // launches and per_launch_s included
    double instrumented_step_s = 0;
    double tokens_per_s = 0;
    double copy_bytes_per_s = 0, tensor_flops_per_s = 0, fp32_flops_per_s = 0;
    DecodeStepFloor floor;
    StepReading reading;  // computed again from the numbers above (read_step), equal to the record's
    std::vector<IncidentOp> ops;   // in the server's order
    std::vector<StepSpan> spans;   // the instrumented step on one axis: ops end to end, gaps where they leave time
    // From the server's events (each op's start and end), when the record has them: the time in the
    // instrumented step that no op's span covers (gap_seconds), and the spans' count. Shown, not read:
    // the regime rules do not use it (the instrumented step is eager, with two events an op; the
    // timed step may be a graph, and has none).
    bool has_events = false;
    double gap_s = 0;
    std::size_t event_count = 0;
};

// Reads and checks a record. Throws InputError naming `file` and the field (`serve.ops[2].seconds`)
// for a record that does not parse, lacks a field, holds a value out of range, or whose numbers
// disagree with what the grader computes from them.
IncidentReport read_incident_report(const std::string& text, const std::filesystem::path& file);
IncidentReport load_incident_report(const std::filesystem::path& file);

// An op's regime, for the pictures: the floor's own (memory when its bytes take longer at the copy
// rate than its FLOPs at the tensor roof) when it runs within 1/0.7 of its floor; else, as read_step
// names a culprit, compute when its FLOP rate is a larger share of the CUDA cores' fp32 roof than its
// byte rate is of the copy rate; overhead when both shares are under 10% (the op neither moves bytes
// nor computes at any rate worth the name: its time is launches and waiting); memory otherwise.
std::string op_regime(double seconds, double bytes, double flops, double copy_bytes_per_s, double tensor_flops_per_s,
                      double fp32_flops_per_s);
inline constexpr double kOpNearFloor = 0.7, kOpIdleShare = 0.10;

// What the step's numbers say for and against each regime, one sentence each with the figures
// (the host against the GPU, the launches' fixed cost, the fraction of the floor, the op most over
// its floor and its two rates): the evidence a diagnosis is scored against.
struct RegimeEvidence {
    std::string regime;
    bool shown = false;    // the step's reading is this regime
    std::string sentence;
};
std::vector<RegimeEvidence> regime_evidence(const IncidentReport& report);

// The record's text for the terminal: tokens/s, the floor, the reading and the op table.
std::string incident_text(const IncidentReport& report);

}  // namespace roofline

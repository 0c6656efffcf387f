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

#include <string>
#include <vector>

namespace roofline {

struct ServeOp {
    std::string name;
    double seconds = 0;  // in the instrumented step
    double bytes = 0, flops = 0;
    double floor_s = 0;  // the op's own floor at the same roofs
};

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

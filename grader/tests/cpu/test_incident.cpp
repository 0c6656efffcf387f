// Module 10's incident lab on the CPU: the serve record (incident_report.hpp) written from a
// report and read back as untrusted input, the diagnosis scored against the step's own numbers
// (incident_score.hpp), the answer key, the log entry, the two pictures (svg_step.hpp), the
// `roofline diagnose LAB/INCIDENT` command and the report's incidents section. The steps are the
// recorded batch-1 run (results/2026-12-02-h200-run92-serve-b1.txt) and two built by hand, one
// per remaining regime.
#include "catch.hpp"
#include "test_support.hpp"

#include "html_report.hpp"
#include "incident_report.hpp"
#include "incident_score.hpp"
#include "input_error.hpp"
#include "prediction_log.hpp"
#include "serve_report.hpp"
#include "source_hash.hpp"
#include "svg_step.hpp"

#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <regex>

using namespace roofline;
using roofline_test::contains;

namespace {

using OpTimes = std::vector<std::pair<std::string, double>>;  // name, ms

// What roofline-decode-server writes (server_main.cu) for a step of these figures.
nlohmann::json server_output(int batch, long long context, bool graph, int launches, double step_ms, double single_ms,
                             double host_ms, double instrumented_ms, const OpTimes& ops, long long vocab_rows = 128256) {
    nlohmann::json op_list = nlohmann::json::array();
    for (const auto& [name, ms] : ops) op_list.push_back({{"name", name}, {"seconds", ms * 1e-3}});
    return {{"program", "roofline-decode-server"},
            {"config", "incidents/x.yaml"},
            {"device", "Test GPU"},
            {"model",
             {{"hidden", 4096}, {"layers", 32}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"mlp", 14336},
              {"vocab", 128256}, {"vocab_rows", vocab_rows}}},
            {"batch", batch},
            {"context", context},
            {"contexts", std::vector<long long>(std::size_t(batch), context)},
            {"graph", graph},
            {"per_request", !graph},
            {"launches_per_step", launches},
            {"step_s", step_ms * 1e-3},
            {"single_step_s", single_ms * 1e-3},
            {"host_enqueue_s", host_ms * 1e-3},
            {"instrumented_step_s", instrumented_ms * 1e-3},
            {"ops", op_list}};
}

// The recorded run: batch 1 from its graph on an H200 (run 92), its table as `serve` printed it.
nlohmann::json recorded_b1() {
    return server_output(1, 4103, true, 389, 5.860, 5.893, 0.009, 7.056,
                         {{"embed", 0.031}, {"rmsnorm", 0.860}, {"qkv_gemm", 0.603}, {"rope_kv", 0.162},
                          {"attention", 1.177}, {"o_gemm", 0.508}, {"residual", 0.257}, {"gate_up_gemm", 1.930},
                          {"swiglu", 0.156}, {"down_gemm", 1.079}, {"lm_head", 0.238}, {"argmax", 0.053}});
}

// Built by hand: batch 64 near each op's floor but the LM head at CUDA-core rates (4.5 ms).
nlohmann::json lm_head_on_cuda_cores() {
    return server_output(64, 4096, true, 389, 15.7, 15.8, 0.012, 16.1,
                         {{"embed", 0.02}, {"rmsnorm", 0.05}, {"qkv_gemm", 0.40}, {"rope_kv", 0.03}, {"attention", 7.9},
                          {"o_gemm", 0.27}, {"residual", 0.04}, {"gate_up_gemm", 1.80}, {"swiglu", 0.04},
                          {"down_gemm", 0.92}, {"lm_head", 4.5}, {"argmax", 0.03}},
                         128258);
}

// Built by hand: batch 12 with no graph, one request at a time, the host as slow as the GPU.
nlohmann::json launch_storm() {
    return server_output(12, 1024, false, 3238, 19.8, 19.9, 18.0, 19.9,
                         {{"embed", 0.06}, {"rmsnorm", 1.9}, {"qkv_gemm", 0.75}, {"rope_kv", 2.1}, {"attention", 6.3},
                          {"o_gemm", 0.55}, {"residual", 0.7}, {"gate_up_gemm", 2.3}, {"swiglu", 0.5},
                          {"down_gemm", 1.2}, {"lm_head", 0.45}, {"argmax", 2.6}});
}

// The record `roofline serve` keeps of that output, as the grader writes it.
nlohmann::json record_of(const nlohmann::json& server, const std::string& incident) {
    auto report = serve_report(server, "server.json", roofline_test::test_gpu(), nullptr);
    return serve_record_json(report, incident, "labs/10-production/server/incidents/" + incident + ".yaml",
                             "2026-12-02T08:00:00Z");
}

IncidentReport read_back(const nlohmann::json& record) { return read_incident_report(record.dump(2), "incident.json"); }

Diagnosis diagnosis_of(const std::string& incident, const std::string& cause, std::optional<double> tokens_per_s,
                       const std::string& digest_seen = "") {
    Diagnosis d;
    d.lab = "10-production";
    d.variant = incident;
    d.cause = cause;
    d.why = "the figures";
    d.source_hash = "config-hash";
    d.written_at = "2026-12-02T07:59:00Z";
    d.predicted_tokens_per_s = tokens_per_s;
    d.report_digest = digest_seen;
    return d;
}

int count_of(const std::string& text, const std::string& pattern) {
    std::regex re(pattern);
    return int(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

}  // namespace

TEST_CASE("the recorded batch-1 run read back from its record: memory, at the floor serve printed", "[incident]") {
    auto r = read_back(record_of(recorded_b1(), "baseline"));
    CHECK(r.reading.regime == "memory");
    CHECK(r.reading.culprit == "attention");
    // The run printed: floor 3.239 ms (308.7 tokens/s), 15.55 GB; step 5.860 ms, 170.6 tokens/s; 55% of the floor.
    CHECK(r.floor.floor_s * 1e3 == Approx(3.239).epsilon(5e-4));
    CHECK(r.floor.bytes / 1e9 == Approx(15.55).epsilon(5e-4));
    CHECK(r.tokens_per_s == Approx(170.6).epsilon(5e-4));
    CHECK(r.reading.fraction == Approx(0.55).margin(0.005));
    // Twelve ops end to end; they fill the 7.056 ms step to 0.03%, under the events' resolution: no gap.
    REQUIRE(r.spans.size() == 12);
    CHECK(r.spans.back().end_s * 1e3 == Approx(7.054).epsilon(1e-6));
    for (const auto& s : r.spans) CHECK_FALSE(s.gap());
    // rmsnorm's 0.86 ms for 1 MB: neither resource busy, an op of launches.
    for (const auto& op : r.ops) {
        if (op.name == "rmsnorm") CHECK(op.regime == "overhead");
        if (op.name == "gate_up_gemm") CHECK(op.regime == "memory");  // 7.5 GB in 1.93 ms, 81% of its floor
    }
}

TEST_CASE("each hand-built step reads its own regime, op by op too", "[incident]") {
    auto compute = read_back(record_of(lm_head_on_cuda_cores(), "incident-d"));
    CHECK(compute.reading.regime == "compute");
    CHECK(compute.reading.culprit == "lm_head");
    std::map<std::string, std::string> regime_of;
    for (const auto& op : compute.ops) regime_of[op.name] = op.regime;
    CHECK(regime_of["lm_head"] == "compute");
    CHECK(regime_of["attention"] == "memory");  // 7.9 ms against a 7.16 ms floor
    CHECK(regime_of["rmsnorm"] == "overhead");

    auto storm = read_back(record_of(launch_storm(), "incident-b"));
    CHECK(storm.reading.regime == "overhead");
}

TEST_CASE("op_regime: the floor's regime near it; else the larger rate share, or overhead under 10% of both",
          "[incident]") {
    const double copy = 4.8e12, tensor = 989.4e12, fp32 = 67e12;
    CHECK(op_regime(1e-3, 4.5e9, 0, copy, tensor, fp32) == "memory");          // 0.94 ms floor: near it
    CHECK(op_regime(1e-3, 1e6, 900e12 * 1e-3, copy, tensor, fp32) == "compute");  // 0.91 ms of tensor FLOPs
    CHECK(op_regime(1e-3, 1e9, 30e9, copy, tensor, fp32) == "compute");        // 45% of fp32 against 21% of the copy rate
    CHECK(op_regime(1e-3, 1e9, 1e9, copy, tensor, fp32) == "memory");          // 21% of the copy rate, 1.5% of fp32
    CHECK(op_regime(1e-3, 1e6, 1e6, copy, tensor, fp32) == "overhead");        // neither resource busy
}

TEST_CASE("a diagnosis is scored against the step's numbers: right earns, wrong names the evidence", "[incident]") {
    auto storm = read_back(record_of(launch_storm(), "incident-b"));
    SECTION("the right regime and a close prediction: full marks") {
        auto s = score_incident(diagnosis_of("incident-b", "overhead", 650), storm, "digest-now", std::nullopt);
        CHECK(s.regime_right);
        CHECK(s.prediction_counts);
        CHECK(s.prediction_credit == 1);  // 650 against 606: 1.07x
        CHECK(s.points == kIncidentRegimePoints + kIncidentPredictionPoints);
    }
    SECTION("the wrong regime: no regime points, and the figures that read otherwise") {
        auto s = score_incident(diagnosis_of("incident-b", "memory", 650), storm, "digest-now", std::nullopt);
        CHECK_FALSE(s.regime_right);
        CHECK(s.points == kIncidentPredictionPoints);
        auto text = incident_score_text(s);
        roofline_test::check_mentions(text, {"you named memory", "read overhead", "18.000 ms", "19.900 ms",
                                            "against memory", "of its byte floor"});
    }
    SECTION("compute named for the launch storm: the evidence against compute is the op most over its floor") {
        auto s = score_incident(diagnosis_of("incident-b", "compute", std::nullopt), storm, "d", std::nullopt);
        CHECK(s.points == 0);
        CHECK(contains(incident_score_text(s), "against compute"));
        CHECK(contains(incident_score_text(s), "no prediction"));
    }
    SECTION("the prediction: half within 2x, nothing beyond, nothing when written after the record") {
        CHECK(score_incident(diagnosis_of("incident-b", "overhead", 1000), storm, "d", std::nullopt).prediction_credit ==
              0.5);
        CHECK(score_incident(diagnosis_of("incident-b", "overhead", 2000), storm, "d", std::nullopt).prediction_credit == 0);
        auto late = score_incident(diagnosis_of("incident-b", "overhead", 606, "d"), storm, "d", std::nullopt);
        CHECK_FALSE(late.prediction_counts);
        CHECK(late.points == kIncidentRegimePoints);
        CHECK(contains(incident_score_text(late), "earns nothing"));
    }
    SECTION("the answer key beside it: agreeing, or naming a run that read otherwise") {
        auto agrees = score_incident(diagnosis_of("incident-b", "overhead", 600), storm, "d", IncidentKey{"overhead", "", ""});
        CHECK(agrees.key_agrees);
        auto other = score_incident(diagnosis_of("incident-b", "overhead", 600), storm, "d", IncidentKey{"memory", "", "x"});
        CHECK_FALSE(other.key_agrees);
        CHECK(contains(incident_score_text(other), "look at this run"));
        // The key changes no points: the step's numbers decide.
        CHECK(other.points == agrees.points);
    }
}

TEST_CASE("the course's answer key: each incident's regime, by name with or without .yaml", "[incident]") {
    auto key = load_incident_key(roofline_test::repo_root() / "instructor" / "incidents" / "10-production.yaml");
    REQUIRE(key.count("incident-b"));
    CHECK(key["baseline"].regime == "memory");
    CHECK(key["incident-a"].regime == "memory");
    CHECK(key["incident-b"].regime == "overhead");
    CHECK(key["incident-c"].regime == "memory");
    CHECK(key["incident-d"].regime == "compute");
    CHECK(load_incident_key("/no/such/key.yaml").empty());  // the student edition has none
    roofline_test::TempDir dir;
    roofline_test::write_file(dir / "key.yaml", "incident-a:\n  regime: bandwidth\n");
    auto message = roofline_test::input_error_of([&] { load_incident_key(dir / "key.yaml"); });
    CHECK(contains(message, "key.yaml:2"));
}

TEST_CASE("a forged or malformed serve record is refused, naming the file and the field", "[incident]") {
    auto good = record_of(launch_storm(), "incident-b");
    REQUIRE_NOTHROW(read_back(good));
    struct Case {
        std::string what, field;
        std::function<void(nlohmann::json&)> edit;
    };
    std::vector<Case> cases{
        {"a step time missing", "serve.step_s", [](nlohmann::json& j) { j["serve"].erase("step_s"); }},
        {"tokens/s raised", "serve.tokens_per_s", [](nlohmann::json& j) { j["serve"]["tokens_per_s"] = 5000; }},
        {"the regime rewritten", "serve.regime", [](nlohmann::json& j) { j["serve"]["regime"] = "memory"; }},
        {"an op's bytes", "serve.ops[4].bytes", [](nlohmann::json& j) { j["serve"]["ops"][4]["bytes"] = 1.0; }},
        {"an op renamed to one the model does not count", "serve.ops[0].bytes",
         [](nlohmann::json& j) { j["serve"]["ops"][0]["name"] = "moe_router"; }},
        {"an op's name that is not a name", "serve.ops[3].name",
         [](nlohmann::json& j) { j["serve"]["ops"][3]["name"] = "<script>"; }},
        {"an op twice", "serve.ops[1].name", [](nlohmann::json& j) { j["serve"]["ops"][1]["name"] = "embed"; }},
        {"a negative time", "serve.ops[2].seconds", [](nlohmann::json& j) { j["serve"]["ops"][2]["seconds"] = -1; }},
        {"a time that is text", "serve.single_step_s", [](nlohmann::json& j) { j["serve"]["single_step_s"] = "fast"; }},
        {"a context dropped", "serve.contexts", [](nlohmann::json& j) { j["serve"]["contexts"].erase(0); }},
        {"the floor lowered", "serve.floor.floor_s", [](nlohmann::json& j) { j["serve"]["floor"]["floor_s"] = 1e-3; }},
        {"another format", "format", [](nlohmann::json& j) { j["format"] = "something else"; }},
        {"a batch of 1000", "serve.batch", [](nlohmann::json& j) { j["serve"]["batch"] = 1000; }},
        {"a model of 0 layers", "model.layers", [](nlohmann::json& j) { j["model"]["layers"] = 0; }},
        {"an event before the last", "serve.events[1].start_s",
         [](nlohmann::json& j) {
             j["serve"]["events"] = {{{"name", "embed"}, {"start_s", 0.0}, {"end_s", 1e-3}},
                                     {{"name", "rmsnorm"}, {"start_s", 0.5e-3}, {"end_s", 2e-3}}};
         }},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto forged = good;
        c.edit(forged);
        auto message = roofline_test::input_error_of([&] { read_back(forged); });
        CHECK(contains(message, "incident.json"));
        CHECK(contains(message, "`" + c.field + "`"));
    }
    auto message = roofline_test::input_error_of([] { read_incident_report("{\"format\": ", "cut.json"); });
    CHECK(contains(message, "cut.json"));
    CHECK(contains(message, "not a JSON record"));
    CHECK(contains(roofline_test::input_error_of([] { load_incident_report("/no/such/record.json"); }), "roofline serve"));
}

TEST_CASE("an incident diagnosis goes into the log and comes back, the newest one found", "[incident][log]") {
    roofline_test::TempDir dir;
    auto log = dir / "predictions.yaml";
    append_diagnosis(log, diagnosis_of("incident-b", "memory", 400));
    append_diagnosis(log, diagnosis_of("incident-b", "overhead", 606.5, "abc123"));
    auto kernel = diagnosis_of("decode_attention_b1_4k", "occupancy", std::nullopt);
    append_diagnosis(log, kernel);  // a kernel's, in the same lab
    auto read = load_log(log);
    REQUIRE(read.diagnoses.size() == 3);
    CHECK(read.diagnoses[0].predicted_tokens_per_s == Approx(400));
    CHECK(read.diagnoses[0].report_digest.empty());
    CHECK(read.diagnoses[1].report_digest == "abc123");
    CHECK_FALSE(read.diagnoses[2].predicted_tokens_per_s);
    const auto* newest = newest_incident_diagnosis(read, "10-production", "incident-b");
    REQUIRE(newest);
    CHECK(newest->cause == "overhead");
    CHECK(newest_incident_diagnosis(read, "10-production", "incident-d") == nullptr);
    CHECK(newest_incident_diagnosis(read, "10-production", "decode_attention_b1_4k") == nullptr);  // not a regime
}

namespace {

struct Span {
    const char* name;
    double start_ms, end_ms;
};

// A server's output with the events it writes (server_main.cu): each op's start and end, in order,
// and the ops' times as the server takes them from those spans (each op's spans summed; an op
// without a span is not in the step).
nlohmann::json with_events(nlohmann::json server, const std::vector<Span>& spans) {
    nlohmann::json events = nlohmann::json::array();
    for (const auto& s : spans) events.push_back({{"name", s.name}, {"start_s", s.start_ms * 1e-3}, {"end_s", s.end_ms * 1e-3}});
    server["events"] = events;
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& op : server["ops"]) {
        double seconds = 0;
        bool spanned = false;
        for (const auto& s : spans)
            if (op["name"] == s.name) seconds += (s.end_ms - s.start_ms) * 1e-3, spanned = true;
        if (spanned) ops.push_back({{"name", op["name"]}, {"seconds", seconds}});
    }
    server["ops"] = ops;
    return server;
}

// In the launch storm's 19.9 ms instrumented step: gaps of 0.1 ms before the first span, 0.1 ms
// before qkv_gemm, 2 ms before argmax and 0.9 ms after it (3.1 ms, 15.6%); none between rmsnorm and
// embed, nor around the zero-length attention.
const std::vector<Span> kStormSpans{{"embed", 0.1, 0.2},     {"rmsnorm", 0.2, 0.5},   {"qkv_gemm", 0.6, 1.0},
                                    {"attention", 1.0, 1.0}, {"o_gemm", 1.0, 3.0},    {"argmax", 5.0, 19.0}};

}  // namespace

TEST_CASE("the step's timeline: one bar per op coloured by its regime, a gap where the events leave one",
          "[incident][pictures]") {
    auto compute = read_back(record_of(lm_head_on_cuda_cores(), "incident-d"));
    auto svg = step_timeline_svg(compute);
    CHECK(count_of(svg, "<rect class='op'") == int(compute.ops.size()));
    for (const auto& op : compute.ops) {
        INFO(op.name);
        CHECK(count_of(svg, "data-op='" + op.name + "' data-regime='" + op.regime + "'[^>]*fill='" +
                                std::string(regime_colour(op.regime)) + "'") == 1);
    }
    // All three colours are there: lm_head compute, attention memory, rmsnorm overhead.
    for (const auto* regime : {"compute", "memory", "overhead"})
        CHECK(count_of(svg, std::string("class='op'[^>]*fill='") + regime_colour(regime) + "'") >= 1);
    // 16.1 ms instrumented, the ops add up to 16.0: the last 0.1 ms is a gap at the end.
    CHECK(count_of(svg, "<rect class='gap'") == 1);

    // Events with a 1 ms hole between the second op and the third: the gap is drawn there.
    auto spanned = read_back(record_of(
        with_events(recorded_b1(), {{"embed", 0.0, 0.5}, {"rmsnorm", 0.5, 1.5}, {"qkv_gemm", 2.5, 7.056}}), "baseline"));
    REQUIRE(spanned.spans.size() == 4);
    CHECK(spanned.spans[2].gap());
    auto drawn = step_timeline_svg(spanned);
    REQUIRE(count_of(drawn, "<rect class='gap'") == 1);
    std::smatch m;
    REQUIRE(std::regex_search(drawn, m, std::regex("<rect class='gap' x='([0-9.]+)' y='[0-9.]+' width='([0-9.]+)'")));
    // The axis: 760 px for 7.056 ms from x = 16.
    CHECK(std::stod(m[1]) == Approx(16 + 1.5 / 7.056 * 760).margin(0.02));
    CHECK(std::stod(m[2]) == Approx(1.0 / 7.056 * 760).margin(0.02));
}


TEST_CASE("the server's events carried through serve's report into the record: spans, gaps and their total",
          "[incident][events]") {
    auto server = with_events(launch_storm(), kStormSpans);
    auto report = serve_report(server, "server.json", roofline_test::test_gpu(), nullptr);
    REQUIRE(report.events.size() == kStormSpans.size());
    CHECK(report.events[4].name == "o_gemm");
    CHECK(report.events[4].start_s == Approx(1.0e-3));
    CHECK(report.gap_s * 1e3 == Approx(3.1));
    CHECK(contains(serve_text(report), "gaps: 3.100 ms of the instrumented step's 19.900 ms (15.6%)"));
    CHECK(contains(serve_text(report), "an event before and after each op"));
    auto json = serve_json(report);
    REQUIRE(json.contains("events"));
    CHECK(json["events"] == server["events"]);  // as the server wrote them
    CHECK(json["gap_s"].get<double>() == Approx(3.1e-3));
    // An older server wrote none: no events, no gap line, the split "before each op".
    auto older = serve_report(launch_storm(), "server.json", roofline_test::test_gpu(), nullptr);
    CHECK_FALSE(serve_json(older).contains("events"));
    CHECK_FALSE(contains(serve_text(older), "gaps:"));

    auto record = record_of(server, "incident-b");
    CHECK(record["serve"]["events"] == server["events"]);
    auto r = read_back(record);
    REQUIRE(r.has_events);
    CHECK(r.event_count == kStormSpans.size());
    CHECK(r.gap_s * 1e3 == Approx(3.1));
    // The axis: a gap, embed, rmsnorm, a gap, qkv_gemm, attention, o_gemm, a gap, argmax, a gap.
    std::vector<std::string> names;
    for (const auto& s : r.spans) names.push_back(s.gap() ? "(gap)" : s.name);
    CHECK(names == std::vector<std::string>{"(gap)", "embed", "rmsnorm", "(gap)", "qkv_gemm", "attention", "o_gemm",
                                            "(gap)", "argmax", "(gap)"});
    CHECK(r.spans[7].start_s * 1e3 == Approx(3.0));
    CHECK(r.spans[7].end_s * 1e3 == Approx(5.0));
    CHECK(r.spans[9].end_s * 1e3 == Approx(19.9));
    CHECK(contains(incident_text(r), "gaps: 3.100 ms of the instrumented step's 19.900 ms (15.6%) ran no op, outside "
                                     "its 6 spans"));
    CHECK_FALSE(contains(incident_text(read_back(record_of(launch_storm(), "incident-b"))), "gaps:"));
    // The figure is shown beside the overhead evidence; the reading is the one without events.
    auto evidence = regime_evidence(r);
    CHECK(contains(evidence[0].sentence, "ran no op for 3.100 ms of its 19.900 ms (16%)"));
    auto without = read_back(record_of(launch_storm(), "incident-b"));
    CHECK(r.reading.regime == without.reading.regime);
    CHECK(r.reading.rule == without.reading.rule);
}

TEST_CASE("events that are out of order, of no op, or past the step are refused, naming the field",
          "[incident][events]") {
    struct Case {
        std::string what, server_field, record_field;
        std::function<void(nlohmann::json&)> edit;  // of the events list
    };
    std::vector<Case> cases{
        {"a span starting before the previous one ends", "events[2].start_s", "serve.events[2].start_s",
         [](nlohmann::json& e) { e[2]["start_s"] = 0.4e-3; }},
        {"an op the report does not have", "events[1].name", "serve.events[1].name",
         [](nlohmann::json& e) { e[1]["name"] = "moe_router"; }},
        {"a span past the step's end", "events[5].end_s", "serve.events[5].end_s",
         [](nlohmann::json& e) { e[5]["end_s"] = 25e-3; }},
        {"a span ending before it starts", "events[4].end_s", "serve.events[4].end_s",
         [](nlohmann::json& e) { e[4]["end_s"] = 0.5e-3; }},
        {"a start that is text", "start_s", "serve.events[0].start_s", [](nlohmann::json& e) { e[0]["start_s"] = "soon"; }},
        {"a span without its end", "end_s", "serve.events[3].end_s", [](nlohmann::json& e) { e[3].erase("end_s"); }},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto server = with_events(launch_storm(), kStormSpans);
        c.edit(server["events"]);
        auto from_server = roofline_test::input_error_of(
            [&] { serve_report(server, "server.json", roofline_test::test_gpu(), nullptr); });
        CHECK(contains(from_server, "server.json"));
        CHECK(contains(from_server, c.server_field));
        // The same edit in a record serve kept of a good run.
        auto record = record_of(with_events(launch_storm(), kStormSpans), "incident-b");
        c.edit(record["serve"]["events"]);
        auto from_record = roofline_test::input_error_of([&] { read_back(record); });
        CHECK(contains(from_record, "incident.json"));
        CHECK(contains(from_record, "`" + c.record_field + "`"));
    }
    SECTION("an op's time that its spans do not add up to, and an op without a span") {
        auto server = with_events(launch_storm(), kStormSpans);
        REQUIRE(server["ops"][4]["name"] == "o_gemm");
        REQUIRE_NOTHROW(serve_report(server, "server.json", roofline_test::test_gpu(), nullptr));
        auto longer = server;
        longer["ops"][4]["seconds"] = 2.5e-3;  // its one span lasts 2 ms
        auto message = roofline_test::input_error_of(
            [&] { serve_report(longer, "server.json", roofline_test::test_gpu(), nullptr); });
        CHECK(contains(message, "server.json"));
        CHECK(contains(message, "op `o_gemm` takes 0.0025 s in `ops` but its spans in `events` add up to 0.002 s"));
        auto unspanned = server;
        unspanned["ops"].push_back({{"name", "lm_head"}, {"seconds", 1e-3}});
        CHECK(contains(roofline_test::input_error_of(
                           [&] { serve_report(unspanned, "server.json", roofline_test::test_gpu(), nullptr); }),
                       "op `lm_head` has no span in `events`"));
        // In a record serve kept of a good run: o_gemm's span shortened (the gap total dropped,
        // which would be refused first), so the timeline would no longer show the op table's time.
        auto record = record_of(server, "incident-b");
        REQUIRE_NOTHROW(read_back(record));
        record["serve"]["events"][4]["end_s"] = 2.5e-3;
        record["serve"].erase("gap_s");
        auto from_record = roofline_test::input_error_of([&] { read_back(record); });
        CHECK(contains(from_record, "incident.json"));
        CHECK(contains(from_record, "`serve.events`"));
        CHECK(contains(from_record, "op `o_gemm`"));
    }
    SECTION("the record's gap total against its events, and a list too long") {
        auto record = record_of(with_events(launch_storm(), kStormSpans), "incident-b");
        REQUIRE_NOTHROW(read_back(record));
        auto forged = record;
        forged["serve"]["gap_s"] = 0.0;
        CHECK(contains(roofline_test::input_error_of([&] { read_back(forged); }), "`serve.gap_s`"));
        auto long_list = record;
        nlohmann::json many = nlohmann::json::array();
        for (std::size_t i = 0; i <= kMaxServeEvents; ++i)
            many.push_back({{"name", "embed"}, {"start_s", i * 1e-7}, {"end_s", i * 1e-7}});
        long_list["serve"]["events"] = many;
        long_list["serve"].erase("gap_s");
        CHECK(contains(roofline_test::input_error_of([&] { read_back(long_list); }), "`serve.events` holds"));
        auto server = with_events(launch_storm(), kStormSpans);
        server["events"] = many;
        CHECK(contains(roofline_test::input_error_of(
                           [&] { serve_report(server, "server.json", roofline_test::test_gpu(), nullptr); }),
                       "`events` must be a list of at most"));
    }
}

TEST_CASE("the timeline from events: a bar per span, a gap bar per gap, the gaps' total in the legend",
          "[incident][events][pictures]") {
    // Thirty layers of the batched step's 11 ops (330 spans) in the 19.9 ms step:
    // every third span starts 20 us after the one before ends, the others touch it.
    const std::vector<const char*> layer{"rmsnorm",  "qkv_gemm", "rope_kv",      "attention", "o_gemm",   "residual",
                                         "rmsnorm",  "gate_up_gemm", "swiglu", "down_gemm", "residual"};
    std::vector<Span> spans;
    double at = 0;
    int gaps_between = 0;
    for (int l = 0; l < 30; ++l)
        for (const char* name : layer) {
            const bool gap_before = spans.size() % 3 == 2;
            if (gap_before) at += 0.02, ++gaps_between;
            spans.push_back({name, at, at + 0.05});
            at += 0.05;
        }
    REQUIRE(at < 19.9);  // so the step's remainder after the last span is one more gap
    auto r = read_back(record_of(with_events(launch_storm(), spans), "incident-b"));
    auto svg = step_timeline_svg(r);
    CHECK(count_of(svg, "<rect class='op'") == int(spans.size()));
    CHECK(count_of(svg, "<rect class='gap'") == gaps_between + 1);
    int gap_spans = 0;
    for (const auto& s : r.spans) gap_spans += s.gap();
    CHECK(gap_spans == gaps_between + 1);
    // Each bar keeps its title with its times.
    CHECK(count_of(svg, "<title>gap ") == gaps_between + 1);
    CHECK(count_of(svg, "<title>rmsnorm: ") == 60);
    CHECK(r.gap_s * 1e3 == Approx(gaps_between * 0.02 + (19.9 - at)));
    CHECK(contains(svg, fmt::format("class='gap-total'>gaps: {:.3f} ms", r.gap_s * 1e3)));
    CHECK(contains(svg, "an event before and after each op"));
    // Without events the legend has no such line.
    CHECK_FALSE(contains(step_timeline_svg(read_back(record_of(launch_storm(), "incident-b"))), "gap-total"));
}

TEST_CASE("the step on the roofline: a mark for each op that moves bytes, and one for the step", "[incident][pictures]") {
    auto r = read_back(record_of(recorded_b1(), "baseline"));
    auto svg = step_roofline_svg(r);
    int placed = 0;
    for (const auto& op : r.ops) placed += op.bytes > 0 || op.flops > 0;
    CHECK(placed == 9);  // residual, swiglu and argmax: no bytes counted (activations are left out)
    CHECK(count_of(svg, "<circle class='mark'") == placed + 1);
    CHECK(contains(svg, "the whole step (memory)"));
}

namespace {

// A course root with the hardware profiles and module 10's lab (its incident configurations).
void module10_course(const std::filesystem::path& dir) {
    std::filesystem::copy(roofline_test::repo_root() / "hardware", dir / "hardware", std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(dir / "labs");
    std::filesystem::copy(roofline_test::repo_root() / "labs" / "10-production", dir / "labs" / "10-production",
                          std::filesystem::copy_options::recursive);
}

}  // namespace

TEST_CASE("roofline diagnose 10-production/incident-b: recorded in the log, scored, pictures written", "[incident][cli]") {
    roofline_test::TempDir dir;
    module10_course(dir.path());
    auto record_file = dir / ".roofline/serve/incident-b.json";
    roofline_test::write_file(record_file, record_of(launch_storm(), "incident-b").dump(2));
    auto root = "--root " + roofline_test::shell_quote(dir.path().string());

    SECTION("the wrong regime: recorded, scored down, the evidence named") {
        auto r = roofline_test::run_cli(root + " diagnose 10-production/incident-b --cause memory --tokens-per-s 650 "
                                               "--why 'attention reads the KV cache'");
        INFO(r.all());
        CHECK(r.exit_code == 0);
        roofline_test::check_mentions(r.out, {"recorded in", "you named memory", "read overhead", "launches",
                                              "points: 0 of 3", "incident-b-timeline.svg"});
        auto log = load_log(dir / "predictions.yaml");
        REQUIRE(log.diagnoses.size() == 1);
        CHECK(log.diagnoses[0].cause == "memory");
        CHECK(log.diagnoses[0].report_digest == hash_file(record_file));  // written after the run: seen
        CHECK(contains(roofline_test::read_file(dir / ".roofline/serve/incident-b-timeline.svg"), "<rect class='op'"));
        CHECK(std::filesystem::exists(dir / ".roofline/serve/incident-b-roofline.svg"));
        // --score: the newest diagnosis again, nothing appended.
        auto again = roofline_test::run_cli(root + " diagnose 10-production/incident-b --score");
        CHECK(again.exit_code == 0);
        CHECK(contains(again.out, "you named memory"));
        CHECK(load_log(dir / "predictions.yaml").diagnoses.size() == 1);
    }
    SECTION("a prediction before the run earns its point once the run is saved") {
        std::filesystem::remove(record_file);
        auto before = roofline_test::run_cli(root + " diagnose 10-production/incident-b --cause overhead "
                                                    "--tokens-per-s 600 --why 'no graph for a batch of 12'");
        INFO(before.all());
        CHECK(before.exit_code == 0);
        CHECK(contains(before.out, "no record of a run yet"));
        roofline_test::write_file(record_file, record_of(launch_storm(), "incident-b").dump(2));
        auto after = roofline_test::run_cli(root + " diagnose 10-production/incident-b --score");
        INFO(after.all());
        CHECK(contains(after.out, "points: 3 of 3"));
    }
    SECTION("a forged record: one line naming the file and the field, nothing written") {
        auto forged = record_of(launch_storm(), "incident-b");
        forged["serve"]["regime"] = "memory";
        roofline_test::write_file(record_file, forged.dump(2));
        auto r = roofline_test::run_cli(root + " diagnose 10-production/incident-b --cause memory --why 'x'");
        roofline_test::check_one_line_error(r);
        roofline_test::check_mentions(r.err, {"incident-b.json", "`serve.regime`"});
        CHECK_FALSE(std::filesystem::exists(dir / "predictions.yaml"));
    }
    SECTION("a kernel's cause for an incident, or a regime without evidence, is refused") {
        roofline_test::check_refused(root + " diagnose 10-production/incident-b --cause uncoalesced --why x",
                                     {"compute, memory or overhead"});
        roofline_test::check_refused(root + " diagnose 10-production/incident-b --cause overhead", {"--why"});
        CHECK_FALSE(std::filesystem::exists(dir / "predictions.yaml"));
    }
}

TEST_CASE("roofline report shows each incident's record, or why it does not", "[incident][html]") {
    roofline_test::TempDir dir;
    module10_course(dir.path());
    roofline_test::write_file(dir / ".roofline/serve/incident-d.json", record_of(lm_head_on_cuda_cores(), "incident-d").dump());
    auto forged = record_of(launch_storm(), "incident-b");
    forged["serve"]["tokens_per_s"] = 9999;
    roofline_test::write_file(dir / ".roofline/serve/incident-b.json", forged.dump());
    Workspace ws{dir.path(), dir / "build"};
    append_diagnosis(dir / "predictions.yaml", diagnosis_of("incident-d", "compute", 4000));
    auto html = student_report_html(ws, dir / "predictions.yaml");
    CHECK(contains(html, "id='incidents'"));
    CHECK(count_of(html, "<figure class='step-timeline'>") == 1);
    CHECK(count_of(html, "<figure class='step-roofline'>") == 1);
    CHECK(contains(html, "you named compute, and the step"));
    CHECK(contains(html, "Not shown: "));
    CHECK(contains(html, "`serve.tokens_per_s`"));
}

// The course's own recorded runs of the five configurations on an H200 (run 100, `roofline serve`'s
// records, copied from .roofline/serve/): each reads back, checked field by field, to the regime
// the answer key gives it. A change to the reading's rules that moves one of them fails here.
TEST_CASE("the recorded H200 runs of the baseline and the four incidents read the answer key's regimes", "[incident]") {
    const auto records = roofline_test::repo_root() / "results" / "2026-12-02-h200-run100-serve-records";
    auto key = load_incident_key(roofline_test::repo_root() / "instructor" / "incidents" / "10-production.yaml");
    int read = 0;
    for (const char* name : {"baseline", "incident-a", "incident-b", "incident-c", "incident-d"}) {
        INFO(name);
        auto r = load_incident_report(records / (std::string(name) + ".json"));
        REQUIRE(key.count(name));
        CHECK(r.reading.regime == key[name].regime);
        CHECK(r.incident == name);
        ++read;
    }
    CHECK(read == 5);
}

// Two of run 108's `roofline serve --json` reports on an H200 (the batch-1 fused step, 163 spans;
// the batch-64 baseline, 357): every op's time is its spans' sum as the server wrote them, so the
// check a record's reader makes accepts what the real server writes; one op moved by a
// microsecond is caught.
TEST_CASE("the recorded H200 serve reports: each op's time is its spans' sum", "[incident][events]") {
    const auto folder = roofline_test::repo_root() / "results" / "2026-12-02-h200-run108-serve";
    for (const char* name : {"serve-b1-c4096-fused", "serve-baseline"}) {
        INFO(name);
        std::ifstream in(folder / (std::string(name) + ".json"));
        REQUIRE(in);
        const auto report = nlohmann::json::parse(in);
        std::vector<ServeEvent> events;
        for (const auto& e : report.at("events"))
            events.push_back({e.at("name").get<std::string>(), e.at("start_s").get<double>(), e.at("end_s").get<double>()});
        std::vector<std::pair<std::string, double>> op_seconds;
        for (const auto& op : report.at("ops")) op_seconds.emplace_back(op.at("name").get<std::string>(), op.at("seconds").get<double>());
        REQUIRE(events.size() > 100);
        CHECK_FALSE(op_span_fault(events, op_seconds).has_value());
        op_seconds[2].second += 1e-6;
        auto fault = op_span_fault(events, op_seconds);
        REQUIRE(fault.has_value());
        CHECK(fault->op == op_seconds[2].first);
    }
}

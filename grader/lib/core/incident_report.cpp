#include "incident_report.hpp"

#include "file_text.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace roofline {

nlohmann::json serve_record_json(const ServeReport& r, const std::string& incident, const std::string& config,
                                 const std::string& saved_at) {
    return {
        {"format", kServeRecordFormat},
        {"incident", incident},
        {"config", config},
        {"saved_at", saved_at},
        {"model",
         {{"hidden", r.model.hidden}, {"layers", r.model.layers}, {"q_heads", r.model.q_heads},
          {"kv_heads", r.model.kv_heads}, {"head_dim", r.model.head_dim}, {"mlp", r.model.mlp},
          {"vocab_rows", r.model.vocab}, {"weight_bytes", r.model.weight_bytes}, {"kv_bytes", r.model.kv_bytes}}},
        {"fp32_flops_per_s", r.fp32_flops_per_s},
        {"per_launch_s", r.timing.per_launch_s},
        {"serve", serve_json(r)},
    };
}

namespace {

// A field of the record, with the path to it for messages: `serve.ops[2].seconds`.
class Field {
public:
    Field(const nlohmann::json& value, std::string path, const std::filesystem::path& file)
        : value_(value), path_(std::move(path)), file_(file) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(fmt::format("{}: `{}` {}; the record is written by `roofline serve`: run it again rather "
                                     "than edit the file",
                                     file_.string(), path_, what));
    }
    Field at(const std::string& key) const {
        if (!value_.is_object()) fail("must be an object");
        if (!value_.contains(key)) {
            Field(value_, join(key), file_).fail("is missing");
        }
        return Field(value_.at(key), join(key), file_);
    }
    bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }
    Field item(std::size_t i) const { return Field(value_.at(i), fmt::format("{}[{}]", path_, i), file_); }
    std::size_t size() const {
        if (!value_.is_array()) fail("must be a list");
        return value_.size();
    }
    std::string text() const {
        if (!value_.is_string()) fail(fmt::format("must be text, not {}", value_.dump()));
        return value_.get<std::string>();
    }
    bool boolean() const {
        if (!value_.is_boolean()) fail(fmt::format("must be true or false, not {}", value_.dump()));
        return value_.get<bool>();
    }
    double number(double low, double high) const {
        if (!value_.is_number() || !std::isfinite(value_.get<double>()))
            fail(fmt::format("must be a number, not {}", value_.dump()));
        double v = value_.get<double>();
        if (v < low || v > high) fail(fmt::format("is {}, outside {:g} to {:g}", value_.dump(), low, high));
        return v;
    }
    long long whole(long long low, long long high) const {
        if (!value_.is_number_integer()) fail(fmt::format("must be a whole number, not {}", value_.dump()));
        auto v = value_.get<long long>();
        if (v < low || v > high) fail(fmt::format("is {}, outside {} to {}", v, low, high));
        return v;
    }
    // The grader's own figure from the record's numbers against the record's: equal to a part in 10^6.
    void same_as(double computed, const std::string& how) const {
        double recorded = value_.is_number() ? value_.get<double>() : NAN;
        if (!(std::fabs(recorded - computed) <= 1e-6 * std::max(std::fabs(computed), 1e-30)))
            fail(fmt::format("is {} but {} gives {:.9g}", value_.dump(), how, computed));
    }

private:
    std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    const nlohmann::json& value_;
    std::string path_;
    const std::filesystem::path& file_;
};

constexpr double kMaxRate = 1e18;  // far above any GPU's bytes or FLOPs per second
constexpr double kMaxSeconds = 3600;

double sum_seconds(const std::vector<IncidentOp>& ops) {
    double total = 0;
    for (const auto& op : ops) total += op.seconds;
    return total;
}

}  // namespace

std::string op_regime(double seconds, double bytes, double flops, double copy_bytes_per_s, double tensor_flops_per_s,
                      double fp32_flops_per_s) {
    const double bytes_s = bytes / copy_bytes_per_s, flops_s = flops / tensor_flops_per_s;
    const double floor_s = std::max(bytes_s, flops_s);
    if (seconds <= 0 || (floor_s > 0 && floor_s >= kOpNearFloor * seconds)) return bytes_s >= flops_s ? "memory" : "compute";
    const double byte_share = bytes / seconds / copy_bytes_per_s, flop_share = flops / seconds / fp32_flops_per_s;
    if (byte_share < kOpIdleShare && flop_share < kOpIdleShare) return "overhead";
    return flop_share > byte_share ? "compute" : "memory";
}

IncidentReport read_incident_report(const std::string& text, const std::filesystem::path& file) {
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}: not a JSON record of `roofline serve` ({}); run roofline serve CONFIG again",
                                     file.string(), e.what()));
    }
    Field top(root, "", file);
    if (top.at("format").text() != kServeRecordFormat)
        top.at("format").fail(fmt::format("must be \"{}\" (this roofline's)", kServeRecordFormat));
    IncidentReport r;
    r.file = file;
    r.incident = top.at("incident").text();
    r.config = top.at("config").text();
    r.saved_at = top.at("saved_at").text();
    auto m = top.at("model");
    r.model.hidden = m.at("hidden").whole(1, 1 << 20);
    r.model.layers = m.at("layers").whole(1, 4096);
    r.model.q_heads = m.at("q_heads").whole(1, 4096);
    r.model.kv_heads = m.at("kv_heads").whole(1, 4096);
    r.model.head_dim = m.at("head_dim").whole(1, 4096);
    r.model.mlp = m.at("mlp").whole(1, 1 << 22);
    r.model.vocab = m.at("vocab_rows").whole(1, 1 << 24);
    r.model.weight_bytes = m.at("weight_bytes").number(0.5, 8);
    r.model.kv_bytes = m.at("kv_bytes").number(0.5, 8);
    if (r.model.q_heads % r.model.kv_heads != 0) m.at("kv_heads").fail("must divide q_heads");
    r.fp32_flops_per_s = top.at("fp32_flops_per_s").number(1, kMaxRate);
    r.timing.per_launch_s = top.at("per_launch_s").number(0, 1);

    auto s = top.at("serve");
    r.device = s.at("device").text();
    r.hardware = s.at("hardware").text();
    r.batch = int(s.at("batch").whole(1, 64));
    auto contexts = s.at("contexts");
    if (contexts.size() != std::size_t(r.batch))
        contexts.fail(fmt::format("holds {} sequences for a batch of {}", contexts.size(), r.batch));
    for (std::size_t i = 0; i < contexts.size(); ++i) r.contexts.push_back(contexts.item(i).whole(0, 1 << 20));
    r.graph = s.at("graph").boolean();
    r.per_request = s.at("per_request").boolean();
    r.timing.launches = int(s.at("launches_per_step").whole(1, 1 << 24));
    r.timing.step_s = s.at("step_s").number(1e-9, kMaxSeconds);
    r.timing.single_step_s = s.at("single_step_s").number(1e-9, kMaxSeconds);
    r.timing.host_enqueue_s = s.at("host_enqueue_s").number(0, kMaxSeconds);
    r.instrumented_step_s = s.at("instrumented_step_s").number(1e-9, kMaxSeconds);
    r.tokens_per_s = r.batch / r.timing.step_s;
    s.at("tokens_per_s").same_as(r.tokens_per_s, "batch / step_s");
    auto f = s.at("floor");
    r.copy_bytes_per_s = f.at("copy_bytes_per_s").number(1, kMaxRate);
    r.tensor_flops_per_s = f.at("tensor_flops_per_s").number(1, kMaxRate);

    // The floor and each op's cost from the shapes and contexts, against the record's.
    r.floor = decode_step_floor(r.model, r.contexts, r.copy_bytes_per_s, r.tensor_flops_per_s);
    f.at("bytes").same_as(r.floor.bytes, "the model's shapes and contexts (decode_step_bytes)");
    f.at("flops").same_as(r.floor.flops, "the model's shapes and contexts (decode_step_flops)");
    f.at("floor_s").same_as(r.floor.floor_s, "the floor's bytes and FLOPs at its two roofs");
    if (f.at("binds").text() != (r.floor.memory_binds ? "memory" : "compute"))
        f.at("binds").fail(fmt::format("must be {} for these bytes and FLOPs", r.floor.memory_binds ? "memory" : "compute"));
    s.at("fraction_of_floor").same_as(r.floor.floor_s / r.timing.step_s, "floor_s / step_s");

    auto costs = decode_step_ops(r.model, r.contexts);
    auto ops = s.at("ops");
    if (ops.size() == 0) ops.fail("is empty: the step's split by op is what a diagnosis reads");
    std::set<std::string> seen;
    std::vector<StepOpTime> times;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        auto op = ops.item(i);
        IncidentOp row;
        row.name = op.at("name").text();
        if (row.name.empty() || row.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
            op.at("name").fail("must be an op's name: lowercase letters, digits and '_'");
        if (!seen.insert(row.name).second) op.at("name").fail(fmt::format("names {} a second time", row.name));
        row.seconds = op.at("seconds").number(0, kMaxSeconds);
        // An op the model does not count (a server's new kernel) has no bytes or FLOPs, as serve writes it.
        auto cost = std::find_if(costs.begin(), costs.end(), [&](const DecodeOpCost& c) { return c.name == row.name; });
        if (cost != costs.end()) {
            row.bytes = cost->bytes;
            row.flops = cost->flops;
        }
        auto how = cost != costs.end() ? "the model's shapes for " + row.name
                                       : "an op the model does not count (" + row.name + ")";
        op.at("bytes").same_as(row.bytes, how);
        op.at("flops").same_as(row.flops, how);
        row.floor_s = std::max(row.bytes / r.copy_bytes_per_s, row.flops / r.tensor_flops_per_s);
        row.regime = op_regime(row.seconds, row.bytes, row.flops, r.copy_bytes_per_s, r.tensor_flops_per_s,
                               r.fp32_flops_per_s);
        times.push_back({row.name, row.seconds});
        r.ops.push_back(row);
    }
    // The ops are timed between events inside the instrumented step: together no longer than it.
    if (sum_seconds(r.ops) > 1.05 * r.instrumented_step_s)
        s.at("instrumented_step_s")
            .fail(fmt::format("is {:.6g} s but the ops inside it add up to {:.6g} s", r.instrumented_step_s,
                              sum_seconds(r.ops)));

    r.reading = read_step(costs, times, r.timing, r.floor, r.copy_bytes_per_s, r.fp32_flops_per_s);
    if (s.at("regime").text() != r.reading.regime)
        s.at("regime").fail(fmt::format("says {} but the step's own numbers read {} ({})", s.at("regime").text(),
                                        r.reading.regime, r.reading.evidence));

    // The time axis: a server that records each op's start and end ("events", optional) gives the
    // gaps between them; else the ops lie end to end and the instrumented step's remainder is a gap.
    if (s.has("events")) {
        auto events = s.at("events");
        if (events.size() > kMaxServeEvents)
            events.fail(fmt::format("holds {} spans, more than the {} a record may hold", events.size(), kMaxServeEvents));
        std::vector<ServeEvent> checked;
        double last_end = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            auto e = events.item(i);
            StepSpan span{e.at("name").text(), e.at("start_s").number(0, kMaxSeconds), e.at("end_s").number(0, kMaxSeconds)};
            checked.push_back({span.name, span.start_s, span.end_s});
            if (auto fault = event_fault(checked.back(), seen.count(span.name) > 0, last_end, r.instrumented_step_s))
                e.at(fault->field).fail(fault->why);
            if (span.start_s > last_end + 1e-12) r.spans.push_back({"", last_end, span.start_s});
            r.spans.push_back(span);
            last_end = span.end_s;
        }
        if (r.instrumented_step_s > last_end + 1e-12) r.spans.push_back({"", last_end, r.instrumented_step_s});
        r.has_events = true;
        r.event_count = checked.size();
        r.gap_s = gap_seconds(checked, r.instrumented_step_s);
        if (s.has("gap_s")) s.at("gap_s").same_as(r.gap_s, "the events' gaps in the instrumented step");
        std::vector<std::pair<std::string, double>> op_seconds;
        for (const auto& op : r.ops) op_seconds.emplace_back(op.name, op.seconds);
        if (auto fault = op_span_fault(checked, op_seconds)) events.fail(fmt::format("disagree with op `{}`: it {}", fault->op, fault->why));
    } else {
        double at = 0;
        for (const auto& op : r.ops) {
            r.spans.push_back({op.name, at, at + op.seconds});
            at += op.seconds;
        }
        // Under 0.1% is the events' own resolution, not a gap.
        if (r.instrumented_step_s - at > 1e-3 * r.instrumented_step_s) r.spans.push_back({"", at, r.instrumented_step_s});
    }
    return r;
}

IncidentReport load_incident_report(const std::filesystem::path& file) {
    if (!std::filesystem::is_regular_file(file))
        throw InputError(fmt::format("{}: no record of a serve run here; run roofline serve CONFIG first", file.string()));
    return read_incident_report(read_file_text(file), file);
}

std::vector<RegimeEvidence> regime_evidence(const IncidentReport& r) {
    const auto& t = r.timing;
    const double launch_cost_s = t.launches * t.per_launch_s;
    std::vector<RegimeEvidence> out;
    out.push_back({"overhead", r.reading.regime == "overhead",
                   fmt::format("the host enqueued a lone step in {:.3f} ms against {:.3f} ms of GPU time ({:.0f}%; "
                               "overhead from 90%), and {} launches at {:.1f} us are {:.0f}% of the {:.3f} ms step "
                               "(overhead from 50%)",
                               t.host_enqueue_s * 1e3, t.single_step_s * 1e3, 100 * t.host_enqueue_s / t.single_step_s,
                               t.launches, t.per_launch_s * 1e6, 100 * launch_cost_s / t.step_s, t.step_s * 1e3) +
                       // A figure beside the rules, not one of them: the instrumented step is eager with two
                       // events an op, the timed one may be a graph.
                       (r.has_events ? fmt::format("; the instrumented eager step ran no op for {:.3f} ms of its "
                                                   "{:.3f} ms ({:.0f}%)",
                                                   r.gap_s * 1e3, r.instrumented_step_s * 1e3,
                                                   100 * r.gap_s / r.instrumented_step_s)
                                     : std::string())});
    // The op most over its own floor, with its two rates.
    const IncidentOp* worst = nullptr;
    for (const auto& op : r.ops)
        if (!worst || op.seconds - op.floor_s > worst->seconds - worst->floor_s) worst = &op;
    std::string culprit = "no op over its floor";
    double byte_share = 0, flop_share = 0;
    if (worst && worst->seconds > 0) {
        byte_share = worst->bytes / worst->seconds / r.copy_bytes_per_s;
        flop_share = worst->flops / worst->seconds / r.fp32_flops_per_s;
        culprit = fmt::format("{} is the op most over its floor ({:.3f} ms over), moving bytes at {:.0f}% of the copy "
                              "rate and doing FLOPs at {:.0f}% of the CUDA cores' fp32 roof",
                              worst->name, (worst->seconds - worst->floor_s) * 1e3, 100 * byte_share, 100 * flop_share);
    }
    out.push_back({"memory", r.reading.regime == "memory",
                   fmt::format("the step runs at {:.0f}% of its {} floor ({:.3f} ms for {:.2f} GB at {:.2f} TB/s); {}",
                               100 * r.reading.fraction, r.floor.memory_binds ? "byte" : "FLOP", r.floor.floor_s * 1e3,
                               r.floor.bytes / 1e9, r.copy_bytes_per_s / 1e12, culprit)});
    out.push_back({"compute", r.reading.regime == "compute",
                   worst ? fmt::format("{}: compute when the FLOP share is the larger, an op doing tensor-core work at "
                                       "CUDA-core rates",
                                       culprit)
                         : culprit});
    return out;
}

std::string incident_text(const IncidentReport& r) {
    std::string text;
    auto line = [&](const std::string& s) { text += s + "\n"; };
    line(fmt::format("{} on {} (saved {}): batch {}, {}{}, {} launches a step", r.incident, r.device, r.saved_at, r.batch,
                     r.graph ? "CUDA graph" : "eager", r.per_request ? ", one request at a time" : "", r.timing.launches));
    line(fmt::format("step {:.3f} ms: {:.1f} tokens/s; floor {:.3f} ms ({:.1f} tokens/s, {} binds): {:.0f}% of it",
                     r.timing.step_s * 1e3, r.tokens_per_s, r.floor.floor_s * 1e3, r.floor.tokens_per_s,
                     r.floor.memory_binds ? "memory" : "compute", 100 * r.reading.fraction));
    line(fmt::format("  {:<14} {:>9} {:>7} {:>9}  {}", "op", "ms", "share", "floor ms", "regime"));
    for (const auto& op : r.ops)
        line(fmt::format("  {:<14} {:>9.3f} {:>6.1f}% {:>9.3f}  {}", op.name, op.seconds * 1e3,
                         100 * op.seconds / r.instrumented_step_s, op.floor_s * 1e3, op.regime));
    if (r.has_events) line(gap_line(r.gap_s, r.instrumented_step_s, r.event_count));
    return text;
}

}  // namespace roofline

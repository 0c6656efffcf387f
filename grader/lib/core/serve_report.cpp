#include "serve_report.hpp"

#include "input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

const nlohmann::json& field(const nlohmann::json& object, const char* key, const std::string& source) {
    if (!object.is_object() || !object.contains(key))
        throw InputError(fmt::format("{}: the decode server's output has no `{}`; rebuild roofline-decode-server "
                                     "(an older build writes another form)", source, key));
    return object.at(key);
}

double positive(const nlohmann::json& object, const char* key, const std::string& source, bool zero_ok = false) {
    const auto& value = field(object, key, source);
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0 ||
        (!zero_ok && value.get<double>() == 0))
        throw InputError(fmt::format("{}: `{}` must be a {} number, not {}", source, key,
                                     zero_ok ? "non-negative" : "positive", value.dump()));
    return value.get<double>();
}

}  // namespace

double gap_seconds(const std::vector<ServeEvent>& events, double step_s) {
    double gaps = 0, last_end = 0;
    for (const auto& e : events) {
        gaps += std::max(0.0, e.start_s - last_end);
        last_end = std::max(last_end, e.end_s);
    }
    return gaps + std::max(0.0, step_s - last_end);
}

std::optional<EventFault> event_fault(const ServeEvent& span, bool names_an_op, double previous_end, double step_s) {
    if (!names_an_op) return EventFault{"name", fmt::format("'{}' is not one of the report's ops", span.name)};
    if (span.end_s < span.start_s) return EventFault{"end_s", "is before its start_s"};
    if (span.start_s < previous_end - 1e-12)
        return EventFault{"start_s", "is before the previous span's end (spans come in order)"};
    if (span.end_s > 1.05 * step_s) return EventFault{"end_s", "is past the instrumented step's end"};
    return std::nullopt;
}

std::optional<OpSpanFault> op_span_fault(const std::vector<ServeEvent>& events,
                                         const std::vector<std::pair<std::string, double>>& op_seconds) {
    for (const auto& [op, seconds] : op_seconds) {
        double spans_s = 0;
        int spans = 0;
        for (const auto& e : events)
            if (e.name == op) spans_s += e.end_s - e.start_s, ++spans;
        if (spans == 0) return OpSpanFault{op, "has no span in `events`"};
        // Summed in another order than the server's: a few ulps of the step, no more.
        if (std::abs(spans_s - seconds) > 1e-9 + 1e-6 * std::max(std::abs(seconds), spans_s))
            return OpSpanFault{op, fmt::format("takes {:.9g} s in `ops` but its spans in `events` add up to {:.9g} s",
                                               seconds, spans_s)};
    }
    return std::nullopt;
}

std::string gap_line(double gap_s, double step_s, std::size_t spans) {
    return fmt::format("gaps: {:.3f} ms of the instrumented step's {:.3f} ms ({:.1f}%) ran no op, outside its {} spans "
                       "(the events' own cost, or the GPU waiting for the host's next record)",
                       gap_s * 1e3, step_s * 1e3, 100 * gap_s / step_s, spans);
}

ServeReport serve_report(const nlohmann::json& out, const std::string& source, const HardwareProfile& profile,
                         const MeasuredCeilings* measured) {
    ServeReport r;
    r.source = source;
    r.config = field(out, "config", source).get<std::string>();
    r.device = field(out, "device", source).get<std::string>();
    r.profile_id = profile.id;
    const auto& m = field(out, "model", source);
    r.model.hidden = (long long)positive(m, "hidden", source);
    r.model.layers = (long long)positive(m, "layers", source);
    r.model.q_heads = (long long)positive(m, "q_heads", source);
    r.model.kv_heads = (long long)positive(m, "kv_heads", source);
    r.model.head_dim = (long long)positive(m, "head_dim", source);
    r.model.mlp = (long long)positive(m, "mlp", source);
    // The LM head reads every one of its rows, padding included.
    r.model.vocab = (long long)positive(m, "vocab_rows", source);
    // Bytes per cached element: 2 (bf16), 1 with `kv_cache: fp8`; a server that predates the key wrote bf16.
    if (m.contains("kv_bytes")) r.model.kv_bytes = positive(m, "kv_bytes", source);
    r.batch = int(positive(out, "batch", source));
    r.graph = field(out, "graph", source).get<bool>();
    r.per_request = field(out, "per_request", source).get<bool>();
    r.server = out;  // every key the server wrote, for serve_json's "server" (kv_cache, fused, attention_file, ...)
    r.launches_per_step = int(positive(out, "launches_per_step", source));
    for (const auto& c : field(out, "contexts", source)) r.contexts.push_back(c.get<long long>());
    if (int(r.contexts.size()) != r.batch)
        throw InputError(fmt::format("{}: `contexts` holds {} sequences for a batch of {}", source, r.contexts.size(), r.batch));
    r.timing.step_s = positive(out, "step_s", source);
    r.timing.single_step_s = positive(out, "single_step_s", source);
    r.timing.host_enqueue_s = positive(out, "host_enqueue_s", source, true);
    r.instrumented_step_s = positive(out, "instrumented_step_s", source);
    r.tokens_per_s = r.batch / r.timing.step_s;

    auto choice = choose_ceiling(profile, measured, Dtype::bf16);
    r.copy_bytes_per_s = choice.ceiling.bandwidth_tbs * 1e12;
    r.tensor_flops_per_s = choice.ceiling.peak_tflops * 1e12;
    r.bandwidth_origin = choice.bandwidth_origin;
    r.peak_origin = choice.peak_origin;
    auto fp32 = choose_ceiling(profile, measured, Dtype::fp32);
    r.fp32_flops_per_s = fp32.ceiling.peak_tflops * 1e12;

    r.floor = decode_step_floor(r.model, r.contexts, r.copy_bytes_per_s, r.tensor_flops_per_s);
    auto costs = decode_step_ops(r.model, r.contexts);
    std::vector<StepOpTime> times;
    for (const auto& op : field(out, "ops", source)) {
        StepOpTime t{field(op, "name", source).get<std::string>(), positive(op, "seconds", source, true)};
        times.push_back(t);
        ServeOp row{t.name, t.seconds};
        for (const auto& cost : costs)
            if (cost.name == t.name) {
                row.bytes = cost.bytes;
                row.flops = cost.flops;
                row.floor_s = std::max(cost.bytes / r.copy_bytes_per_s, cost.flops / r.tensor_flops_per_s);
            }
        r.ops.push_back(row);
    }
    // Each op's start and end (a server that predates them wrote none): checked here as the
    // record's reader checks them, so that a record `serve` keeps reads back.
    if (out.contains("events")) {
        const auto& events = out.at("events");
        if (!events.is_array() || events.size() > kMaxServeEvents)
            throw InputError(fmt::format("{}: `events` must be a list of at most {} spans", source, kMaxServeEvents));
        double last_end = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const auto& e = events[i];
            const auto where = fmt::format("events[{}]", i);
            const auto& name = field(e, "name", source + ": " + where);
            ServeEvent span{name.is_string() ? name.get<std::string>() : "",
                            positive(e, "start_s", source + ": " + where, true),
                            positive(e, "end_s", source + ": " + where, true)};
            const bool names_an_op =
                std::any_of(r.ops.begin(), r.ops.end(), [&](const ServeOp& op) { return op.name == span.name; });
            if (auto fault = event_fault(span, names_an_op, last_end, r.instrumented_step_s))
                throw InputError(fmt::format("{}: `{}.{}` {}", source, where, fault->field, fault->why));
            last_end = span.end_s;
            r.events.push_back(span);
        }
        r.gap_s = gap_seconds(r.events, r.instrumented_step_s);
        std::vector<std::pair<std::string, double>> op_seconds;
        for (const auto& op : r.ops) op_seconds.emplace_back(op.name, op.seconds);
        if (auto fault = op_span_fault(r.events, op_seconds))
            throw InputError(fmt::format("{}: op `{}` {}", source, fault->op, fault->why));
    }
    // A launch's fixed cost: back-to-back empty kernels, or a graph's nodes, as `roofline ceilings`
    // measured them here; else the typical 5 us, and 1 us for a graph's node.
    r.timing.launches = r.launches_per_step;
    if (r.graph)
        r.timing.per_launch_s = measured && measured->graph_launch_us > 0 ? measured->graph_launch_us * 1e-6 : 1e-6;
    else
        r.timing.per_launch_s = choice.launch_overhead_s;
    r.reading = read_step(costs, times, r.timing, r.floor, r.copy_bytes_per_s, r.fp32_flops_per_s);
    if (out.contains("check")) {
        r.check_ran = true;
        r.check = out.at("check");
        r.check_passed = r.check.value("passed", false);
    }
    return r;
}

std::string serve_text(const ServeReport& r) {
    std::string text;
    auto line = [&](const std::string& s) { text += s + "\n"; };
    double context_mean = 0;
    for (auto c : r.contexts) context_mean += double(c) / r.contexts.size();
    line(fmt::format("decode server on {} ({}): batch {}, ~{:.0f} cached tokens per sequence, {}{}, {} launches a step",
                     r.device, r.config, r.batch, context_mean, r.graph ? "CUDA graph" : "eager",
                     r.per_request ? ", one request at a time" : "", r.launches_per_step));
    if (r.server.contains("attention") && r.server.contains("kv_cache"))
        line(fmt::format("attention {} ({}), KV cache {}{}", r.server.value("attention", ""),
                         r.server.value("attention_file", ""), r.server.value("kv_cache", ""),
                         r.server.value("fused", false) ? ", the fused small-batch step" : ""));
    if (r.check_ran)
        line(fmt::format("reference check: {} ({} steps; logits rel err {:.2e}, new K/V {:.2e}, tolerance {})",
                         r.check_passed ? "passed" : "FAILED", r.check.value("steps", 0),
                         r.check.value("max_logits_rel_err", 0.0), r.check.value("max_kv_rel_err", 0.0),
                         r.check.value("tolerance", 0.0)));
    line(fmt::format("step {:.3f} ms: {:.1f} tokens/s", r.timing.step_s * 1e3, r.tokens_per_s));
    line(fmt::format("floor {:.3f} ms ({:.1f} tokens/s): {:.2f} GB at {:.2f} TB/s is {:.3f} ms; {:.1f} GFLOP at {:.0f} "
                     "TFLOP/s is {:.3f} ms; {} binds",
                     r.floor.floor_s * 1e3, r.floor.tokens_per_s, r.floor.bytes / 1e9, r.copy_bytes_per_s / 1e12,
                     r.floor.bytes_s * 1e3, r.floor.flops / 1e9, r.tensor_flops_per_s / 1e12, r.floor.flops_s * 1e3,
                     r.floor.memory_binds ? "memory" : "compute"));
    line(fmt::format("  roofs: {}; {}", r.bandwidth_origin, r.peak_origin));
    line(fmt::format("fraction of the floor: {:.0f}%", 100 * r.reading.fraction));
    line(fmt::format("one step alone: {:.3f} ms on the GPU, enqueued by the host in {:.3f} ms",
                     r.timing.single_step_s * 1e3, r.timing.host_enqueue_s * 1e3));
    line(fmt::format("\nthe step by op (one eager step with an event {} each op: {:.3f} ms in all):",
                     r.events.empty() ? "before" : "before and after", r.instrumented_step_s * 1e3));
    line(fmt::format("  {:<14} {:>10} {:>7} {:>10} {:>10} {:>11}", "op", "ms", "share", "floor ms", "GB", "GFLOP"));
    for (const auto& op : r.ops)
        line(fmt::format("  {:<14} {:>10.3f} {:>6.1f}% {:>10.3f} {:>10.3f} {:>11.1f}", op.name, op.seconds * 1e3,
                         100 * op.seconds / r.instrumented_step_s, op.floor_s * 1e3, op.bytes / 1e9, op.flops / 1e9));
    if (!r.events.empty()) line(gap_line(r.gap_s, r.instrumented_step_s, r.events.size()));
    line(fmt::format("\nregime: {} (rule: {}). {}", r.reading.regime, r.reading.rule, r.reading.evidence));
    line("(the server's own timing of itself, CUDA events and the host clock: a report, not a grade)");
    return text;
}

nlohmann::json serve_json(const ServeReport& r) {
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& op : r.ops)
        ops.push_back({{"name", op.name}, {"seconds", op.seconds}, {"bytes", op.bytes}, {"flops", op.flops},
                       {"floor_s", op.floor_s}});
    nlohmann::json out{
        {"config", r.config},
        {"device", r.device},
        {"hardware", r.profile_id},
        {"batch", r.batch},
        {"contexts", r.contexts},
        {"graph", r.graph},
        {"per_request", r.per_request},
        {"launches_per_step", r.launches_per_step},
        {"step_s", r.timing.step_s},
        {"tokens_per_s", r.tokens_per_s},
        {"single_step_s", r.timing.single_step_s},
        {"host_enqueue_s", r.timing.host_enqueue_s},
        {"floor", {{"bytes", r.floor.bytes}, {"flops", r.floor.flops}, {"bytes_s", r.floor.bytes_s},
                   {"flops_s", r.floor.flops_s}, {"floor_s", r.floor.floor_s}, {"tokens_per_s", r.floor.tokens_per_s},
                   {"binds", r.floor.memory_binds ? "memory" : "compute"}, {"copy_bytes_per_s", r.copy_bytes_per_s},
                   {"tensor_flops_per_s", r.tensor_flops_per_s}, {"bandwidth_origin", r.bandwidth_origin},
                   {"peak_origin", r.peak_origin}}},
        {"fraction_of_floor", r.reading.fraction},
        {"regime", r.reading.regime},
        {"culprit", r.reading.culprit},
        {"evidence", r.reading.evidence},
        {"regime_rule", r.reading.rule},
        {"instrumented_step_s", r.instrumented_step_s},
        {"ops", ops},
        {"timing_note", "the server's own timing of itself (CUDA events, host clock): a report, not a grade"},
    };
    if (!r.events.empty()) {
        nlohmann::json events = nlohmann::json::array();
        for (const auto& e : r.events) events.push_back({{"name", e.name}, {"start_s", e.start_s}, {"end_s", e.end_s}});
        out["events"] = events;
        out["gap_s"] = r.gap_s;
    }
    if (r.check_ran) out["check"] = r.check;
    // What the server ran, as it said: its configuration's choices (absent from an older server's output).
    for (const char* key : {"attention", "attention_file", "kv_cache", "fused", "fused_max_batch"})
        if (r.server.contains(key)) out[key] = r.server.at(key);
    out["kv_bytes_per_element"] = r.model.kv_bytes;
    return out;
}

}  // namespace roofline

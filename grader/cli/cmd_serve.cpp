// roofline serve CONFIG: module 10's decode server run with a configuration, its tokens/s, the
// step split by op, the step's floor on this GPU and which regime binds. The run is
// lib/launch/serve_run.hpp's, the report lib/core/serve_report.hpp's; here, the flags, the files
// checked before the run and what it prints.
#include "command.hpp"
#include "incident_report.hpp"
#include "number_flags.hpp"
#include "output_file.hpp"
#include "prediction_log.hpp"
#include "serve_run.hpp"
#include "svg_step.hpp"

#include <fmt/format.h>

namespace roofline::cli {

namespace {

struct ServeFlags {
    std::string config;
    bool no_build = false;
    bool no_graph = false;
    int check = 0;
    int batch = 0;
    int context = -1;
    std::string hardware;
    std::string json;
    std::string timeline;
    bool solutions = false;
    std::string attention;
    bool plain_kernels = false;
};

void serve_command(Context& context, const ServeFlags& f) {
    auto ws = context.build_workspace();
    if (!f.json.empty()) check_output_file(f.json, "--json");
    if (!f.timeline.empty()) check_output_file(f.timeline, "--timeline");
    ServeRequest request;
    request.config = f.config;
    request.build = !f.no_build;
    request.check_steps = f.check;
    request.no_graph = f.no_graph;
    request.batch = f.batch;
    request.context = f.context;
    request.hardware = f.hardware;
    request.solutions = f.solutions;
    request.attention = f.attention;
    request.plain_kernels = f.plain_kernels;
    auto run = run_server(ws, request);
    if (!run.report) {
        fmt::print(stderr, "{}\n", run.refusal);
        context.exit_code = run.exit_code;
        return;
    }
    fmt::print("{}", serve_text(*run.report));
    if (!f.json.empty()) write_json_file(f.json, serve_json(*run.report));
    if (!f.timeline.empty()) {
        // Drawn from the record this run makes, read back as `diagnose` reads it (so checked the same way).
        auto name = std::filesystem::path(f.config).stem().string();
        auto record = serve_record_json(*run.report, name, f.config, utc_now_iso8601());
        auto report = read_incident_report(record.dump(), "(this run's record)");
        write_output_file(f.timeline, step_timeline_svg(report), "the timeline picture", OutputFolder::create);
    }
    // The record `roofline diagnose LAB/NAME` scores a diagnosis against, kept by this process (never
    // by the server) under the configuration's name; a run with --batch, --context or --no-graph is
    // another configuration, not the incident's, and is not kept.
    if (f.batch == 0 && f.context < 0 && !f.no_graph) {
        auto name = std::filesystem::path(f.config).stem().string();
        auto record = ws.serve_record(name);
        write_output_file(record, serve_record_json(*run.report, name, f.config, utc_now_iso8601()).dump(2) + "\n",
                          "the serve record", OutputFolder::create);
        fmt::print("saved for `roofline diagnose`: {}\n", record.string());
    }
    context.exit_code = run.exit_code;
}

}  // namespace

void add_serve_command(CLI::App& app, Context& context) {
    static ServeFlags f;
    auto* cmd = app.add_subcommand("serve",
                                   "module 10's decode server with a configuration: tokens/s, the step by op, its "
                                   "floor and which regime binds");
    cmd->add_option("config", f.config, "a server configuration, e.g. labs/10-production/server/incidents/baseline.yaml")
        ->required()
        ->check(file_path());
    cmd->add_flag("--no-build", f.no_build, "do not rebuild roofline-decode-server first");
    cmd->add_option("--check", f.check, "check this many steps against the reference step first (exit 1 if one is off)")
        ->check(CLI::Range(0, 64));
    cmd->add_flag("--no-graph", f.no_graph, "run the batched step eagerly, without its CUDA graph");
    cmd->add_option("--batch", f.batch, "another batch than the configuration's (1-64)")->check(CLI::Range(1, 64));
    cmd->add_option("--context", f.context, "another starting context than the configuration's (0-32768)")
        ->check(CLI::Range(0, 32768));
    cmd->add_flag("--solutions", f.solutions,
                  "run the server linked with the solution's decode attention (roofline-decode-server-solution) "
                  "instead of yours");
    cmd->add_option("--attention", f.attention, "another attention than the configuration's: plain (the server's) or "
                                                "student (the lab's kernel)")
        ->check(CLI::IsMember({"plain", "student"}));
    cmd->add_flag("--plain-kernels", f.plain_kernels,
                  "run the server's own plain kernels where the course's are linked too: the student edition's server");
    cmd->add_option("--hardware", f.hardware, "the GPU profile to take the roofs from (default: matched by name)");
    cmd->add_option("--json", f.json, "also write the report as JSON here")->check(file_path());
    cmd->add_option("--timeline", f.timeline,
                    "also draw the instrumented step's timeline here (SVG: each op's span, the gaps between them)")
        ->check(file_path());
    cmd->footer("The server times itself (CUDA events, the host clock): a report of a server's speed, not a grade.\n"
                "The floor is the step's bytes (weights once, each sequence's KV cache) at the copy rate `roofline\n"
                "ceilings` measured, or its FLOPs at the tensor roof, whichever is longer (lessons/10-production.md).");
    cmd->callback([&context] { serve_command(context, f); });
}

}  // namespace roofline::cli

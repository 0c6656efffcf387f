// `roofline serve`'s run: module 10's decode server (labs/10-production/server/) built as a lab
// program is, started with a configuration, and its JSON read into a report (serve_report.hpp)
// against this GPU's profile and measured ceilings. The CLI prints and writes what it returns.
#pragma once
#include "serve_report.hpp"
#include "workspace.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace roofline {

inline constexpr const char* kDecodeServerTarget = "roofline-decode-server";
// The same server linked with solutions/10-production's decode attention (`attention: student`
// then runs the solution's kernel); absent from the student edition.
inline constexpr const char* kDecodeServerSolutionTarget = "roofline-decode-server-solution";

struct ServeRequest {
    std::filesystem::path config;  // a server configuration (incidents/*.yaml)
    bool build = true;
    int check_steps = 0;    // steps checked against the reference step before the timing
    bool no_graph = false;  // the batched step eagerly
    int batch = 0;          // 0: the configuration's
    int context = -1;       // -1: the configuration's
    std::string hardware;   // a profile id instead of the one matched by the device's name
    bool solutions = false;  // the server linked with the solution's decode attention
    std::string attention;   // "": the configuration's; plain or student
    bool plain_kernels = false;  // the server's own plain kernels where the course's are linked too
    double timeout_s = 600;
};

struct ServeRun {
    int exit_code = 0;    // 0: a report (its check may still have failed: report->check_passed); else the CLI's
    std::string refusal;  // why there is no report, for stderr
    std::optional<ServeReport> report;
    std::string output_tail;  // the server's last lines
};

// Throws InputError for a configuration that does not exist (checked before any build).
ServeRun run_server(const Workspace& workspace, const ServeRequest& request);

}  // namespace roofline

// roofline hold-gpu (hidden; `roofline batch` starts one per GPU): opens a CUDA context on
// the visible device and keeps it until its stdin closes. While one context is open on a
// GPU, every other process's start on it is quick (H200, 2026-12-01: a lab program's
// device query took 0.13-0.20 s alone, 0.01 s beside an open context, with persistence
// mode on both times); an idle context runs nothing, so it cannot move a timing.
#include "command.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <unistd.h>

namespace roofline::cli {

void add_hold_gpu_command(CLI::App& app, Context& context) {
    auto* cmd = app.add_subcommand("hold-gpu", "");
    cmd->group("");  // hidden: for roofline batch, not for people
    cmd->callback([&context] {
        if (cudaFree(nullptr) != cudaSuccess) {  // no GPU here: nothing to hold, and nothing to say
            context.exit_code = 1;
            return;
        }
        std::puts("holding");
        std::fflush(stdout);
        char byte;
        while (::read(STDIN_FILENO, &byte, 1) > 0) {
        }
    });
}

}  // namespace roofline::cli

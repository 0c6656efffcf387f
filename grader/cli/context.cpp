// Where the course and its build are: the folders every subcommand works in.
#include "build_tree.hpp"
#include "command.hpp"
#include "input_error.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace roofline::cli {

std::filesystem::path Context::root() const {
    if (!root_flag.empty()) return std::filesystem::absolute(root_flag);
    if (const char* env = std::getenv("ROOFLINE_ROOT"); env && *env) return std::filesystem::absolute(env);
    for (auto dir = std::filesystem::current_path(); !dir.empty(); dir = dir.parent_path()) {
        if (std::filesystem::is_directory(dir / "hardware") && std::filesystem::is_directory(dir / "labs")) return dir;
        if (dir == dir.parent_path()) break;
    }
    // Outside a course folder: the tree this binary was built from, said once, so a
    // student in the wrong folder sees which course they are working on.
    if (!noted_fallback) {
        noted_fallback = true;
        fmt::print(stderr, "note: no course folder (hardware/ and labs/) here or above; using {}, the tree this "
                           "roofline was built from (--root or ROOFLINE_ROOT picks another)\n", ROOFLINE_SOURCE_DIR);
    }
    return ROOFLINE_SOURCE_DIR;
}

std::filesystem::path Context::build_dir() const {
    // Absolute: the judge and the runner it starts work from folders of their own.
    if (!build_flag.empty()) return std::filesystem::absolute(build_flag);
    return ROOFLINE_BINARY_DIR;
}

// Only the default build is checked: a --build-dir given with --root is a pairing
// someone chose (a batch's staged submission, the GPU tests' fixture course).
Workspace Context::build_workspace() const {
    Workspace ws = workspace();
    if (!build_flag.empty()) return ws;
    auto source = build_source_dir(ws.build_dir);
    if (!source || same_folder(*source, ws.root)) return ws;
    auto root = ws.root.string(), build = ws.build_dir.string();
    throw InputError(fmt::format(
        "the course folder {} and this roofline's build folder {} disagree: that build compiles the kernels of {}; "
        "pass --build-dir with a build of {} (cmake -S {} -B {}/build), or --root {}",
        root, build, source->string(), root, root, root, source->string()));
}

}  // namespace roofline::cli

#include "tool_run.hpp"
#include "job_from_spec.hpp"
#include "output_file.hpp"

#include "process.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>

namespace roofline {

std::filesystem::path find_tool(const std::string& name, const std::string& env) {
    if (const char* set = std::getenv(env.c_str()); set && *set) {
        return ::access(set, X_OK) == 0 ? std::filesystem::path(set) : std::filesystem::path();
    }
    if (auto found = find_on_path(name); !found.empty()) return found;
    std::vector<std::filesystem::path> places{"/usr/local/cuda/bin/" + name};
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/opt/nvidia/nsight-compute", error)) {
        places.push_back(entry.path() / name);
    }
    for (const auto& place : places) {
        if (::access(place.c_str(), X_OK) == 0) return place;
    }
    return {};
}

std::string missing_tool_message(const std::string& name, const std::string& env, const std::string& install) {
    if (const char* set = std::getenv(env.c_str()); set && *set) {
        return fmt::format("{} is set to {}, which is not an executable file; point it at {} or unset it", env, set,
                           name);
    }
    return fmt::format("{} is not here (not on PATH, not in /usr/local/cuda/bin or /opt/nvidia/nsight-compute); {}, "
                       "or set {}=/path/to/{}",
                       name, install, env, name);
}

protocol::Job once_job(const LabSpec& lab, const VariantSpec& variant, const std::vector<Shape>& shapes,
                       std::uint64_t seed, const std::filesystem::path& result_file) {
    auto job = lab_job(lab, variant, protocol::JobMode::once, seed, result_file, 0);
    job.verify_shapes = shapes;
    job.launch_timeout_s = 0;  // a tool's replay makes one launch take many times longer
    return job;
}

std::vector<std::string> once_arguments(const protocol::Job& job) {
    // The same typed Job the grader sends with --serve, handed over in a file: a tool wraps
    // the process, so nothing can be written to its stdin.
    auto job_file = std::filesystem::path(job.result_path).parent_path() / "job.json";
    write_json_file(job_file, nlohmann::json(job));
    return {"--job", job_file.string()};
}

}  // namespace roofline

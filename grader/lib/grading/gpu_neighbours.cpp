#include "gpu_neighbours.hpp"

#include "file_text.hpp"
#include "number_text.hpp"
#include "process.hpp"
#include "tool_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

namespace roofline {

namespace {

std::string trimmed(const std::string& text) {
    auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// "2048 MiB" -> 2048; "[N/A]", "[Not Supported]" -> nothing.
std::optional<long long> mebibytes(const std::string& field) {
    auto text = trimmed(field);
    if (text.size() > 4 && text.compare(text.size() - 4, 4, " MiB") == 0) text.resize(text.size() - 4);
    auto value = parse_whole(text);
    if (!value || *value > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) return std::nullopt;
    return static_cast<long long>(*value);
}

// The parent of `pid`, read off /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so the fields are counted from the last ')'); 0 when it cannot be read.
long long parent_of(long long pid) {
    auto stat = read_file_text(fmt::format("/proc/{}/stat", pid));
    auto close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long long parent = 0;
    rest >> state >> parent;
    return rest ? parent : 0;
}

// Whether `pid` is this process or one it started, however deep (the judge's lab program).
bool started_here(long long pid) {
    const long long self = ::getpid();
    for (int depth = 0; pid > 1 && depth < 64; ++depth) {
        if (pid == self) return true;
        pid = parent_of(pid);
    }
    return false;
}

std::string executable_of(long long pid) {
    std::error_code error;
    auto target = std::filesystem::read_symlink(fmt::format("/proc/{}/exe", pid), error);
    return error ? std::string() : target.string();
}

}  // namespace

std::vector<GpuProcess> parse_compute_apps(const std::string& csv) {
    std::vector<GpuProcess> out;
    std::istringstream lines(csv);
    std::string line;
    while (std::getline(lines, line)) {
        // gpu_uuid, pid, process_name, used_memory: the name is whatever lies between the
        // second comma and the last one.
        auto first = line.find(','), last = line.rfind(',');
        if (first == std::string::npos) continue;
        auto second = line.find(',', first + 1);
        if (second == std::string::npos || second >= last) continue;
        GpuProcess process;
        process.gpu_uuid = trimmed(line.substr(0, first));
        auto pid = parse_whole(trimmed(line.substr(first + 1, second - first - 1)));
        if (!pid || *pid == 0 || *pid > (1ull << 32) || process.gpu_uuid.empty()) continue;  // pids fit in 32 bits
        process.pid = static_cast<long long>(*pid);
        process.name = trimmed(line.substr(second + 1, last - second - 1));
        process.used_mib = mebibytes(line.substr(last + 1));
        out.push_back(std::move(process));
    }
    return out;
}

std::vector<GpuProcess> gpu_neighbours(const std::vector<ComputeAppsListing>& listings) {
    std::set<std::string> grading_gpus;
    for (const auto& listing : listings) {
        for (const auto& process : listing.listed) {
            if (listing.own.count(process.pid)) grading_gpus.insert(process.gpu_uuid);
        }
    }
    std::map<long long, GpuProcess> others;  // by pid: in order, each once
    for (const auto& listing : listings) {
        for (const auto& process : listing.listed) {
            if (listing.own.count(process.pid) || listing.quiet.count(process.pid)) continue;
            if (!grading_gpus.count(process.gpu_uuid)) continue;
            auto [seen, fresh] = others.emplace(process.pid, process);
            if (!fresh && process.used_mib && (!seen->second.used_mib || *seen->second.used_mib < *process.used_mib)) {
                seen->second.used_mib = process.used_mib;
            }
        }
    }
    std::vector<GpuProcess> out;
    for (auto& [pid, process] : others) out.push_back(std::move(process));
    return out;
}

std::string gpu_processes_text(const std::vector<GpuProcess>& processes, std::size_t most) {
    std::string out;
    for (std::size_t i = 0; i < processes.size() && i < most; ++i) {
        const auto& p = processes[i];
        // The program's file name without its folders: in a class's batch a neighbour may be another
        // student's lab program, and its folder may carry that student's name; this text reaches
        // the student (a refusal, a note). The grading's JSON keeps the full name for the instructor.
        const auto slash = p.name.find_last_of('/');
        const auto shown = slash == std::string::npos || slash + 1 == p.name.size() ? p.name : p.name.substr(slash + 1);
        out += fmt::format("{}{} {}", i ? ", " : "", p.pid, shown.empty() ? "(no name given)" : shown);
        if (p.used_mib) out += fmt::format(" ({} MiB)", *p.used_mib);
    }
    if (processes.size() > most) out += fmt::format(" and {} more", processes.size() - most);
    return out;
}

std::optional<ComputeAppsListing> list_compute_apps() {
    auto nvidia_smi = find_tool("nvidia-smi", "ROOFLINE_NVIDIA_SMI");
    if (nvidia_smi.empty()) return std::nullopt;
    static std::atomic<int> calls{0};
    auto output = std::filesystem::temp_directory_path() /
                  fmt::format("roofline-{}-compute-apps-{}.csv", ::getpid(), calls++);
    ProcessSpec spec;
    spec.argv = {nvidia_smi.string(), "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
                 "--format=csv,noheader"};
    spec.output_file = output;
    spec.error_file = output.string() + ".errors";
    spec.limits.timeout_s = 10;
    auto ended = run_process(spec);
    auto text = read_file_text(output);
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
    std::filesystem::remove(spec.error_file, ignored);
    if (!ended.ok()) return std::nullopt;
    ComputeAppsListing listing;
    listing.listed = parse_compute_apps(text);
    const auto own_executable = executable_of(::getpid());
    for (const auto& process : listing.listed) {
        if (started_here(process.pid)) {
            listing.own.insert(process.pid);
        } else if (!own_executable.empty() && executable_of(process.pid) == own_executable) {
            listing.quiet.insert(process.pid);
        }
    }
    return listing;
}

}  // namespace roofline

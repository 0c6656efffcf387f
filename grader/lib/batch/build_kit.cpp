#include "build_kit.hpp"
#include "symbol_check.hpp"
#include "file_text.hpp"

#include "process.hpp"
#include "input_error.hpp"
#include "source_hash.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cctype>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace roofline::batch {

BuildKit parse_build_kit(const std::string& text, const std::filesystem::path& file) {
    BuildKit kit;
    kit.file = file;
    std::set<std::string> seen_compile;
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        auto eq = line.find('=');
        if (eq == std::string::npos) throw InputError(file, number, "expected key=value; re-run cmake to regenerate it");
        auto key = line.substr(0, eq), value = line.substr(eq + 1);
        if (key == "lab") kit.lab = value;
        else if (key == "nvcc" || key == "compiler") kit.nvcc = value;  // compiler: a CPU part's (RooflineCpuPart.cmake)
        else if (key == "compile") {
            // Empty lists leave a bare -I or -D; /usr/include as -I breaks the C++ headers' #include_next.
            if (value == "-I" || value == "-D" || value.empty() || value == "-I/usr/include") continue;
            if (value.starts_with("-I") && !seen_compile.insert(value).second) continue;
            kit.compile.push_back(value);
        } else if (key == "link") {
            if (!value.empty()) kit.link.push_back(value);
        } else {
            throw InputError(file, number, fmt::format("unknown key '{}'; re-run cmake to regenerate it", key));
        }
    }
    if (kit.nvcc.empty() || kit.link.empty()) throw InputError(file, 0, "incomplete build kit; re-run cmake to regenerate it");
    return kit;
}

BuildKit load_build_kit(const std::filesystem::path& build_dir, const std::string& lab) {
    auto file = build_dir / "labs" / (lab + ".build-kit");
    if (!std::filesystem::exists(file)) {
        throw InputError(file, 0, fmt::format("missing: configure this build with the current CMakeLists "
                                              "(cmake -S <course> -B {}) so that lab {} writes it",
                                              build_dir.string(), lab));
    }
    auto kit = parse_build_kit(read_file_text(file), file);
    for (const auto& item : kit.link) {
        if (item.starts_with("-")) continue;
        if (!std::filesystem::exists(item)) {
            throw InputError(file, 0, fmt::format("names {}, which is not built; run: cmake --build {} --target lab-{}",
                                                  item, build_dir.string(), lab));
        }
    }
    return kit;
}

std::string first_error_line(const std::string& log) {
    std::istringstream lines(log);
    std::string line, first;
    while (std::getline(lines, line)) {
        if (first.empty() && !line.empty()) first = line;
        if (line.find("error") != std::string::npos) return line;
    }
    return first;
}

namespace {

// A compiler that hit its address-space limit says so in one of these ways (cc1plus,
// cicc, ptxas, the C++ runtime).
bool ran_out_of_memory(const std::string& log) {
    std::string lower = log;
    for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* sign : {"out of memory", "bad_alloc", "cannot allocate memory", "memory exhausted"}) {
        if (lower.find(sign) != std::string::npos) return true;
    }
    return false;
}

// Why a compiler run failed, for the gradebook: a limit it hit, else its first error.
std::string failure_message(const std::string& name, const ProcessResult& run, const std::string& log,
                            const CompilerLimits& limits) {
    if (run.timed_out) return fmt::format("{}: the compiler ran past {:g} s", name, limits.timeout_s);
    if (limits.memory_bytes > 0 && ran_out_of_memory(log)) {
        return fmt::format("{}: the compiler ran out of memory (limit {} MiB)", name, limits.memory_bytes >> 20);
    }
    auto line = first_error_line(log);
    return line.empty() ? fmt::format("{}: nvcc failed (exit {})", name, run.exit_code) : line;
}

ProcessLimits process_limits(const CompilerLimits& limits) {
    ProcessLimits p;
    p.timeout_s = limits.timeout_s;
    p.file_bytes = 1LL << 30;
    p.memory_bytes = limits.memory_bytes;
    return p;
}

// Runs nvcc with `argv` in `work_dir`, its output in `log_file`; in the sandbox when there is one,
// where it reads `read` (and the kit's folders) and writes `write`. `temporary`: its own TMPDIR
// (parallel compiles in sandboxes of their own may share process ids, and nvcc names its
// temporary files by them).
ProcessResult run_compiler(const BuildKit& kit, std::vector<std::string> argv, const std::filesystem::path& work_dir,
                           const std::filesystem::path& log_file, const std::filesystem::path& temporary,
                           const std::vector<std::filesystem::path>& read, std::vector<std::filesystem::path> write,
                           const CompilerLimits& limits, const Sandbox* sandbox) {
    std::filesystem::create_directories(temporary);
    write.insert(write.begin(), temporary);
    if (sandbox) {
        SandboxRoom room;
        room.read_only = read;
        room.read_only.push_back(std::filesystem::path(kit.nvcc).parent_path().parent_path());  // the toolkit
        for (const auto& flag : kit.compile) {
            if (flag.starts_with("-I") && flag.size() > 2) room.read_only.push_back(flag.substr(2));
        }
        for (const auto& item : kit.link) {
            if (!item.starts_with("-")) room.read_only.push_back(item);
        }
        std::erase_if(room.read_only, [](const auto& p) { return !std::filesystem::exists(p); });
        room.writable = write;
        room.work_dir = work_dir;
        room.limit_memory = false;  // the compiler's own limit (CompilerLimits::memory_bytes) holds
        room.uses_cuda = false;
        argv = sandboxed_argv(*sandbox, room, argv);
    }
    ProcessSpec spec{argv, work_dir, log_file, {}, {{"TMPDIR", temporary.string()}}, process_limits(limits)};
    auto run = run_process(spec);
    std::error_code ignored;
    std::filesystem::remove_all(temporary, ignored);
    return run;
}

struct Compiled {
    bool ok = false;
    std::string log, message;
};

Compiled run_nvcc(const BuildKit& kit, const std::filesystem::path& source, const std::filesystem::path& object,
                  const CompilerLimits& limits, const Sandbox* sandbox) {
    auto name = source.filename().string();
    std::vector<std::string> argv{kit.nvcc};
    argv.insert(argv.end(), kit.compile.begin(), kit.compile.end());
    argv.insert(argv.end(), {"-c", source.string(), "-o", object.string()});
    auto log_file = object;
    log_file += ".log";
    auto temporary = object;
    temporary += ".tmp";
    auto run = run_compiler(kit, argv, object.parent_path(), log_file, temporary, {source.parent_path()},
                            {object.parent_path()}, limits, sandbox);
    Compiled c;
    auto log = read_file_text(log_file);
    c.log = fmt::format("$ nvcc ... -c {}\n{}", name, log);
    c.ok = run.ok();
    if (!c.ok) c.message = failure_message(name, run, log, limits);
    return c;
}

// Compiles of the same bytes in flight in this process: a second asker waits for the first.
std::mutex in_flight_mutex;
std::map<std::string, std::shared_future<bool>> in_flight;

Compiled compile_cached(const BuildKit& kit, const std::string& flags_text, const std::filesystem::path& source,
                        const std::filesystem::path& object_dir, const std::filesystem::path& cache_dir,
                        const CompilerLimits& limits, const Sandbox* sandbox) {
    namespace fs = std::filesystem;
    auto name = source.filename().string();
    auto key = fnv1a64_hex(flags_text + "|" + name + "|" + read_file_text(source));
    auto cached = cache_dir / (key.substr(key.find(':') + 1) + ".o");
    auto object = object_dir / (name + ".o");
    std::promise<bool> mine;
    std::shared_future<bool> theirs;
    {
        std::lock_guard lock(in_flight_mutex);
        if (!fs::exists(cached)) {
            auto it = in_flight.find(key);
            if (it != in_flight.end()) theirs = it->second;
            else in_flight[key] = mine.get_future().share();
        }
    }
    if (theirs.valid()) theirs.wait();  // a failure there is compiled again here, for this file's own message
    if (fs::exists(cached)) {
        fs::copy_file(cached, object, fs::copy_options::overwrite_existing);
        Compiled c;
        c.ok = true;
        c.log = fmt::format("$ nvcc ... -c {}  (the same bytes were compiled before: object reused)\n", name);
        return c;
    }
    auto c = run_nvcc(kit, source, object, limits, sandbox);
    if (c.ok) {
        // Into the cache by rename, so that a parallel build never sees half an object.
        auto temporary = cache_dir / fmt::format("{}.{}.{}.tmp", cached.filename().string(), ::getpid(),
                                                 std::hash<std::string>{}(object.string()));
        fs::copy_file(object, temporary, fs::copy_options::overwrite_existing);
        fs::rename(temporary, cached);
    }
    if (!theirs.valid()) {
        std::lock_guard lock(in_flight_mutex);
        in_flight.erase(key);
        mine.set_value(c.ok);
    }
    return c;
}

}  // namespace

SubmissionBuild build_submission(const BuildKit& kit, const std::vector<std::filesystem::path>& sources,
                                 const std::filesystem::path& object_dir, const std::filesystem::path& executable,
                                 const std::filesystem::path& cache_dir, const CompilerLimits& limits,
                                 const Sandbox* sandbox) {
    SubmissionBuild build;
    std::filesystem::create_directories(object_dir);
    std::filesystem::create_directories(cache_dir);
    std::string flags_text = fmt::format("{}|{}", kit.nvcc, fmt::join(kit.compile, " "));

    // A submission's files compile side by side: the first graded submission is ready sooner.
    std::vector<std::future<Compiled>> compiles;
    for (const auto& source : sources) {
        compiles.push_back(std::async(std::launch::async, compile_cached, std::cref(kit), std::cref(flags_text),
                                      source, object_dir, cache_dir, std::cref(limits), sandbox));
    }
    std::vector<std::string> objects;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        auto c = compiles[i].get();
        build.log += c.log;
        if (!c.ok && build.message.empty()) build.message = c.message;
        objects.push_back((object_dir / (sources[i].filename().string() + ".o")).string());
    }
    if (!build.message.empty()) return build;

    std::vector<std::string> argv{kit.nvcc};
    for (const auto& flag : kit.compile) {
        if (flag.starts_with("-gencode") || flag.starts_with("--generate-code")) argv.push_back(flag);
    }
    argv.insert(argv.end(), {"-o", executable.string()});
    argv.insert(argv.end(), objects.begin(), objects.end());
    std::set<std::string> rpaths;
    for (const auto& item : kit.link) {
        std::string input = item;
        if (is_shared_library(item)) {
            rpaths.insert(std::filesystem::path(item).parent_path().string());
            // nvcc takes libfoo.so but not libfoo.so.9.1.0: hand it a link with a name it knows.
            if (!item.ends_with(".so")) {
                auto alias = object_dir / (std::filesystem::path(item).filename().string() + ".so");
                std::filesystem::remove(alias);
                std::filesystem::create_symlink(item, alias);
                input = alias.string();
            }
        }
        argv.push_back(input);  // in the kit's order: each library before the ones it needs
    }
    for (const auto& dir : rpaths) argv.insert(argv.end(), {"-Xlinker", "-rpath=" + dir});
    std::filesystem::create_directories(executable.parent_path());
    auto log_file = object_dir / "link.log";
    auto run = run_compiler(kit, argv, object_dir, log_file, object_dir / "link.tmp", {}, {object_dir, executable.parent_path()},
                            limits, sandbox);
    auto log = read_file_text(log_file);
    build.log += "$ nvcc ... -o " + executable.filename().string() + "\n" + log;
    if (!run.ok()) {
        build.message = "link failed: " + failure_message(executable.filename().string(), run, log, limits);
        return build;
    }
    // The grader's symbol check reads this before the program runs (symbol_check.hpp).
    LinkManifest manifest;
    manifest.file = link_manifest_file(executable);
    manifest.objects.assign(objects.begin(), objects.end());
    manifest.libraries = kit.link;
    write_link_manifest(manifest);
    build.ok = true;
    return build;
}

}  // namespace roofline::batch

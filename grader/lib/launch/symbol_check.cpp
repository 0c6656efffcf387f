#include "symbol_check.hpp"

#include "file_text.hpp"
#include "input_error.hpp"
#include "process.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

namespace roofline {

namespace fs = std::filesystem;

LinkManifest load_link_manifest(const fs::path& file) {
    LinkManifest manifest;
    manifest.file = file;
    std::ifstream in(file);
    if (!in) {
        throw InputError(file, 0, "missing: the lab program's object list is written by the build "
                                  "(configure with the current CMakeLists, or rebuild)");
    }
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        auto eq = line.find('=');
        auto key = line.substr(0, eq), value = eq == std::string::npos ? "" : line.substr(eq + 1);
        if (key == "object" && !value.empty()) manifest.objects.emplace_back(value);
        else if (key == "library" && !value.empty()) manifest.libraries.push_back(value);
        else if (key != "object" && key != "library")
            throw InputError(file, number, "expected object=<file> or library=<file>");
    }
    return manifest;
}

void write_link_manifest(const LinkManifest& manifest) {
    std::string text;
    for (const auto& object : manifest.objects) text += "object=" + object.string() + "\n";
    for (const auto& library : manifest.libraries) text += "library=" + library + "\n";
    auto temporary = manifest.file;
    temporary += ".tmp";
    std::ofstream(temporary) << text;
    fs::rename(temporary, manifest.file);
}

namespace {

struct Symbol {
    std::string name;
    char type = '?';  // nm's letter: U undefined; T D B R ... defined; W V weak
};

// 'u': a GNU unique global (an inline function's static), merged like a weak one.
bool is_weak(char type) { return type == 'W' || type == 'V' || type == 'w' || type == 'v' || type == 'u'; }
bool is_undefined(char type) { return type == 'U' || type == 'w' || type == 'v'; }
bool is_global_definition(char type) {
    return !is_undefined(type) && ((type >= 'A' && type <= 'Z') || type == 'u' || type == 'i');
}
// nm in POSIX format: "name type [value size]" per line; archive member headers end in ':'.
// Run without a shell: the paths are a submission's.
// Where the listings of the libraries a lab program links are kept between gradings (every
// grading of a batch reads the same dozen libraries): ROOFLINE_CACHE_DIR, else the user's cache
// folder; empty when there is none. Keyed by path, size and modification time, so a rebuilt or
// updated library is read again. A submission's own objects are never cached.
fs::path listing_cache_dir() {
    if (const char* dir = std::getenv("ROOFLINE_CACHE_DIR"); dir && *dir) return fs::path(dir) / "nm";
    if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) return fs::path(dir) / "roofline" / "nm";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "roofline" / "nm";
    return {};
}

fs::path cached_listing_file(const std::string& file, bool dynamic) {
    auto dir = listing_cache_dir();
    std::error_code error;
    auto size = fs::file_size(file, error);
    if (dir.empty() || error) return {};
    auto written = fs::last_write_time(file, error);
    if (error) return {};
    auto key = fmt::format("{}|{}|{}|{}", fs::absolute(file).string(), size, written.time_since_epoch().count(), dynamic);
    return dir / fmt::format("{:016x}.txt", std::hash<std::string>{}(key));
}

// nm's listing of `file` (-D --defined-only for a shared library), or false and why not.
// `cacheable`: a library of the course or the system, whose listing may be kept.
bool nm_listing(const std::string& file, bool dynamic, bool cacheable, std::string& output, std::string& error) {
    auto cached = cacheable ? cached_listing_file(file, dynamic) : fs::path();
    if (!cached.empty() && fs::exists(cached)) {
        output = read_file_text(cached);
        return true;
    }
    static const auto nm = find_on_path("nm");
    if (nm.empty()) {
        error = "nm (binutils) is not on PATH";
        return false;
    }
    static std::atomic<unsigned> calls{0};
    auto listing = fs::temp_directory_path() / fmt::format("roofline-nm-{}-{}.txt", ::getpid(), calls++);
    ProcessSpec spec;
    spec.argv = {nm.string(), "-P"};
    if (dynamic) spec.argv.insert(spec.argv.end(), {"-D", "--defined-only"});
    spec.argv.push_back(file);
    spec.output_file = listing;
    spec.limits.timeout_s = 60;
    auto run = run_process(spec);
    output = read_file_text(listing);
    if (!run.ok()) {
        fs::remove(listing);
        error = fmt::format("nm could not read {}: {}", file, output.substr(0, 300));
        return false;
    }
    std::error_code ignored;
    if (!cached.empty()) {
        fs::create_directories(cached.parent_path(), ignored);
        fs::rename(listing, cached, ignored);  // atomic: two gradings at once write the same text
        if (!ignored) return true;
    }
    fs::remove(listing, ignored);
    return true;
}

bool read_symbols(const std::string& file, bool dynamic, bool cacheable, std::vector<Symbol>& symbols,
                  std::string& error) {
    std::string output;
    if (!nm_listing(file, dynamic, cacheable, output, error)) return false;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line.back() == ':') continue;
        std::istringstream fields(line);
        Symbol s;
        std::string type;
        if (fields >> s.name >> type && type.size() == 1) {
            s.type = type[0];
            // A shared library's symbols carry their version: malloc@@GLIBC_2.2.5.
            if (auto at = s.name.find('@'); at != std::string::npos) s.name.resize(at);
            symbols.push_back(s);
        }
    }
    return true;
}

struct Definition {
    std::string library;  // file name, for the message
    bool weak = false;
    bool shared = false;
};

// Symbols defined by the libraries a lab program links, read once per library per process.
class ReservedSymbols {
public:
    bool has(const std::string& file) const {
        std::lock_guard lock(mutex_);
        return read_.count(file) > 0;
    }
    // `symbols`: nm's listing of the library `file`.
    void add(const std::string& file, const std::vector<Symbol>& symbols) {
        std::lock_guard lock(mutex_);
        if (!read_.insert(file).second) return;
        auto name = fs::path(file).filename().string();
        for (const auto& s : symbols) {
            if (!is_global_definition(s.type)) continue;
            auto& slot = definitions_[s.name];
            // A strong definition is the one that matters when both exist.
            if (slot.library.empty() || (slot.weak && !is_weak(s.type)))
                slot = {name, is_weak(s.type), is_shared_library(file)};
        }
    }
    const Definition* find(const std::string& symbol) const {
        std::lock_guard lock(mutex_);
        auto it = definitions_.find(symbol);
        return it == definitions_.end() ? nullptr : &it->second;
    }

private:
    mutable std::mutex mutex_;
    std::set<std::string> read_;
    std::map<std::string, Definition> definitions_;
};

ReservedSymbols& reserved() {
    static ReservedSymbols symbols;
    return symbols;
}

// The C and C++ runtimes this process runs on: the same ones a lab program loads.
std::vector<std::string> runtime_libraries() {
    std::vector<std::string> files;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    std::set<std::string> seen;
    while (std::getline(maps, line)) {
        auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        auto path = line.substr(slash);
        auto name = fs::path(path).filename().string();
        bool runtime = name.starts_with("libc.so") || name.starts_with("libstdc++.so") ||
                       name.starts_with("libm.so") || name.starts_with("libgcc_s.so") ||
                       name.starts_with("libdl.so") || name.starts_with("libpthread.so");
        if (runtime && seen.insert(path).second) files.push_back(path);
    }
    return files;
}

bool starts_with_any(const std::string& text, std::initializer_list<const char*> prefixes) {
    for (const char* p : prefixes) {
        if (text.starts_with(p)) return true;
    }
    return false;
}

// C names of the CUDA stack: defining one replaces (or shadows) the real one.
bool is_cuda_name(const std::string& name) {
    if (starts_with_any(name, {"cuda", "__cuda", "cublas", "cudnn", "cupti", "nvrtc", "nvJitLink", "curand",
                               "cufft", "cusparse", "cusolver"}))
        return true;
    return name.size() > 2 && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';  // cuLaunchKernel
}

bool in_anonymous_namespace(const std::string& name) { return name.find("_GLOBAL__N_") != std::string::npos; }

}  // namespace

std::string demangle(const std::string& name) {
    if (!name.starts_with("_Z")) return name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && text ? std::string(text.get()) : name;
}

std::optional<std::string> kernel_of_stub(const std::string& symbol) {
    static const std::string marker = "__device_stub__";
    if (!symbol.starts_with("_Z")) return std::nullopt;
    auto at = symbol.find(marker);
    if (at == std::string::npos) return std::nullopt;
    std::size_t digits = at;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(symbol[digits - 1]))) --digits;
    if (digits == at || at - digits > 6) return std::nullopt;
    auto length = std::stoul(symbol.substr(digits, at - digits));
    auto identifier = symbol.substr(at, length);
    if (identifier.size() != length || length == marker.size()) return std::nullopt;
    return "_" + identifier.substr(marker.size());
}

void SymbolCheck::add_kernel(const std::string& device_name) {
    kernels.insert(device_name);
    auto readable = demangle(device_name);
    if (in_anonymous_namespace(device_name)) kernels_anonymous.insert(readable);
    // The stub of an extern "C" kernel carries a C++ name; the GPU runs it as the bare name.
    auto bare = readable.substr(0, readable.find('('));
    if (bare.find_first_of(":<> ") == std::string::npos) kernels_c_linkage.insert(bare);
}

bool SymbolCheck::defines_kernel(const std::string& device_name) const {
    if (kernels.count(device_name)) return true;
    if (!device_name.starts_with("_Z")) return kernels_c_linkage.count(device_name) > 0;
    return in_anonymous_namespace(device_name) && kernels_anonymous.count(demangle(device_name)) > 0;
}

bool is_shared_library(const std::string& file) {
    auto name = fs::path(file).filename().string();
    return name.size() > 3 && (name.ends_with(".so") || name.find(".so.") != std::string::npos);
}

bool call_allowed(const std::vector<std::string>& allow_calls, const std::string& family) {
    return std::find(allow_calls.begin(), allow_calls.end(), family) != allow_calls.end();
}

fs::path link_manifest_file(const fs::path& executable) {
    auto file = executable;
    file += ".objects";
    return file;
}

std::string forbidden_call_reason(const std::string& symbol, const std::vector<std::string>& allowed_calls) {
    const auto& s = symbol;
    if (s.starts_with("cublas")) return "cuBLAS would do the lab's work";
    if (s.starts_with("cudnn")) return "cuDNN would do the lab's work";
    if (starts_with_any(s, {"cufft", "cusparse", "cusolver", "curand", "cutensor"}))
        return "a CUDA library would do the lab's work";
    if (starts_with_any(s, {"nvrtc", "nvJitLink"})) return "it compiles code at run time, out of the grader's sight";
    if (s.starts_with("cupti")) return "it hooks the profiling interface the grader watches with";
    if (s == "dlopen" || s == "dlmopen" || s == "dlsym" || s == "dlvsym")
        return "it loads code the grader cannot see (dlopen/dlsym)";
    if (s.starts_with("cudaGetDriverEntryPoint") || s.starts_with("cuGetProcAddress"))
        return "it fetches driver functions the lab does not hand out (use the lab's headers)";
    if (s.starts_with("cudaLibraryLoad") || s.starts_with("cudaLibraryGetKernel"))
        return "it loads kernels the grader cannot see";
    if (s.starts_with("cudaMemcpy") || s.starts_with("cudaGraphAddMemcpy")) {
        return call_allowed(allowed_calls, "cudaMemcpy")
                   ? ""
                   : "cudaMemcpy would do the lab's work (lab.yaml does not list it in allow_calls)";
    }
    if (s.starts_with("cudaMemset") || s.starts_with("cudaGraphAddMemset")) {
        return call_allowed(allowed_calls, "cudaMemset")
                   ? ""
                   : "cudaMemset would do the lab's work (lab.yaml does not list it in allow_calls)";
    }
    if (s.size() > 2 && s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z')
        return "it calls the CUDA driver API directly (use the runtime and the lab's headers)";
    return "";
}

SymbolCheck check_symbols(const LinkManifest& manifest, const std::vector<std::string>& allowed_calls) {
    SymbolCheck check;
    auto libraries = runtime_libraries();
    for (const auto& library : manifest.libraries) {
        if (!library.starts_with("-") && fs::exists(library)) libraries.push_back(library);
    }
    // Every nm at once: one after the other they were most of a grading's own time
    // (14 files, 40-90 ms each, for lab 01).
    struct Listing {
        std::vector<Symbol> symbols;
        std::string error;
        bool ok = false;
    };
    auto listing_of = [](std::string file, bool dynamic, bool cacheable) {
        return std::async(std::launch::async, [file = std::move(file), dynamic, cacheable] {
            Listing listing;
            listing.ok = read_symbols(file, dynamic, cacheable, listing.symbols, listing.error);
            return listing;
        });
    };
    std::vector<std::pair<std::string, std::future<Listing>>> library_listings;
    for (const auto& library : libraries) {
        if (!reserved().has(library))
            library_listings.emplace_back(library, listing_of(library, is_shared_library(library), true));
    }
    for (const auto& object : manifest.objects) {
        std::error_code missing;
        if (!std::filesystem::exists(object, missing)) check.missing_objects.push_back(object.string());
    }
    if (!check.missing_objects.empty()) {
        check.error = fmt::format("{} of the lab program's objects are not built (first: {})", check.missing_objects.size(),
                                  check.missing_objects.front());
        return check;
    }
    std::vector<std::future<Listing>> object_listings;
    for (const auto& object : manifest.objects) object_listings.push_back(listing_of(object.string(), false, false));
    for (auto& [library, pending] : library_listings) {
        auto listing = pending.get();
        if (!listing.ok && check.error.empty()) check.error = listing.error;
        if (listing.ok) reserved().add(library, listing.symbols);
    }
    std::vector<Listing> listings;
    for (auto& pending : object_listings) listings.push_back(pending.get());
    if (!check.error.empty()) return check;
    for (std::size_t i = 0; i < manifest.objects.size(); ++i) {
        const auto& object = manifest.objects[i];
        if (!listings[i].ok) {
            check.error = listings[i].error;
            return check;
        }
        const auto& symbols = listings[i].symbols;
        std::set<std::string> reported;
        for (const auto& s : symbols) {
            if (!reported.insert(s.name).second) continue;
            if (!is_undefined(s.type)) {
                check.defined.insert(s.name);
                if (auto kernel = kernel_of_stub(s.name)) check.add_kernel(*kernel);
            }
            if (is_undefined(s.type)) {
                auto why = forbidden_call_reason(s.name, allowed_calls);
                if (!why.empty()) check.forbidden_calls.push_back({object, s.name, demangle(s.name), why});
                continue;
            }
            if (!is_global_definition(s.type)) continue;
            bool mangled = s.name.starts_with("_Z");
            if (!mangled && is_cuda_name(s.name)) {
                check.forbidden_symbols.push_back({object, s.name, s.name, "a name of the CUDA stack"});
                continue;
            }
            const Definition* theirs = reserved().find(s.name);
            if (!theirs) continue;
            // Inline functions and templates are emitted weak in every object that uses them:
            // two weak copies are one function. A weak C++ copy beside a shared library's own
            // is the same (libstdc++ exports some of its templates).
            if (is_weak(s.type) && (theirs->weak || (mangled && theirs->shared))) continue;
            check.forbidden_symbols.push_back({object, s.name, demangle(s.name), theirs->library + " defines it"});
        }
    }
    return check;
}

std::string describe(const SymbolCheck& check) {
    std::string out;
    if (!check.error.empty()) out += "the symbol check could not run: " + check.error + "\n";
    for (const auto& f : check.forbidden_symbols) {
        out += fmt::format("{} defines {} ({}): a kernel file may define only its kernels, launch functions, "
                           "registrations and file-local helpers\n",
                           f.object.filename().string(), f.readable, f.why);
    }
    for (const auto& f : check.forbidden_calls) {
        out += fmt::format("{} calls {}: {}\n", f.object.filename().string(), f.readable, f.why);
    }
    if (!out.empty()) out.pop_back();
    return out;
}

}  // namespace roofline

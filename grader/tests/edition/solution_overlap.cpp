// solution_overlap EDITION SOLUTIONS: lists every place where a file of the
// student edition repeats a run of a reference solution's answer code, and
// exits 1 if there is one (0: none, 2: bad usage or an unreadable folder).
//
// What counts. Lines are compared after taking out comments and all white
// space; a line that is then empty, only brackets and separators ({ } ( ) [ ] ; ,),
// or a preprocessor line (#include, #pragma ...) is skipped, and runs are counted
// over the lines that remain. A run is kRunLines (6) such lines of a solution
// file, one after another. A lab's skeleton (labs/LAB/kernels/F.cu beside
// solutions/LAB/kernels/F.cu) shares a lot with its solution by design: the
// signatures, the registration, the given helpers. So a run is an answer only if
// at least one of its lines is not a line of that skeleton (a solution with no
// skeleton, such as a helper header, is all answer; a header a lab's solutions share,
// solutions/LAB/NAME.cuh, takes the lines of all the lab's kernel skeletons as given). The check fails when any
// edition file holds an answer run: given code, a lesson or a script that
// repeats six lines of a solution of which at least one is the student's to
// write, or a skeleton that repeats another lab's answer. What it cannot see is
// a skeleton that holds its own solution: by this rule its lines are the given
// ones. An exact copy is caught by student_edition_test.sh's checksums, and a
// solved skeleton by grading it (the edition test expects lab 01's to fail).
//
// The EDITION folder's own solutions/, instructor/, .git and build* folders
// are passed over, so a course checkout can be checked as it stands.
//
// solution_overlap --pairs COURSE [--allow FILE]: given code is written once. For each
// skeleton (labs/LAB/kernels/F, labs/LAB/cpu/F) beside its solution (solutions/LAB/...),
// the longest run of code lines (counted as above) that the two share in the same order; a
// run of kSharedRunLines (20) or more is given code written twice, and it belongs in
// labs/LAB/given/, a header both include (the headers are one file, so they are never a
// pair; a solution's lines include those of a shared header solutions/LAB/NAME.cuh it
// includes as "../NAME.cuh"). Exits 1 when there is one. FILE lists the pairs allowed a longer run, one
// "labs/LAB/kernels/F LINES reason" a line (# starts a comment): the run may not exceed
// LINES, and an entry whose run has dropped under kSharedRunLines is reported as stale.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kRunLines = 6;
constexpr std::uintmax_t kLargestFile = 1 << 20;  // larger files are data, not code
constexpr std::size_t kMostReported = 20;

struct CodeLine {
    std::string text;  // no comments, no white space
    int number;        // 1-based, in the file
};

bool is_c_family(const fs::path& path) {
    static const std::unordered_set<std::string> kinds{".cu", ".cuh", ".cpp", ".hpp", ".h", ".c", ".cc", ".cxx", ".hxx"};
    return kinds.count(path.extension().string()) != 0;
}

// The text with C and C++ comments taken out; string and character literals are kept whole.
std::string without_c_comments(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    enum class In { code, line_comment, block_comment, string, character } in = In::code;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : '\0';
        switch (in) {
            case In::code:
                if (c == '/' && next == '/') in = In::line_comment, ++i;
                else if (c == '/' && next == '*') in = In::block_comment, ++i;
                else {
                    if (c == '"') in = In::string;
                    else if (c == '\'') in = In::character;
                    out += c;
                }
                break;
            case In::line_comment:
                if (c == '\n') in = In::code, out += c;
                break;
            case In::block_comment:
                if (c == '*' && next == '/') in = In::code, ++i;
                else if (c == '\n') out += c;  // keep the line numbers
                break;
            case In::string:
            case In::character:
                out += c;
                if (c == '\\' && next != '\0' && next != '\n') out += next, ++i;
                else if (c == (in == In::string ? '"' : '\'') || c == '\n') in = In::code;
                break;
        }
    }
    return out;
}

// Outside C and C++ (lessons, scripts, YAML): a line comment starts a line or follows a blank.
std::string without_line_comment(const std::string& line) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 2, "//") == 0) return {};
    const auto at = line.find(" //");
    return at == std::string::npos ? line : line.substr(0, at);
}

bool is_trivial(const std::string& squeezed) {
    if (squeezed.empty() || squeezed[0] == '#') return true;
    return squeezed.find_first_not_of("{}()[];,") == std::string::npos;
}

// The file's code lines, or nothing for a file that is too large or not text.
std::vector<CodeLine> code_lines(const fs::path& path) {
    std::error_code error;
    if (fs::file_size(path, error) > kLargestFile || error) return {};
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find('\0') != std::string::npos) return {};
    const bool c_family = is_c_family(path);
    if (c_family) text = without_c_comments(text);
    std::vector<CodeLine> lines;
    std::istringstream stream(text);
    std::string line;
    for (int number = 1; std::getline(stream, line); ++number) {
        if (!c_family) line = without_line_comment(line);
        std::string squeezed;
        for (char c : line)
            if (c != ' ' && c != '\t' && c != '\r') squeezed += c;
        if (!is_trivial(squeezed)) lines.push_back({squeezed, number});
    }
    return lines;
}

std::string run_key(const std::vector<CodeLine>& lines, std::size_t first) {
    std::string key;
    for (std::size_t i = first; i < first + kRunLines; ++i) key += lines[i].text + '\n';
    return key;
}

struct Place {
    std::string file;  // relative to its root
    int first_line, last_line;
};

bool skipped_folder(const fs::path& relative) {
    const std::string top = relative.begin()->string();
    return top == "solutions" || top == "instructor" || top == ".git" || top.rfind("build", 0) == 0;
}

std::vector<fs::path> files_under(const fs::path& root, bool skip_course_folders) {
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path relative = fs::relative(it->path(), root);
        if (skip_course_folders && it->is_directory() && skipped_folder(relative)) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file()) files.push_back(relative);
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

// The longest run of code lines that a and b share, one after another in both: {length, start in a, start in b}.
struct SharedRun {
    std::size_t length = 0, a_first = 0, b_first = 0;
};
SharedRun longest_shared_run(const std::vector<CodeLine>& a, const std::vector<CodeLine>& b) {
    SharedRun best;
    std::vector<std::size_t> previous(b.size() + 1, 0), current(b.size() + 1, 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            current[j] = a[i - 1].text == b[j - 1].text ? previous[j - 1] + 1 : 0;
            if (current[j] > best.length) best = {current[j], i - current[j], j - current[j]};
        }
        std::swap(previous, current);
    }
    return best;
}

struct Allowance {
    std::size_t lines;
    int line_in_file;
};

// FILE's allowances: "labs/LAB/kernels/F LINES reason"; an error names the line and the fix.
bool read_allowances(const fs::path& file, std::unordered_map<std::string, Allowance>& allowed) {
    std::ifstream in(file);
    if (!in) {
        std::fprintf(stderr, "solution_overlap: cannot read %s\n", file.c_str());
        return false;
    }
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const auto hash = line.find('#');
        std::istringstream fields(line.substr(0, hash));
        std::string path;
        long long lines = 0;
        if (!(fields >> path)) continue;
        if (!(fields >> lines) || lines < 1) {
            std::fprintf(stderr, "%s:%d: expected \"labs/LAB/kernels/FILE LINES reason\" (LINES: the longest shared "
                                 "run allowed, a positive number), got \"%s\"\n", file.c_str(), number, line.c_str());
            return false;
        }
        allowed[path] = {std::size_t(lines), number};
    }
    return true;
}

// A solution file's code lines, with those of the lab's shared headers it includes
// (`#include "../NAME.cuh"`: solutions/LAB/NAME.cuh, a guided rung's kernel that the open rung's
// reference reuses) put first, where the include stands: the given code a skeleton repeats is
// still seen when its solution keeps the kernel in such a header.
std::vector<CodeLine> solution_code_lines(const fs::path& course, const fs::path& relative) {
    const fs::path file = course / "solutions" / relative;
    std::vector<CodeLine> lines;
    std::ifstream in(file);
    static const std::regex kSharedInclude(R"re(^\s*#\s*include\s*"\.\./([A-Za-z0-9_.-]+)")re");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, kSharedInclude)) continue;
        const fs::path header = file.parent_path().parent_path() / m[1].str();
        if (!fs::is_regular_file(header)) continue;
        const auto included = code_lines(header);
        lines.insert(lines.end(), included.begin(), included.end());
    }
    const auto own = code_lines(file);
    lines.insert(lines.end(), own.begin(), own.end());
    return lines;
}

// Given code once: no skeleton shares kSharedRunLines code lines in a row with its solution.
int check_pairs(const fs::path& course, const fs::path* allow_file) {
    constexpr std::size_t kSharedRunLines = 20;
    std::unordered_map<std::string, Allowance> allowed;
    if (allow_file != nullptr && !read_allowances(*allow_file, allowed)) return 2;
    if (!fs::is_directory(course / "solutions") || !fs::is_directory(course / "labs")) {
        std::fprintf(stderr, "solution_overlap: %s has no labs/ and solutions/ folders\n", course.c_str());
        return 2;
    }
    std::size_t pairs = 0, failures = 0;
    std::unordered_set<std::string> seen;
    for (const fs::path& relative : files_under(course / "solutions", false)) {
        if (!is_c_family(relative) || std::distance(relative.begin(), relative.end()) != 3) continue;
        const std::string folder = std::next(relative.begin())->string();
        if (folder != "kernels" && folder != "cpu") continue;
        const fs::path skeleton = course / "labs" / relative;
        if (!fs::is_regular_file(skeleton)) continue;
        ++pairs;
        const std::string name = "labs/" + relative.generic_string();
        seen.insert(name);
        const auto run = longest_shared_run(code_lines(skeleton), solution_code_lines(course, relative));
        const auto allowance = allowed.find(name);
        const std::size_t limit = allowance == allowed.end() ? kSharedRunLines - 1 : allowance->second.lines;
        if (run.length > limit) {
            ++failures;
            const auto sk = code_lines(skeleton), so = solution_code_lines(course, relative);
            std::printf("%s:%d-%d and solutions/%s:%d-%d share %zu code lines in a row (at most %zu allowed): move the "
                        "given code to labs/%s/given/ and include it from both\n",
                        name.c_str(), sk[run.a_first].number, sk[run.a_first + run.length - 1].number,
                        relative.generic_string().c_str(), so[run.b_first].number,
                        so[run.b_first + run.length - 1].number, run.length, limit,
                        relative.begin()->string().c_str());
        } else if (allowance != allowed.end() && run.length < kSharedRunLines) {
            ++failures;
            std::printf("%s:%d: %s shares only %zu code lines in a row with its solution now: remove its allowance\n",
                        allow_file->c_str(), allowance->second.line_in_file, name.c_str(), run.length);
        }
    }
    for (const auto& [name, allowance] : allowed)
        if (seen.count(name) == 0) {
            ++failures;
            std::printf("%s:%d: %s is no skeleton with a solution: remove its allowance\n", allow_file->c_str(),
                        allowance.line_in_file, name.c_str());
        }
    if (pairs == 0) {
        std::fprintf(stderr, "solution_overlap: no skeleton beside a solution under %s\n", course.c_str());
        return 2;
    }
    std::printf("%zu skeletons beside their solutions: %zu with given code written twice\n", pairs, failures);
    return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "--pairs") {
        if (argc == 3) return check_pairs(argv[2], nullptr);
        if (argc == 5 && std::string(argv[3]) == "--allow") {
            const fs::path allow = argv[4];
            return check_pairs(argv[2], &allow);
        }
    }
    if (argc != 3 || std::string(argv[1]) == "--pairs") {
        std::fprintf(stderr, "usage: solution_overlap EDITION_DIR SOLUTIONS_DIR\n"
                             "       solution_overlap --pairs COURSE_DIR [--allow FILE]\n");
        return 2;
    }
    const fs::path edition = argv[1], solutions = argv[2];
    if (!fs::is_directory(edition) || !fs::is_directory(solutions)) {
        std::fprintf(stderr, "solution_overlap: %s or %s is not a folder\n", argv[1], argv[2]);
        return 2;
    }

    // Every answer run of every solution, with where it stands.
    std::unordered_map<std::string, Place> answer_runs;
    std::size_t solution_files = 0;
    for (const fs::path& relative : files_under(solutions, false)) {
        const auto lines = code_lines(solutions / relative);
        if (lines.size() < kRunLines) continue;
        ++solution_files;
        std::unordered_set<std::string> given;  // the skeleton's lines: the student is handed them
        for (const auto& line : code_lines(edition / "labs" / relative)) given.insert(line.text);
        // A header that a lab's solutions share (solutions/LAB/NAME.cuh, beside kernels/: the design of
        // a guided rung reused by the open rung) has no skeleton of its own; what its solution files'
        // skeletons hand the student (the lab's kernels/*.cu) is given for it too.
        if (std::distance(relative.begin(), relative.end()) == 2 && is_c_family(relative)) {
            const fs::path skeletons = edition / "labs" / *relative.begin() / "kernels";
            if (fs::is_directory(skeletons))
                for (const auto& skeleton : fs::directory_iterator(skeletons))
                    for (const auto& line : code_lines(skeleton.path())) given.insert(line.text);
        }
        for (std::size_t first = 0; first + kRunLines <= lines.size(); ++first) {
            const bool has_answer = std::any_of(lines.begin() + first, lines.begin() + first + kRunLines,
                                                [&](const CodeLine& l) { return given.count(l.text) == 0; });
            if (has_answer)
                answer_runs.try_emplace(run_key(lines, first), Place{"solutions/" + relative.generic_string(),
                                                                     lines[first].number,
                                                                     lines[first + kRunLines - 1].number});
        }
    }
    if (solution_files == 0) {
        std::fprintf(stderr, "solution_overlap: no solution files with %zu code lines under %s\n", kRunLines, argv[2]);
        return 2;
    }

    std::size_t found = 0, files_read = 0;
    auto report = [&](const fs::path& file, int first, int last, const Place& source) {
        if (++found <= kMostReported)
            std::printf("%s:%d-%d repeats answer code of %s (from line %d; not all of it is in the lab's skeleton)\n",
                        file.generic_string().c_str(), first, last, source.file.c_str(), source.first_line);
    };
    for (const fs::path& relative : files_under(edition, true)) {
        const auto lines = code_lines(edition / relative);
        ++files_read;
        // Overlapping hits make one stretch, reported once with the solution place of its first run.
        int stretch_first = 0, stretch_last = 0;
        const Place* stretch_source = nullptr;
        for (std::size_t first = 0; first + kRunLines <= lines.size(); ++first) {
            const auto hit = answer_runs.find(run_key(lines, first));
            if (hit == answer_runs.end()) continue;
            if (stretch_source != nullptr && lines[first].number > stretch_last) {
                report(relative, stretch_first, stretch_last, *stretch_source);
                stretch_source = nullptr;
            }
            if (stretch_source == nullptr) stretch_first = lines[first].number, stretch_source = &hit->second;
            stretch_last = lines[first + kRunLines - 1].number;
        }
        if (stretch_source != nullptr) report(relative, stretch_first, stretch_last, *stretch_source);
    }
    if (found > kMostReported) std::printf("... and %zu more\n", found - kMostReported);
    std::printf("%zu edition files against %zu answer runs of %zu solution files: %zu repeated\n", files_read,
                answer_runs.size(), solution_files, found);
    return found == 0 ? 0 : 1;
}

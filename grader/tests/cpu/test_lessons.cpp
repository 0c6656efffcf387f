// The course's prose may point only at what exists: every relative Markdown link
// (and its #anchor) in the lessons, the lab READMEs and debriefs, README.md, grader/README.md,
// scripts/README.md and results/README.md, and every repository path they name, in backticks or not (e.g.
// `labs/03-gemm/kernels/03_smem_tiled.cu`). The classifier bank is read too, since
// students see its explanations through `roofline classify --check`. A lesson may
// also not cite a Markdown file by bare name (`PLANNING.md`) that the repository
// lacks, and neither may a comment in the source tree (grader/, labs/, solutions/,
// scripts/, cmake/); a comment there may not name a code file (`roofline/ptx/mma_sync.cuh`,
// `svg_canvas.hpp`) that no file in the tree ends with, unless it says which commit holds
// it. Each failure names file:line, the missing target and what to do.
#include "test_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using roofline_test::TempDir;
using roofline_test::write_file;

// The repository's top-level folders: a token that starts with one of these and a
// slash is taken as a path from the repository root.
const std::regex kRepoPath(
    R"((?:^|[^A-Za-z0-9_./-])((?:cmake|grader|hardware|instructor|labs|lessons|results|scripts|solutions)/[A-Za-z0-9_./*?{}<>-]*))");
const std::regex kLink(R"(!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\))");
const std::regex kBareMarkdown(R"((?:^|[^A-Za-z0-9_./-])([A-Za-z0-9_-]+\.md)\b)");
// A code file named in a comment, bare (`svg_canvas.hpp`) or with folders (`roofline/ptx/tma.cuh`).
// Pattern characters are kept in the token so that is_template() sees them: `problems/NAME/*_problem.cu`
// is a pattern, and `<cuda_runtime.h>` a system header, not a file of this repository.
const std::regex kCodePath(
    R"((?:^|[^A-Za-z0-9_./*?{}<>-])([A-Za-z0-9_./*?{}<>-]+\.(?:hpp|cuh|cu|cpp|h|py|sh|cmake))\b)");
// "at commit 4382e25": a comment may name a file removed since if it says where the history holds it.
const std::regex kCommitHash(R"(\bcommit [0-9a-f]{7,40}\b)");

// Words that stand for a name the reader fills in (labs/NN-name/, instructor/hidden/LAB.yaml).
const std::set<std::string> kPlaceholders = {"NN", "LAB", "NAME", "VARIANT", "FAMILY"};

// A path written as a pattern or a template rather than a file.
bool is_template(const std::string& path) {
    if (path.find_first_of("*?{}<>") != std::string::npos || path.find("...") != std::string::npos) return true;
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find('/', start);
        std::string segment = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::string head = segment.substr(0, segment.find_first_of(".-_"));
        if (kPlaceholders.count(head)) return true;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return false;
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
// Non-ASCII characters are dropped too (GitHub drops punctuation such as "·").
std::string heading_slug(const std::string& heading) {
    std::string slug;
    for (unsigned char c : heading) {
        if (std::isalnum(c)) slug += static_cast<char>(std::tolower(c));
        else if (c == ' ' || c == '-') slug += '-';
        else if (c == '_') slug += '_';
    }
    return slug;
}

// The comment on a line of code: after `//`, or a line inside a block comment (` * ...`);
// with `hash_comments` (CMake, shell, Python), after a `#` that starts a word. A line of C
// written by a script (`#include <dlfcn.h>` in a here-document) is code, not a comment.
std::string comment_of(const std::string& line, bool hash_comments) {
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    if (hash_comments) {
        static const std::regex preprocessor(R"(#\s*(include|define|pragma|if|ifdef|ifndef|else|endif)\b.*)");
        for (std::size_t i = first; i < line.size(); ++i) {
            if (line[i] != '#' || (i != first && line[i - 1] != ' ' && line[i - 1] != '\t')) continue;
            if (std::regex_match(line.begin() + std::ptrdiff_t(i), line.end(), preprocessor)) return "";
            return line.substr(i);
        }
        return "";
    }
    if (line.compare(first, 2, "/*") == 0 || line.compare(first, 1, "*") == 0) return line.substr(first);
    auto slashes = line.find("//");
    return slashes == std::string::npos ? "" : line.substr(slashes);
}

bool is_fence(const std::string& line) {
    auto first = line.find_first_not_of(" \t");
    return first != std::string::npos && line.compare(first, 3, "```") == 0;
}

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::set<std::string> anchors_of(const fs::path& markdown) {
    std::set<std::string> anchors;
    std::map<std::string, int> seen;
    bool in_code = false;
    for (const auto& line : lines_of(markdown)) {
        if (is_fence(line)) in_code = !in_code;
        if (in_code || line.empty() || line[0] != '#') continue;
        auto text = line.substr(line.find_first_not_of('#'));
        std::string slug = heading_slug(text.substr(std::min(text.size(), text.find_first_not_of(' '))));
        int repeat = seen[slug]++;
        anchors.insert(repeat == 0 ? slug : slug + "-" + std::to_string(repeat));
    }
    return anchors;
}

// Every file in the repository, as its path from the root, build folders and dot folders left out.
std::vector<std::string> repository_files(const fs::path& root) {
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        std::string name = it->path().filename().string();
        if (it->is_directory() && (name.rfind("build", 0) == 0 || name[0] == '.')) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root).generic_string());
    }
    return files;
}

// The names of every Markdown file in the repository.
std::set<std::string> markdown_names(const std::vector<std::string>& files) {
    std::set<std::string> names;
    for (const auto& file : files)
        if (fs::path(file).extension() == ".md") names.insert(fs::path(file).filename().string());
    return names;
}

// Every tail of every file's path (`a/b/c.cu`, `b/c.cu`, `c.cu`): what a comment may cite a file by.
std::set<std::string> path_tails(const std::vector<std::string>& files) {
    std::set<std::string> tails;
    for (const auto& file : files) {
        for (std::size_t from = 0; from != std::string::npos;) {
            tails.insert(file.substr(from));
            auto slash = file.find('/', from);
            from = slash == std::string::npos ? slash : slash + 1;
        }
    }
    return tails;
}

struct Checker {
    fs::path root;
    std::set<std::string> markdown;  // file names, for bare citations
    std::set<std::string> tails;     // every tail of every file's path, for code files cited in comments
    bool student_edition;            // scripts/student_edition.sh leaves out solutions/, instructor/, results/, some scripts/

    explicit Checker(fs::path repo) : root(std::move(repo)), student_edition(fs::exists(root / "EDITION.md")) {
        auto files = repository_files(root);
        markdown = markdown_names(files);
        tails = path_tails(files);
    }

    bool left_out_of_edition(const std::string& path) const {
        if (!student_edition) return false;
        for (const char* folder : {"solutions/", "instructor/", "scripts/", "results/"})
            if (path.rfind(folder, 0) == 0) return true;
        return false;
    }

    // Problems in one document, each as "path:line: what is wrong; what to do".
    std::vector<std::string> check(const fs::path& document) const {
        std::vector<std::string> problems;
        const std::string shown = fs::relative(document, root).generic_string();
        const bool is_lesson = shown.rfind("lessons/", 0) == 0;
        bool in_code = false;
        int number = 0;
        for (const auto& line : lines_of(document)) {
            ++number;
            const std::string at = shown + ":" + std::to_string(number) + ": ";
            if (is_fence(line)) {
                in_code = !in_code;
                continue;
            }
            if (!in_code) check_links(line, document, at, problems);
            for (std::sregex_iterator m(line.begin(), line.end(), kRepoPath), end; m != end; ++m) {
                std::string path = (*m)[1].str();
                while (!path.empty() && std::string(".,:;").find(path.back()) != std::string::npos) path.pop_back();
                if (is_template(path) || fs::exists(root / path) || left_out_of_edition(path)) continue;
                problems.push_back(at + "names " + path + ", which is not in the repository; correct the path or " +
                                   "drop the reference");
            }
            if (!is_lesson) continue;
            const std::string prose = std::regex_replace(line, kLink, " ");  // link targets are checked above
            for (std::sregex_iterator m(prose.begin(), prose.end(), kBareMarkdown), end; m != end; ++m) {
                std::string name = (*m)[1].str();
                if (markdown.count(name)) continue;
                problems.push_back(at + "cites " + name + ", which is not in the repository; cite a file that is " +
                                   "(a README or results/) or state the fact in the lesson");
            }
        }
        return problems;
    }

    // A comment in a source file (code, CMake, a script) that cites a Markdown file the
    // repository lacks, or names a code file no file in the repository ends with. Code may
    // name files it writes (summary.md, kernel.cu): only comments count.
    std::vector<std::string> check_source(const fs::path& file) const {
        std::vector<std::string> problems;
        const std::string shown = fs::relative(file, root).generic_string();
        const auto ext = file.extension().string();
        const bool hash_comments = ext == ".cmake" || ext == ".sh" || ext == ".py" || ext == ".txt";
        std::vector<std::string> comments;
        for (const auto& line : lines_of(file)) comments.push_back(comment_of(line, hash_comments));
        for (std::size_t i = 0; i < comments.size(); ++i) {
            const std::string& comment = comments[i];
            const std::string at = shown + ":" + std::to_string(i + 1) + ": ";
            for (std::sregex_iterator m(comment.begin(), comment.end(), kBareMarkdown), end; m != end; ++m) {
                std::string name = (*m)[1].str();
                if (markdown.count(name)) continue;
                problems.push_back(at + "cites " + name +
                                   ", which is not in the repository; point to a README that is (grader/README.md "
                                   "explains the grader's design) or state the fact in the comment");
            }
            for (std::sregex_iterator m(comment.begin(), comment.end(), kCodePath), end; m != end; ++m) {
                std::string path = (*m)[1].str();
                while (path.rfind("./", 0) == 0 || path.rfind("../", 0) == 0) path.erase(0, path.find('/') + 1);
                if (is_template(path) || tails.count(path) || left_out_of_edition(path)) continue;
                // "(x.cuh, removed since; at commit 2f832d4)": the rest of this line and the next may say where.
                std::string next = i + 1 < comments.size() ? comments[i + 1] : "";
                next.erase(0, next.find_first_not_of("/*# \t"));  // the comment's words, not its marker
                const std::string after = comment.substr(std::size_t(m->position(1))) + " " + next;
                if (std::regex_search(after, kCommitHash)) continue;
                problems.push_back(at + "names " + path +
                                   ", which no file in the repository is; cite a header as its #include names it "
                                   "(roofline/ptx/mma_sync.cuh) or by a file name that exists, or for a file removed "
                                   "since say which commit holds it (\"at commit 4382e25\")");
            }
        }
        return problems;
    }

    void check_links(const std::string& line, const fs::path& document, const std::string& at,
                     std::vector<std::string>& problems) const {
        for (std::sregex_iterator m(line.begin(), line.end(), kLink), end; m != end; ++m) {
            std::string target = (*m)[1].str();
            if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
            auto hash = target.find('#');
            std::string path = target.substr(0, hash);
            std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
            fs::path resolved = path.empty() ? document : document.parent_path() / path;
            if (!fs::exists(resolved)) {
                // No excuse for a link, even in the student edition: a reader clicks it.
                problems.push_back(at + "links to " + target + ", which does not exist; correct the link or drop it");
                continue;
            }
            if (!anchor.empty() && resolved.extension() == ".md" && !anchors_of(resolved).count(anchor))
                problems.push_back(at + "links to " + target + ", but " + resolved.filename().string() +
                                   " has no heading with that anchor; link to a heading it has");
        }
    }
};

// What students and instructors read: the lessons and the classifier bank, the lab
// READMEs and their debriefs, the course README, the grader's, the scripts' and the results index.
std::vector<fs::path> course_documents(const fs::path& root) {
    std::vector<fs::path> documents = {root / "README.md",          root / "results" / "README.md",
                                       root / "grader" / "README.md", root / "scripts" / "README.md",
                                       root / "lessons" / "practice" / "bank.yaml"};
    for (const auto& entry : fs::directory_iterator(root / "lessons"))
        if (entry.path().extension() == ".md") documents.push_back(entry.path());
    for (const auto& entry : fs::directory_iterator(root / "labs")) {
        if (fs::exists(entry.path() / "README.md")) documents.push_back(entry.path() / "README.md");
        if (!fs::is_directory(entry.path() / "debrief")) continue;
        for (const auto& debrief : fs::directory_iterator(entry.path() / "debrief"))  // labs/NN/debrief/VARIANT.md
            if (debrief.path().extension() == ".md") documents.push_back(debrief.path());
    }
    documents.erase(std::remove_if(documents.begin(), documents.end(),
                                   [](const fs::path& d) { return !fs::exists(d); }),  // the edition: no results/
                    documents.end());
    std::sort(documents.begin(), documents.end());
    return documents;
}

// The source tree's code, CMake files and scripts; this test file is left out, since its
// fixture cites a missing file on purpose.
std::vector<fs::path> source_files(const fs::path& root) {
    const std::set<std::string> extensions = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".cmake", ".sh", ".py", ".txt"};
    std::vector<fs::path> files = {root / "CMakeLists.txt"};
    for (const char* folder : {"grader", "labs", "solutions", "scripts", "cmake"}) {
        if (!fs::exists(root / folder)) continue;  // a student edition has no solutions/
        for (auto it = fs::recursive_directory_iterator(root / folder); it != fs::recursive_directory_iterator(); ++it) {
            std::string name = it->path().filename().string();
            if (it->is_directory() && (name.rfind("build", 0) == 0 || name[0] == '.')) {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file() && extensions.count(it->path().extension().string()) &&
                name != "test_lessons.cpp")
                files.push_back(it->path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

// `check` run on every one of `files` finds nothing; a failure lists all it found.
template <class Check>
void check_no_problems(const std::vector<fs::path>& files, Check&& check) {
    std::vector<std::string> problems;
    for (const auto& file : files) {
        auto found = check(file);
        problems.insert(problems.end(), found.begin(), found.end());
    }
    INFO(joined(problems));
    CHECK(problems.empty());
}

}  // namespace

TEST_CASE("every link and every repository path in the course's documents exists", "[lessons]") {
    const fs::path root = roofline_test::repo_root();
    Checker checker(root);
    auto documents = course_documents(root);
    REQUIRE(documents.size() >= 10);  // 6 lessons, the bank, 6 lab READMEs, README.md, results/README.md
    check_no_problems(documents, [&](const fs::path& document) { return checker.check(document); });
}

// scripts/student_edition.sh leaves solutions/, instructor/ and some scripts/ out; a link in
// what it keeps must not point at them (a named path may: the README says they are left out).
TEST_CASE("the student edition links only to files it holds", "[lessons][edition]") {
    const fs::path root = roofline_test::repo_root();
    TempDir dir;
    const fs::path edition = dir / "edition";
    auto command = roofline_test::shell_quote((root / "scripts" / "student_edition.sh").string()) + " " +
                   roofline_test::shell_quote(edition.string()) + " > /dev/null";
    REQUIRE(std::system(command.c_str()) == 0);
    REQUIRE(fs::exists(edition / "EDITION.md"));
    REQUIRE_FALSE(fs::exists(edition / "solutions"));
    Checker checker(edition);
    REQUIRE(checker.student_edition);
    auto documents = course_documents(edition);
    REQUIRE(documents.size() >= 10);
    std::vector<std::string> problems;
    for (const auto& document : documents) {
        int number = 0;
        bool in_code = false;
        const std::string shown = fs::relative(document, edition).generic_string();
        for (const auto& line : lines_of(document)) {
            ++number;
            if (is_fence(line)) {
                in_code = !in_code;
                continue;
            }
            if (!in_code) checker.check_links(line, document, shown + ":" + std::to_string(number) + ": ", problems);
        }
    }
    INFO(joined(problems));
    CHECK(problems.empty());
    // and the check can fail: a link into the solutions the edition does not hold
    write_file(edition / "lessons" / "planted.md", "[the answer](../solutions/01-memory-roof/kernels/01_copy_naive.cu)\n");
    std::vector<std::string> planted;
    checker.check_links("[the answer](../solutions/01-memory-roof/kernels/01_copy_naive.cu)",
                        edition / "lessons" / "planted.md", "lessons/planted.md:1: ", planted);
    REQUIRE(planted.size() == 1);
    CHECK(roofline_test::contains(planted[0], "lessons/planted.md:1: links to ../solutions/"));
}

TEST_CASE("the document check names file:line for a broken link, anchor, path and citation", "[lessons]") {
    TempDir dir;
    const fs::path root = dir.path();
    write_file(root / "lessons" / "target.md", "# Title\n\n## Measured on the H200 (2026-11-29)\n");
    write_file(root / "labs" / "x" / "kernels" / "01_real.cu", "// exists\n");
    write_file(root / "lessons" / "a.md",
               "[fine](target.md) and [gone](missing.md)\n"                                   // 1: missing link
               "`labs/x/kernels/01_real.cu` and labs/x/kernels/02_gone.cu.\n"                 // 2: missing path
               "[ok](target.md#measured-on-the-h200-2026-11-29), [bad](target.md#measured)\n"  // 3: missing anchor
               "`labs/NN-name/kernels/*.cu`, [web](https://example.com), [self](#title-here)\n"  // 4: all fine
               "as PLANNING.md says, and target.md\n"                                           // 5: bare citation
               "```sh\n"
               "nvcc -c grader/problems/none.cu [not](a-link.md)\n"                           // 7: path in code
               "```\n"
               "# Title here\n");
    Checker checker(root);
    auto problems = checker.check(root / "lessons" / "a.md");
    INFO(joined(problems));
    REQUIRE(problems.size() == 5);
    CHECK(roofline_test::contains(problems[0], "lessons/a.md:1: links to missing.md"));
    CHECK(roofline_test::contains(problems[1], "lessons/a.md:2: names labs/x/kernels/02_gone.cu,"));
    CHECK(roofline_test::contains(problems[2], "lessons/a.md:3: links to target.md#measured,"));
    CHECK(roofline_test::contains(problems[3], "lessons/a.md:5: cites PLANNING.md"));
    CHECK(roofline_test::contains(problems[4], "lessons/a.md:7: names grader/problems/none.cu"));
}

TEST_CASE("no comment in the source tree cites a Markdown or code file the repository lacks", "[lessons]") {
    const fs::path root = roofline_test::repo_root();
    Checker checker(root);
    auto files = source_files(root);
    REQUIRE(files.size() >= 100);
    check_no_problems(files, [&](const fs::path& file) { return checker.check_source(file); });
}

TEST_CASE("the source check names file:line for a citation of a missing Markdown file", "[lessons]") {
    TempDir dir;
    const fs::path root = dir.path();
    write_file(root / "grader" / "README.md", "# The grader\n");
    write_file(root / "grader" / "lib" / "score.hpp",
               "// Points (grader/README.md, step 8).\n"                  // 1: a file that exists
               "// As PLANNING.md says.\n"                                // 2: one that does not
               "write(out / \"summary.md\");  // writes its summary\n"  // 3: code, not a citation
               "x = 1;  // see NOTES.md\n");                             // 4: a comment after code
    Checker checker(root);
    auto files = source_files(root);
    REQUIRE(std::count(files.begin(), files.end(), root / "grader" / "lib" / "score.hpp") == 1);
    auto problems = checker.check_source(root / "grader" / "lib" / "score.hpp");
    INFO(joined(problems));
    REQUIRE(problems.size() == 2);
    CHECK(roofline_test::contains(problems[0], "grader/lib/score.hpp:2: cites PLANNING.md"));
    CHECK(roofline_test::contains(problems[0], "grader/README.md"));
    CHECK(roofline_test::contains(problems[1], "grader/lib/score.hpp:4: cites NOTES.md"));
    write_file(root / "cmake" / "x.cmake", "set(a \"b#PLANNING.md\")  # per PLANNING.md\n");
    auto in_cmake = checker.check_source(root / "cmake" / "x.cmake");
    REQUIRE(in_cmake.size() == 1);
    CHECK(roofline_test::contains(in_cmake[0], "cmake/x.cmake:1: cites PLANNING.md"));
}

TEST_CASE("the source check names file:line for a code file a comment cites that the repository lacks",
          "[lessons]") {
    TempDir dir;
    const fs::path root = dir.path();
    write_file(root / "grader" / "include" / "roofline" / "ptx" / "mma_sync.cuh", "#pragma once\n");
    write_file(root / "grader" / "lib" / "svg_canvas.hpp", "#pragma once\n");
    write_file(root / "labs" / "02-gemm" / "kernels" / "08_tensor_core.cu",
               "// the layout in roofline/ptx/mma_sync.cuh and svg_canvas.hpp\n"      // 1: both exist
               "// the layout in gemm/mma_sync.cuh\n"                             // 2: no such folder
               "// sized by svg_text.hpp, as x.cuh says\n"                       // 3: two missing files
               "// problems/NAME/model.hpp, problems/fusion/*_problem.cu, <cuda_runtime.h>\n"  // 4: patterns
               "#include \"planted_missing.cuh\"  // code, not a comment\n"      // 5: not a comment
               "// the old kernel (old_kernel.cuh, removed since; in the history at commit\n"  // 6: the next
               "// 2f832d4)\n"                                                                 // line says where
               "// the dropped probe (dropped_probe.cuh)\n");                    // 8: no commit named
    write_file(root / "scripts" / "make.sh", "cat > x.cu <<'EOF'\n#include <dlfcn.h>\nEOF\n# runs gone.py\n");
    Checker checker(root);
    auto problems = checker.check_source(root / "labs" / "02-gemm" / "kernels" / "08_tensor_core.cu");
    INFO(joined(problems));
    REQUIRE(problems.size() == 4);
    CHECK(roofline_test::contains(problems[0], "labs/02-gemm/kernels/08_tensor_core.cu:2: names gemm/mma_sync.cuh,"));
    CHECK(roofline_test::contains(problems[0], "roofline/ptx/mma_sync.cuh"));  // what to do
    CHECK(roofline_test::contains(problems[1], "08_tensor_core.cu:3: names svg_text.hpp,"));
    CHECK(roofline_test::contains(problems[2], "08_tensor_core.cu:3: names x.cuh,"));
    CHECK(roofline_test::contains(problems[3], "08_tensor_core.cu:8: names dropped_probe.cuh,"));
    auto in_script = checker.check_source(root / "scripts" / "make.sh");
    INFO(joined(in_script));
    REQUIRE(in_script.size() == 1);
    CHECK(roofline_test::contains(in_script[0], "scripts/make.sh:4: names gone.py,"));
}

TEST_CASE("the document check lets a student edition name the solutions it leaves out", "[lessons]") {
    TempDir dir;
    const fs::path root = dir.path();
    write_file(root / "lessons" / "a.md", "see `solutions/01-memory-roof/kernels/01_copy_naive.cu`\n");
    CHECK(Checker(root).check(root / "lessons" / "a.md").size() == 1);  // a full checkout must hold it
    write_file(root / "EDITION.md", "# Student edition\n");
    CHECK(Checker(root).check(root / "lessons" / "a.md").empty());
}

// ------------------------------------------------------------ development-log language

namespace {

// Phrases that belong in a log of how the course was built, not in what a student reads:
// "runs 14 and 15", "device run 4", "run 33", "(planned)". A command (`roofline run 03-gemm/...`)
// and plain English ("runs 400 small kernels") are not.
std::vector<std::string> development_log_phrases(const std::string& line) {
    static const std::regex patterns[] = {
        std::regex(R"(device runs? \d+)", std::regex::icase),
        std::regex(R"(\bruns \d+\s*(?:and|-|–|to)\s*\d+)", std::regex::icase),
        std::regex(R"(\brun \d+\b)", std::regex::icase),
        std::regex(R"(\(planned\))", std::regex::icase),
    };
    std::vector<std::string> found;
    for (const auto& pattern : patterns) {
        for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern); it != std::sregex_iterator(); ++it) {
            auto at = std::size_t(it->position());
            auto after = at + std::size_t(it->length());
            bool command = at >= 9 && line.compare(at - 9, 9, "roofline ") == 0;
            bool device = at >= 7 && line.compare(at - 7, 7, "device ") == 0;  // found whole by the first pattern
            bool path = after < line.size() && (line[after] == '-' || line[after] == '/');
            if (it->str().rfind("run ", 0) == 0 || it->str().rfind("Run ", 0) == 0) {
                if (command || path || device) continue;
            }
            found.push_back(it->str());
        }
    }
    return found;
}

}  // namespace

TEST_CASE("the development-log check finds run numbers and plans, not commands or plain English", "[lessons]") {
    CHECK(development_log_phrases("as runs 14 and 15 showed") == std::vector<std::string>{"runs 14 and 15"});
    CHECK(development_log_phrases("measured in device run 4") == std::vector<std::string>{"device run 4"});
    CHECK(development_log_phrases("(runs 33-35)").size() == 1);
    CHECK(development_log_phrases("what run 33 showed").size() == 1);
    CHECK(development_log_phrases("a second rung (planned)").size() == 1);
    CHECK(development_log_phrases("`roofline run 03-gemm/r1_naive`, then grade").empty());
    CHECK(development_log_phrases("build/roofline run 06-async/row_sum_tma_ring").empty());
    CHECK(development_log_phrases("A model runs 400 small kernels per step").empty());
    CHECK(development_log_phrases("results/2026-11-29-h200-run14-lab04.txt").empty());
}

TEST_CASE("no lesson or lab README carries development-log language", "[lessons]") {
    const fs::path root = roofline_test::repo_root();
    std::vector<fs::path> documents;
    for (const auto& entry : fs::directory_iterator(root / "lessons")) {
        if (entry.path().extension() == ".md") documents.push_back(entry.path());
    }
    for (const auto& entry : fs::directory_iterator(root / "labs")) {
        if (fs::exists(entry.path() / "README.md")) documents.push_back(entry.path() / "README.md");
    }
    REQUIRE(documents.size() >= 12);
    std::vector<std::string> problems;
    for (const auto& document : documents) {
        auto lines = lines_of(document);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            for (const auto& phrase : development_log_phrases(lines[i])) {
                problems.push_back(fmt::format("{}:{}: '{}' reads like a development log; say what was measured and "
                                               "cite the results/ file instead",
                                               fs::relative(document, root).string(), i + 1, phrase));
            }
        }
    }
    INFO(joined(problems));
    CHECK(problems.empty());
}

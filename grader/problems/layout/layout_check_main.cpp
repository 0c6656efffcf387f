// Lab 09's CPU program (lab-09-layouts-cpu, solution-09-layouts-cpu): the student's
// layout library checked one part at a time, no GPU involved.
//
//   lab-09-layouts-cpu --part compose --result FILE   (FILE "-": stdout)
//   lab-09-layouts-cpu --list                         (the parts, as a JSON array)
//
// The result, one JSON object written to FILE.tmp and renamed to FILE: part, status
// (correct, incorrect, threw), cases, indices, message, first_wrong {case, index,
// coordinate, expected, got}. Exit 0 correct, 1 not, 2 bad arguments. If the student's
// code crashes, the case it was on is the last `roofline-stage:` line on stderr.
#include "layout_check.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace {

char current_case[512] = "before the first case";

// Async-signal-safe: names the case the student's code crashed on, then dies of the signal.
extern "C" void on_crash(int signal) {
    const char head[] = "\nroofline-stage: crashed on ";
    [[maybe_unused]] auto a = ::write(2, head, sizeof head - 1);
    [[maybe_unused]] auto b = ::write(2, current_case, std::strlen(current_case));
    [[maybe_unused]] auto c = ::write(2, "\n", 1);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

int usage(const std::string& why) {
    std::cerr << "lab-09-layouts-cpu: " << why << "\nusage: lab-09-layouts-cpu --part PART --result FILE | --list\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string part, result_file;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--list") {
            std::cout << nlohmann::json(layouts::part_names()).dump() << "\n";
            return 0;
        }
        if ((arg == "--part" || arg == "--result") && i + 1 < argc) {
            (arg == "--part" ? part : result_file) = argv[++i];
            continue;
        }
        return usage("unknown argument '" + arg + "'");
    }
    if (part.empty() || result_file.empty()) return usage("--part and --result are required");
    bool known = false;
    for (const auto& name : layouts::part_names()) known = known || name == part;
    if (!known) return usage("no part '" + part + "'; see --list");

    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL}) std::signal(signal, on_crash);
    std::cerr << "roofline-stage: checking " << part << "\n";
    auto report = layouts::check_part(part, layouts::student_library(), [&](const std::string& text) {
        std::snprintf(current_case, sizeof current_case, "%s: %s", part.c_str(), text.c_str());
    });

    nlohmann::json json{{"part", report.part},     {"status", report.status}, {"cases", report.cases},
                        {"indices", report.indices}, {"message", report.message}};
    if (report.status != "correct") {
        const auto& w = report.first_wrong;
        json["first_wrong"] = {{"case", w.case_text}, {"index", w.index}, {"coordinate", w.coordinate},
                               {"expected", w.expected}, {"got", w.got}};
    }
    if (result_file == "-") {
        std::cout << json.dump(2) << "\n";
    } else {
        auto tmp = result_file + ".tmp";
        std::ofstream(tmp) << json.dump(2) << "\n";
        std::filesystem::rename(tmp, result_file);
    }
    return report.status == "correct" ? 0 : 1;
}

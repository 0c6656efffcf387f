// Lab 05's checker program (roofline-layout-check): the grader's, with none of the
// student's code linked in. It starts the student's runner (lab-05-layouts-cpu --serve,
// layout_runner_main.cpp) as its child, asks it for the student's answers case by case
// (remote_library.hpp), compares them with the definitions (layout_check.cpp) and writes
// the verdict itself. The runner only answers; nothing it says or does can write the
// verdict (it runs with another command line, in the sandbox under `roofline batch`).
//
//   roofline-layout-check --part PART --result FILE [--timeout S] [--sandboxed] -- RUNNER ARGS...
//   roofline-layout-check --list          (the parts, as a JSON array)
//
// RUNNER ARGS: how to start the runner (under batch, bwrap ... -- lab-05-layouts-cpu --serve;
// --sandboxed says so: bwrap hands a signal back as exit 128 + N). --timeout: the whole
// conversation (lab.yaml timeout_s). The runner's stderr goes to FILE.stderr, its stdout
// nowhere.
//
// The result, one JSON object written to FILE.tmp and renamed to FILE: part, status
// (correct, incorrect, threw; crashed, hang, bad_reply: the runner's failure), cases,
// indices, message, first_wrong {case, index, coordinate, expected, got}. Exit 0 correct,
// 1 not, 2 bad arguments, 3 the checker's own failure (no runner could be started, a bug).
#include "layout_check.hpp"
#include "remote_library.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace {

int usage(const std::string& why) {
    std::cerr << "roofline-layout-check: " << why
              << "\nusage: roofline-layout-check --part PART --result FILE [--timeout S] [--sandboxed] -- RUNNER ARGS..."
                 "\n       roofline-layout-check --list\n";
    return 2;
}

void write_result(const std::string& result_file, const nlohmann::json& json) {
    auto text = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (result_file == "-") {
        std::cout << text;
        return;
    }
    auto tmp = result_file + ".tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, result_file);
}

}  // namespace

int main(int argc, char** argv) {
    std::string part, result_file;
    cpu_part::ChildLimits limits;
    std::vector<std::string> runner;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--list") {
            std::cout << nlohmann::json(layouts::part_names()).dump() << "\n";
            return 0;
        }
        if (arg == "--") {
            runner.assign(argv + i + 1, argv + argc);
            break;
        }
        if (arg == "--sandboxed") {
            limits.signal_as_exit_code = true;
            continue;
        }
        if ((arg == "--part" || arg == "--result" || arg == "--timeout") && i + 1 < argc) {
            std::string value = argv[++i];
            if (arg == "--part") part = value;
            else if (arg == "--result") result_file = value;
            else {
                char* end = nullptr;
                limits.timeout_s = std::strtod(value.c_str(), &end);
                if (end == value.c_str() || *end != '\0' || !(limits.timeout_s > 0))
                    return usage("--timeout takes a positive number of seconds, not '" + value + "'");
            }
            continue;
        }
        return usage("unknown argument '" + arg + "'");
    }
    if (part.empty() || result_file.empty()) return usage("--part and --result are required");
    if (runner.empty()) return usage("no runner after --");
    bool known = false;
    for (const auto& name : layouts::part_names()) known = known || name == part;
    if (!known) return usage("no part '" + part + "'; see --list");

    nlohmann::json json{{"part", part}};
    std::string current_case = "its start";
    try {
        cpu_part::QueryChild child(runner, result_file == "-" ? "" : result_file + ".stderr", limits);
        layouts::PartReport report;
        try {
            auto remote = layouts::remote_library(child);  // its hello first
            report = layouts::check_part(part, remote,
                                         [&](const std::string& text) { current_case = text; });
        } catch (const cpu_part::RunnerFailure& failure) {
            // The runner crashed, hung or broke the protocol: the part fails, naming where.
            child.finish();
            json["status"] = failure.outcome;
            json["message"] = failure.message + " (on " + part + ": " + current_case + ")";
            std::string got = failure.outcome == "hang"      ? "no answer in time"
                              : failure.outcome == "bad_reply" ? "a reply that is not an answer"
                                                               : "no answer: the runner ended";
            json["first_wrong"] = {{"case", current_case}, {"index", -1}, {"coordinate", ""},
                                   {"expected", "an answer"}, {"got", got}};
            write_result(result_file, json);
            return 1;
        }
        child.finish();  // nothing of the runner runs past this point
        if (report.status == "threw" && report.message.find("bad_alloc") != std::string::npos) {
            report.message += " (the runner may use " + std::to_string(limits.memory_bytes >> 20) +
                              " MiB of memory: does your code allocate without bound?)";
        }
        json.update({{"status", report.status},
                     {"cases", report.cases},
                     {"indices", report.indices},
                     {"message", report.message}});
        if (report.status != "correct") {
            const auto& w = report.first_wrong;
            json["first_wrong"] = {{"case", w.case_text}, {"index", w.index}, {"coordinate", w.coordinate},
                                   {"expected", w.expected}, {"got", w.got}};
        }
        write_result(result_file, json);
        return report.status == "correct" ? 0 : 1;
    } catch (const std::exception& e) {
        // The checker's own failure (the runner would not start, a mistake of the checker's).
        json["status"] = "error";
        json["message"] = std::string("the checker failed: ") + e.what();
        write_result(result_file, json);
        return 3;
    }
}

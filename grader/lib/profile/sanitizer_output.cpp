#include "sanitizer_output.hpp"

#include <regex>
#include <sstream>

namespace roofline {

namespace {

const std::string kPrefix = "========= ";

// Lines of the report that open no finding.
bool is_framing(const std::string& body) {
    for (const char* word : {"COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY", "RACECHECK SUMMARY",
                             "Target application returned", "Saved host backtrace"}) {
        if (body.rfind(word, 0) == 0) return true;
    }
    return false;
}

}  // namespace

bool is_sanitizer_tool(const std::string& tool) {
    return tool == "memcheck" || tool == "racecheck" || tool == "synccheck" || tool == "initcheck";
}

SanitizerReport parse_sanitizer_output(const std::string& output) {
    SanitizerReport report;
    static const std::regex location(R"(([A-Za-z0-9_./+\-]+\.(?:cu|cuh|h|hpp|cpp|cc)):(\d+))");
    static const std::regex summary(R"(ERROR SUMMARY: (\d+) error)");
    static const std::regex thread(R"((by thread \([^)]*\) in block \([^)]*\)|Thread \([^)]*\)|Address 0x[0-9a-fA-F]+[^\n]*))");
    std::istringstream in(output);
    std::string line;
    SanitizerFinding* current = nullptr;
    bool in_host_backtrace = false;
    while (std::getline(in, line)) {
        if (line.rfind(kPrefix, 0) != 0) continue;  // the program's own output
        std::string body = line.substr(kPrefix.size());
        std::smatch match;
        if (std::regex_search(body, match, summary)) {
            report.error_count = std::stoll(match[1]);
            current = nullptr;
            continue;
        }
        bool indented = !body.empty() && body[0] == ' ';
        if (!indented) {
            in_host_backtrace = false;
            if (body.empty() || is_framing(body)) {
                current = nullptr;
                continue;
            }
            report.findings.push_back({body, {}, ""});
            current = &report.findings.back();
            if (std::regex_search(body, match, location)) current->locations.push_back(match[1].str() + ":" + match[2].str());
            continue;
        }
        if (!current) continue;
        auto trimmed = body.substr(body.find_first_not_of(' '));
        if (trimmed.rfind("Saved host backtrace", 0) == 0) in_host_backtrace = true;
        if (in_host_backtrace) continue;  // the host's call stack: the launch site, not the fault
        for (auto it = std::sregex_iterator(trimmed.begin(), trimmed.end(), location); it != std::sregex_iterator(); ++it) {
            auto where = (*it)[1].str() + ":" + (*it)[2].str();
            bool seen = false;
            for (const auto& l : current->locations) seen = seen || l == where;
            if (!seen) current->locations.push_back(where);
        }
        if (current->detail.empty() && std::regex_search(trimmed, match, thread)) current->detail = match[1];
    }
    return report;
}

std::string location_in(const SanitizerFinding& finding, const std::string& kernel_file) {
    auto name = kernel_file.substr(kernel_file.find_last_of('/') + 1);
    for (const auto& l : finding.locations) {
        auto file = l.substr(0, l.rfind(':'));
        if (file.size() >= name.size() && file.compare(file.size() - name.size(), name.size(), name) == 0) return l;
    }
    return finding.locations.empty() ? "" : finding.locations.front();
}

}  // namespace roofline

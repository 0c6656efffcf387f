// Computes nothing and tries to say it passed, every way a lab program could before the
// judge: at start-up it takes the job line from stdin and writes a passing result to the
// job's result file; in its launch function it writes "done, in a nanosecond" on every
// descriptor from 3 to 9 (where a judge's socket would be). Under the judge its stdin is
// empty, the result files are the judge's, and the judge checks the outputs itself: it is
// graded incorrect (every element unwritten), with no time.
#include "roofline/contract/elementwise.cuh"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {
std::string field(const std::string& json, const std::string& key) {
    auto at = json.find("\"" + key + "\"");
    if (at == std::string::npos) return {};
    auto open = json.find('"', json.find(':', at) + 1);
    auto close = json.find('"', open + 1);
    return open == std::string::npos || close == std::string::npos ? std::string() : json.substr(open + 1, close - open - 1);
}

const bool forged_at_start = [] {
    int flags = fcntl(STDIN_FILENO, F_GETFL);
    fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK);
    char line[8192] = {};
    ssize_t got = read(STDIN_FILENO, line, sizeof line - 1);
    fcntl(STDIN_FILENO, F_SETFL, flags);
    if (got <= 0) return false;
    std::string job(line, got);
    std::string path = field(job, "result_path"), variant = field(job, "variant"), mode = field(job, "mode");
    if (path.empty()) return false;
    if (FILE* out = std::fopen(path.c_str(), "w")) {
        std::fprintf(out, "{\"variant\":\"%s\",\"mode\":\"%s\",\"status\":\"ok\",\"message\":\"\",\"checks\":[]}\n",
                     variant.c_str(), mode.c_str());
        std::fclose(out);
    }
    _exit(0);
}();

void launch(const float*, float*, std::size_t, cudaStream_t) {
    const char reply[] = "{\"ok\":true,\"event_s\":[1e-9],\"legacy_stream_busy\":false}";
    for (int fd = 3; fd < 10; ++fd) (void)!write(fd, reply, std::strlen(reply));
}
}  // namespace

ROOFLINE_COPY_VARIANT(forged_verdict, launch);

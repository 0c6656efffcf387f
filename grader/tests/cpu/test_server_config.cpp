// Module 10's decode server's configurations (labs/10-production/server/server_config.*): every
// incident configuration reads, and a bad one is refused naming the file, the line and the fix.
#include "test_support.hpp"

#include "server_config.hpp"

#include <stdexcept>

using namespace roofline_test;

namespace {

std::string refusal_of(const fs::path& file) {
    try {
        server::read_config(file.string());
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("every decode-server configuration in incidents/ reads, and they differ from the baseline",
          "[server_config]") {
    auto folder = repo_root() / "labs" / "10-production" / "server" / "incidents";
    auto baseline = server::read_config((folder / "baseline.yaml").string());
    CHECK(baseline.batch == 64);
    CHECK(baseline.context == 4096);
    CHECK(baseline.uses_graph());
    int incidents = 0;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().extension() != ".yaml") continue;
        INFO(entry.path().string());
        auto c = server::read_config(entry.path().string());
        CHECK(c.vocab >= 2);
        CHECK(c.padded_vocab() >= c.vocab);
        if (entry.path().filename() == "baseline.yaml") continue;
        ++incidents;
        // An incident that is the baseline under another name would teach nothing.
        bool differs = c.batch != baseline.batch || c.context != baseline.context || c.vocab != baseline.vocab ||
                       c.pad_vocab_to != baseline.pad_vocab_to || c.uses_graph() != baseline.uses_graph();
        CHECK(differs);
    }
    CHECK(incidents == 4);  // three regressions and a control
}

TEST_CASE("a bad decode-server configuration is refused with its file and line", "[server_config]") {
    TempDir dir;
    auto file = dir / "server.yaml";
    write_file(file, "batch: 64\ncontext: 4096\nbogus: 1\n");
    auto why = refusal_of(file);
    check_mentions(why, {"server.yaml:3", "unknown key `bogus`"});
    write_file(file, "batch: 65\n");
    check_mentions(refusal_of(file), {"server.yaml:1", "from 1 to 64"});
    write_file(file, "batch: 8\ncontext: lots\n");
    check_mentions(refusal_of(file), {"server.yaml:2", "whole number"});
    write_file(file, "graph_batch_sizes: 16\n");
    check_mentions(refusal_of(file), {"server.yaml:1", "must be a list"});
    write_file(file, "attention: fast\n");
    check_mentions(refusal_of(file), {"server.yaml:1", "plain or student"});
    check_mentions(refusal_of(dir / "missing.yaml"), {"missing.yaml", "cannot be read"});
    write_file(file, "batch: 16\npad_vocab_to: 64\nvocab: 128258\ngraph_batch_sizes: [8, 16]\n");
    auto fine = server::read_config(file.string());
    CHECK(fine.padded_vocab() == 128320);
    CHECK(fine.uses_graph());
}

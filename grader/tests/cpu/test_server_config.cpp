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

TEST_CASE("the instructor's fixed incidents change only what the lab's rules let a fix change", "[server_config]") {
    // The rules (labs/10-production/README.md, "The incidents"): a fix keeps the traffic (batch,
    // context, vocabulary, seed) and changes the server's configuration: the KV cache's element,
    // the captured graphs, the LM head's padding, the fused small-batch step.
    auto incidents = repo_root() / "labs" / "10-production" / "server" / "incidents";
    auto fixes = repo_root() / "instructor" / "incidents" / "10-production-fixes";
    int fixed = 0;
    for (const char* name : {"incident-a", "incident-b", "incident-d"}) {
        INFO(name);
        auto before = server::read_config((incidents / (std::string(name) + ".yaml")).string());
        auto after = server::read_config((fixes / (std::string(name) + "-fixed.yaml")).string());
        CHECK(after.batch == before.batch);
        CHECK(after.context == before.context);
        CHECK(after.vocab == before.vocab);
        CHECK(after.seed == before.seed);
        CHECK(after.attention == before.attention);
        bool changed = after.kv_cache != before.kv_cache || after.uses_graph() != before.uses_graph() ||
                       after.padded_vocab() != before.padded_vocab() || after.fused() != before.fused();
        CHECK(changed);
        ++fixed;
    }
    CHECK(fixed == 3);  // incident C is the healthy control: nothing to fix
    auto a = server::read_config((fixes / "incident-a-fixed.yaml").string());
    CHECK(a.fp8_kv());
    auto b = server::read_config((fixes / "incident-b-fixed.yaml").string());
    CHECK(b.uses_graph());
    auto d = server::read_config((fixes / "incident-d-fixed.yaml").string());
    CHECK(d.padded_vocab() % 8 == 0);
}

TEST_CASE("the decode server's kv_cache and fused_max_batch keys", "[server_config]") {
    TempDir dir;
    auto file = dir / "server.yaml";
    write_file(file, "batch: 4\nkv_cache: int4\n");
    check_mentions(refusal_of(file), {"server.yaml:2", "bf16 or fp8"});
    write_file(file, "batch: 4\nfused_max_batch: 9\n");
    check_mentions(refusal_of(file), {"server.yaml:2", "from 0 to 8"});
    write_file(file, "batch: 4\nkv_cache: fp8\nattention: student\n");
    check_mentions(refusal_of(file), {"server.yaml", "needs attention: plain"});
    write_file(file, "batch: 4\nkv_cache: fp8\nfused_max_batch: 4\n");
    auto c = server::read_config(file.string());
    CHECK(c.fp8_kv());
    CHECK(c.fused());
    c.batch = 5;
    CHECK_FALSE(c.fused());
}

TEST_CASE("the decode server's overlap_launches key", "[server_config]") {
    TempDir dir;
    auto file = dir / "server.yaml";
    write_file(file, "batch: 1\nfused_max_batch: 4\noverlap_launches: yes please\n");
    check_mentions(refusal_of(file), {"server.yaml:3", "true or false"});
    write_file(file, "batch: 1\nfused_max_batch: 4\noverlap_launches: true\n");
    CHECK(server::read_config(file.string()).overlap_launches);
    write_file(file, "batch: 1\n");
    CHECK_FALSE(server::read_config(file.string()).overlap_launches);
    write_file(file, "batch: 1\noverlap_launches: true\n");
    check_mentions(refusal_of(file), {"server.yaml", "needs the fused step"});
}

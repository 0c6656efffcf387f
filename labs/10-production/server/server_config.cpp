#include "server_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace server {

namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Mark& mark, const std::string& what) {
    std::string where = file;
    if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1);
    throw std::runtime_error(where + ": " + what);
}

long long whole_number(const std::string& file, const std::string& key, const YAML::Node& node, long long low,
                       long long high) {
    long long value = 0;
    try {
        value = node.as<long long>();
    } catch (const YAML::Exception&) {
        fail(file, node.Mark(), "`" + key + "` must be a whole number from " + std::to_string(low) + " to " +
                                    std::to_string(high) + ", not '" + (node.IsScalar() ? node.Scalar() : "a list or map") + "'");
    }
    if (value < low || value > high)
        fail(file, node.Mark(), "`" + key + "` is " + std::to_string(value) + "; give a value from " + std::to_string(low) +
                                    " to " + std::to_string(high));
    return value;
}

constexpr int kMaxBatch = 64;
constexpr int kMaxContext = 32768;
constexpr int kMaxFusedBatch = 8;  // skinny_gemv.cu's widest instantiation

}  // namespace

bool ServerConfig::uses_graph() const {
    return std::find(graph_batch_sizes.begin(), graph_batch_sizes.end(), batch) != graph_batch_sizes.end();
}

void check_config(const ServerConfig& c) {
    // Read from the file, or given on the command line over it (--batch, --context, ...).
    YAML::Mark none = YAML::Mark::null_mark();
    if (c.batch < 1 || c.batch > kMaxBatch)
        fail(c.file, none, "batch " + std::to_string(c.batch) + " (from the file or --batch) is outside 1 to 64");
    if (c.context < 0 || c.context > kMaxContext)
        fail(c.file, none, "context " + std::to_string(c.context) + " (from the file or --context) is outside 0 to 32768");
    if (c.steps < 1) fail(c.file, none, "steps must be at least 1");
    if (c.attention != "plain" && c.attention != "student")
        fail(c.file, none, "attention '" + c.attention + "' is not one of: plain, student");
    if (c.kv_cache != "bf16" && c.kv_cache != "fp8")
        fail(c.file, none, "kv_cache '" + c.kv_cache + "' is not one of: bf16, fp8");
    // The lab's kernel (the student's, or the solution's) reads a bf16 cache: the contract's layout.
    if (c.kv_cache == "fp8" && c.attention == "student")
        fail(c.file, none, "kv_cache: fp8 needs attention: plain (the lab's decode attention reads a bf16 cache)");
    // The overlapped launches are the fused step's: without it the key would do nothing, silently.
    if (c.overlap_launches && c.fused_max_batch == 0)
        fail(c.file, none, "overlap_launches: true needs the fused step (fused_max_batch above 0), whose kernels it launches");
}

ServerConfig read_config(const std::string& file) {
    YAML::Node root;
    try {
        root = YAML::LoadFile(file);
    } catch (const YAML::BadFile&) {
        throw std::runtime_error(file + ": cannot be read; give the path of a server configuration (incidents/*.yaml)");
    } catch (const YAML::ParserException& e) {
        fail(file, e.mark, "not valid YAML: " + e.msg);
    }
    if (!root.IsMap()) fail(file, root.Mark(), "a server configuration is a map of keys (batch: 64, context: 4096, ...)");
    ServerConfig c;
    c.file = file;
    const std::set<std::string> known{"batch", "context", "steps", "warmup", "seed", "vocab", "pad_vocab_to",
                                      "graph_batch_sizes", "attention", "kv_cache", "fused_max_batch",
                                      "overlap_launches"};
    for (const auto& item : root) {
        auto key = item.first.as<std::string>();
        const auto& value = item.second;
        if (!known.count(key))
            fail(file, item.first.Mark(),
                 "unknown key `" + key + "`; the keys are batch, context, steps, warmup, seed, vocab, pad_vocab_to, "
                                         "graph_batch_sizes, attention, kv_cache, fused_max_batch, overlap_launches");
        if (key == "batch") c.batch = int(whole_number(file, key, value, 1, kMaxBatch));
        else if (key == "context") c.context = int(whole_number(file, key, value, 0, kMaxContext));
        else if (key == "steps") c.steps = int(whole_number(file, key, value, 1, 1000));
        else if (key == "warmup") c.warmup = int(whole_number(file, key, value, 0, 100));
        else if (key == "seed") c.seed = std::uint64_t(whole_number(file, key, value, 0, (1ll << 62)));
        else if (key == "vocab") c.vocab = int(whole_number(file, key, value, 2, 1 << 20));
        else if (key == "pad_vocab_to") c.pad_vocab_to = int(whole_number(file, key, value, 1, 4096));
        else if (key == "graph_batch_sizes") {
            if (!value.IsSequence()) fail(file, value.Mark(), "`graph_batch_sizes` must be a list, e.g. [16, 32, 64]");
            for (const auto& size : value) c.graph_batch_sizes.push_back(int(whole_number(file, key, size, 1, kMaxBatch)));
        } else if (key == "kv_cache") {
            c.kv_cache = value.IsScalar() ? value.Scalar() : "";
            if (c.kv_cache != "bf16" && c.kv_cache != "fp8")
                fail(file, value.Mark(), "`kv_cache` is '" + c.kv_cache + "'; give bf16 or fp8");
        } else if (key == "fused_max_batch") {
            c.fused_max_batch = int(whole_number(file, key, value, 0, kMaxFusedBatch));
        } else if (key == "overlap_launches") {
            const std::string text = value.IsScalar() ? value.Scalar() : "";
            if (text != "true" && text != "false")
                fail(file, value.Mark(), "`overlap_launches` is '" + text + "'; give true or false");
            c.overlap_launches = text == "true";
        } else if (key == "attention") {
            c.attention = value.as<std::string>();
            if (c.attention != "plain" && c.attention != "student")
                fail(file, value.Mark(), "`attention` is '" + c.attention + "'; give plain or student");
        }
    }
    check_config(c);
    return c;
}

}  // namespace server

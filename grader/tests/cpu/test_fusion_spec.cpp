// Lab 03 mixes two operations with different shapes: each variant must get the
// shapes of its own operation, and the report's "bytes saved" comes from the
// unfused model.
#include "catch.hpp"
#include "lab_spec.hpp"

#include <filesystem>

using roofline::load_lab;

namespace {
roofline::LabSpec fusion_lab() {
    return load_lab(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs" / "03-fusion" / "lab.yaml");
}
}  // namespace

TEST_CASE("each fusion variant is verified only on shapes of its operation", "[fusion]") {
    auto lab = fusion_lab();
    for (const auto& v : lab.variants) {
        auto shapes = lab.verify_shapes_for(v);
        CHECK_FALSE(shapes.empty());
        for (const auto& shape : shapes) {
            if (v.op == "chain") {
                CHECK(shape.count("n") == 1);
                CHECK(shape.size() == 1);
            } else {
                CHECK(shape.count("rows") == 1);
                CHECK(shape.count("cols") == 1);
            }
        }
    }
}

TEST_CASE("fused and unfused byte counts", "[fusion]") {
    auto lab = fusion_lab();
    const auto& chain = lab.variant("chain_fused");
    // n = 2^28 bf16: fused reads x and writes y, 4 bytes per element = 1 GiB;
    // unfused: three kernels each reading and writing: 12 bytes per element = 3 GiB.
    auto fused = lab.work(chain, chain.timed);
    auto unfused = lab.unfused_work(chain, chain.timed);
    REQUIRE(unfused.has_value());
    CHECK(fused.bytes == 4.0 * 268435456);
    CHECK(unfused->bytes == 12.0 * 268435456);

    const auto& norm = lab.variant("rmsnorm_fused_4096");
    // rows 65536 x cols 4096 bf16: fused = (2 * 2^28 + 4096) * 2 bytes;
    // unfused = (3 * 2^28 + 4096) * 2 + 2 * 4 * 65536 (a float per row written, then read).
    auto fused_norm = lab.work(norm, norm.timed);
    auto unfused_norm = lab.unfused_work(norm, norm.timed);
    REQUIRE(unfused_norm.has_value());
    CHECK(fused_norm.bytes == (2.0 * 268435456 + 4096) * 2);
    CHECK(unfused_norm->bytes == (3.0 * 268435456 + 4096) * 2 + 8.0 * 65536);
    // The peer copies x: one read and one write of 2^28 bf16.
    CHECK(lab.peer_work(norm, norm.timed).bytes == 2.0 * 2 * 268435456);
}

TEST_CASE("non-fusion labs have no unfused model", "[fusion]") {
    auto lab = load_lab(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "labs" / "01-memory-roof" / "lab.yaml");
    const auto& v = lab.variant("add_fp32");
    CHECK_FALSE(lab.unfused_work(v, v.timed).has_value());
}

// Lab 06 on a GPU: every reference solution, the ladder's rungs included, passes
// `roofline run` on the lab's verify shapes, and among them the shapes that exercise
// each pipeline's edges: for the row sums, more row groups than blocks (a block walks
// two groups, the buffers wrap across them); for the GEMMs, one K slice (fewer slices
// than stages) and five (the ring wraps inside a tile).
#include "catch.hpp"
#include "cli_run.hpp"
#include "device_query.hpp"
#include "lab_spec.hpp"
#include "run_checks.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

TEST_CASE("lab 06: every solution is correct on the verify shapes that wrap its pipeline", "[gpu][async]") {
    const std::filesystem::path source(ROOFLINE_SOURCE_DIR);
    if (!std::filesystem::is_directory(source / "solutions" / "06-async")) {
        WARN("no solutions/06-async (the student edition): skipped");
        return;
    }
    auto device = roofline::first_device(nullptr);
    REQUIRE(device.has_value());
    auto lab = roofline::load_lab(source / "labs" / "06-async" / "lab.yaml");
    for (const auto& variant : lab.variants) {
        if (variant.requires_cc && !(*variant.requires_cc == roofline::ComputeCapability{device->cc_major,
                                                                                          device->cc_minor})) {
            WARN("06-async/" << variant.name << " needs another GPU than " << device->name << ": skipped");
            continue;
        }
        DYNAMIC_SECTION(variant.name) {
            auto run = run_solution("06-async/" + variant.name);
            INFO(run.output);
            const auto& checks = run.checks;
            REQUIRE(checks.size() >= 3);
            std::set<long long> edges;
            for (const auto& check : checks) {
                CHECK(check["report"]["passed"].get<bool>());
                const auto& shape = check["shape"];
                if (variant.op == "row_sum") {
                    edges.insert(shape["rows"].get<long long>());
                } else {
                    edges.insert(shape["k"].get<long long>());
                }
            }
            // Each edge shape of lab.yaml's list that the variant's divisible_by keeps (every
            // dimension of it, as the grader filters them) was verified.
            const auto kept = lab.verify_shapes_for(variant);
            auto admits = [&](const char* dimension, long long value) {
                for (const auto& shape : kept) {
                    if (lab.shape_refusal(variant, shape)) continue;  // divisible_by skips it, with a note
                    auto it = shape.find(dimension);
                    if (it != shape.end() && it->second == value) return true;
                }
                return false;
            };
            if (variant.op == "row_sum") {
                if (admits("rows", 8448)) CHECK(edges.count(8448) == 1);  // 264 row groups: two per block
                if (admits("rows", 32)) CHECK(edges.count(32) == 1);      // one tile
            } else {
                if (admits("k", 64)) CHECK(edges.count(64) == 1);    // one K slice: fewer than the stages
                if (admits("k", 320)) CHECK(edges.count(320) == 1);  // five: the ring wraps inside a tile
            }
        }
    }
}

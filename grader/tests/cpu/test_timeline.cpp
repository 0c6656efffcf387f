// `roofline timeline` without a GPU: the gap arithmetic on a list of kernel
// records, the parser of the lab program's timeline object (a trace in the
// format --mode timeline writes), kernel names demangled, and the SVG.
#include "test_support.hpp"

#include "timeline.hpp"

using namespace roofline;
using namespace roofline_test;

TEST_CASE("gaps are the idle time between kernels; overlap counts once", "[timeline]") {
    // Host call at 1000 ns; kernels at 3000-5000, 9000-10000, then 9500-12000 overlapping the second.
    std::vector<KernelRecord> records{{"b", 9000, 10000}, {"a", 3000, 5000}, {"c", 9500, 12000}};
    auto t = build_timeline(records, 1000);
    REQUIRE(t.rows.size() == 3);
    CHECK(t.rows[0].name == "a");  // sorted by start
    CHECK(t.rows[0].start_us == Approx(2.0));
    CHECK(t.rows[0].gap_before_us == Approx(2.0));  // launch latency after the host's call
    CHECK(t.rows[1].gap_before_us == Approx(4.0));
    CHECK(t.rows[2].gap_before_us == Approx(0.0));  // starts while b runs
    CHECK(t.rows[2].duration_us == Approx(2.5));
    CHECK(t.step_us == Approx(11.0));
    CHECK(t.busy_us == Approx(2.0 + 3.0));  // 3000-5000 and the union 9000-12000
    CHECK(t.gap_us == Approx(6.0));
    CHECK(t.gap_share() == Approx(6.0 / 11.0));
}

TEST_CASE("without the host's call the step starts at the first kernel", "[timeline]") {
    auto t = build_timeline({{"k", 100, 200}, {"k", 300, 400}});
    CHECK(t.step_us == Approx(0.3));
    CHECK(t.gap_us == Approx(0.1));
    CHECK(t.rows[0].gap_before_us == 0);
    // A host stamp after the first kernel began is ignored rather than making a negative gap.
    CHECK(build_timeline({{"k", 100, 200}}, 150).step_us == Approx(0.1));
    CHECK(build_timeline({}).gap_share() == 0);
}

TEST_CASE("a fused step has no gaps, a launch loop mostly gaps", "[timeline]") {
    std::vector<KernelRecord> loop;
    for (int i = 0; i < 512; ++i) loop.push_back({"_Z4stepPfi", 5000.0 * i, 5000.0 * i + 1000});
    CHECK(build_timeline(loop).gap_share() > 0.75);
    CHECK(build_timeline({{"_Z5fusedPfi", 0, 400000}}).gap_share() == 0);
}

TEST_CASE("the timeline object the lab program writes is parsed, and bad ones named", "[timeline]") {
    auto trace = nlohmann::json::parse(R"({"watched": true, "began_ns": 1000,
        "kernels": [{"name": "_ZN12_GLOBAL__N_14stepEPfi", "start_ns": 2000, "end_ns": 3000, "stream": 7},
                    {"name": "_ZN12_GLOBAL__N_14stepEPfi", "start_ns": 8000, "end_ns": 9000, "stream": 7}]})")
                     .get<protocol::Timeline>();
    CHECK(trace.kernels[0].stream == 7);
    auto records = timeline_records(trace, "result.json");
    REQUIRE(records.size() == 2);
    CHECK(records[1].start_ns == 8000);
    auto t = build_timeline(records, double(trace.began_ns));
    CHECK(t.rows[0].name == "(anonymous namespace)::step");
    CHECK(t.gap_us == Approx(6.0));

    auto unwatched = input_error_of([] {
        timeline_records(nlohmann::json::parse(R"({"watched": false, "error": "CUPTI_ERROR_NOT_INITIALIZED"})")
                             .get<protocol::Timeline>(),
                         "r.json");
    });
    check_mentions(unwatched, {"r.json", "CUPTI_ERROR_NOT_INITIALIZED"});
    auto backwards = input_error_of([] {
        timeline_records(
            nlohmann::json::parse(R"({"watched": true, "began_ns": 0, "kernels": [{"name": "k", "start_ns": 5, "end_ns": 4}]})")
                .get<protocol::Timeline>(),
            "r.json");
    });
    check_mentions(backwards, {"kernels[0]", "ends before it starts"});
    // A kernel without its times is a malformed answer, named by its path.
    std::string missing;
    try {
        nlohmann::json::parse(R"({"watched": true, "began_ns": 0, "kernels": [{"name": "k"}]})").get<protocol::Timeline>();
    } catch (const protocol::MalformedResult& e) {
        missing = e.what();
    }
    CHECK(missing == "kernels[0].start_ns: missing");
    // An ok answer to a timeline job without its timeline is refused before anything reads it.
    protocol::Result answer;
    answer.status = protocol::JobStatus::ok;
    answer.mode = protocol::JobMode::timeline;
    answer.device = protocol::Device{"NVIDIA H200", 132, 0, "9.0"};
    answer.registration = protocol::Registration{"copy", "fp32", "k.cu"};
    CHECK(protocol::missing_part(answer, protocol::JobMode::timeline) == std::optional<std::string>("timeline"));
}

TEST_CASE("kernel names lose their parameter lists; others pass through", "[timeline]") {
    CHECK(kernel_display_name("_Z6kernelPKfPfi") == "kernel");
    CHECK(kernel_display_name("_Z3addIfEvPKT_S2_PS0_m") == "add<float>");
    CHECK(kernel_display_name("not mangled") == "not mangled");
    CHECK(kernel_display_name("a") == "a");  // a type's mangling, not a kernel's
}

TEST_CASE("the Gantt chart has a bar per kernel, the gaps and the share", "[timeline]") {
    auto t = build_timeline({{"_Z1av", 0, 1000}, {"_Z1bv", 3000, 4000}, {"_Z1av", 5000, 6000}}, 0);
    auto svg = timeline_svg(t, "lab/variant <test>");
    CHECK(contains(svg, "<svg"));
    CHECK(contains(svg, "lab/variant &lt;test&gt;"));  // escaped
    CHECK(contains(svg, "50.0% of the step"));
    std::size_t bars = 0;
    for (auto at = svg.find("<title>#"); at != std::string::npos; at = svg.find("<title>#", at + 1)) ++bars;
    CHECK(bars == 3);
    std::size_t gaps = 0;
    for (auto at = svg.find("<title>idle"); at != std::string::npos; at = svg.find("<title>idle", at + 1)) ++gaps;
    CHECK(gaps == 2);
    auto text = timeline_text(t);
    check_mentions(text, {"3 kernels", "50.0% of the step"});
}

TEST_CASE("cli: timeline refuses a shape without the variant's sizes and an unknown variant", "[timeline][cli]") {
    auto partial = run_cli(course_flags() + " timeline 09-decode/gemv_bf16_8192 --no-build --shape n=17");
    CHECK(partial.exit_code == 2);
    CHECK(contains(partial.err, "--shape 'n=17' must give exactly k, n"));
    auto zero = run_cli(course_flags() + " timeline 09-decode/gemv_bf16_8192 --no-build --shape k=0,n=4");
    CHECK(zero.exit_code == 2);
    CHECK(contains(zero.err, "positive whole sizes"));
    auto unknown = run_cli(course_flags() + " timeline 09-decode/gemv_turbo --no-build");
    CHECK(unknown.exit_code == 2);
    CHECK(contains(unknown.err, "gemv_turbo"));
}

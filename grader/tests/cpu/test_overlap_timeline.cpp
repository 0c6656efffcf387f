// The overlap timeline's CSV (lib/profile/overlap_timeline.cpp), as the probe
// scripts/probes/lab06_overlap_timeline.cu prints it: the synthetic fixture reads
// whole, and each kind of bad row is refused with the file, the line and the fix.
// The figure drawn from it is tested in test_pictures.cpp.
#include "test_support.hpp"

#include "overlap_timeline.hpp"

#include <sstream>
#include <string>

using namespace roofline;
using namespace roofline_test;

namespace {

const char* kGood =
    "# source: SYNTHETIC, for this test\n"
    "block,role,event,tile,k_slice,stage,begin_ns,end_ns\n"
    "0,producer,wait_empty,0,0,0,0.0,0.0\n"
    "0,producer,issue,0,0,0,0.0,30.0\n"
    "0,consumer0,wait_full,0,0,0,5.0,1500.0\n"
    "0,consumer0,mma_issue,0,0,0,1500.0,1540.0\n"
    "0,consumer0,mma_wait,0,0,0,1545.0,2400.0\n"
    "0,consumer0,epilogue,0,-1,-1,2400.0,3600.0\n";

// kGood with line `line` (1-based) replaced.
std::string with_line(int line, const std::string& replacement) {
    std::string text = kGood, out;
    std::istringstream in(text);
    std::string row;
    for (int n = 1; std::getline(in, row); ++n) out += (n == line ? replacement : row) + "\n";
    return out;
}

std::string error_reading(const std::string& text) {
    return input_error_of([&] { read_overlap_timeline(text, "timeline.csv"); });
}

}  // namespace

TEST_CASE("overlap timeline: the synthetic fixture reads whole, by block and role", "[overlap]") {
    const auto file = test_data() / "overlap" / "synthetic_timeline.csv";
    const auto timeline = read_overlap_timeline(read_file(file), file);
    CHECK(contains(timeline.source, "SYNTHETIC"));
    CHECK(timeline.k_slices() == 16);
    for (int block : {0, 66}) {
        INFO("block " << block);
        // Two tiles of 16 slices: the producer waits and issues once per slice.
        CHECK(timeline.of(block, OverlapRole::producer).size() == 2 * 2 * 16);
        // Per tile a consumer waits, issues and waits for its MMAs once per slice, and stores once.
        CHECK(timeline.of(block, OverlapRole::consumer0).size() == 2 * (3 * 16 + 1));
        CHECK(timeline.of(block, OverlapRole::consumer1).size() == 2 * (3 * 16 + 1));
    }
    CHECK(timeline.of(1).empty());
    const auto small = read_overlap_timeline(kGood, "timeline.csv");
    REQUIRE(small.intervals.size() == 6);
    CHECK(small.intervals[5].event == OverlapEvent::epilogue);
    CHECK(small.intervals[5].k_slice == -1);
    CHECK(small.intervals[4].end_ns == Approx(2400.0));
    CHECK(small.source == "SYNTHETIC, for this test");
}

TEST_CASE("overlap timeline: bad rows are refused with the file, the line and the fix", "[overlap]") {
    struct Case {
        std::string text, where, what;
    };
    const Case cases[] = {
        {with_line(1, "# made by hand"), "timeline.csv:1:", "# source"},
        {with_line(2, "block,role,event,tile,k,stage,begin_ns,end_ns"), "timeline.csv:2:", "expected the header"},
        {with_line(3, "0,producer,wait_empty,0,0,0,0.0"), "timeline.csv:3:", "7 fields"},
        {with_line(4, "0,consumer2,issue,0,0,0,0.0,30.0"), "timeline.csv:4:", "unknown role \"consumer2\""},
        {with_line(4, "0,producer,copy,0,0,0,0.0,30.0"), "timeline.csv:4:", "unknown event \"copy\""},
        {with_line(4, "0,producer,mma_issue,0,0,0,0.0,30.0"), "timeline.csv:4:", "not an event of the producer"},
        {with_line(5, "0,consumer0,issue,0,0,0,5.0,1500.0"), "timeline.csv:5:", "not an event of the consumer0"},
        {with_line(5, "0,consumer0,wait_full,0,x,0,5.0,1500.0"), "timeline.csv:5:", "k_slice \"x\""},
        {with_line(5, "0,consumer0,wait_full,0,-1,0,5.0,1500.0"), "timeline.csv:5:", "k_slice \"-1\""},
        {with_line(5, "0,consumer0,wait_full,0,0,0,5.0,nan"), "timeline.csv:5:", "end_ns \"nan\""},
        {with_line(5, "0,consumer0,wait_full,0,0,0,1500.0,5.0"), "timeline.csv:5:", "ends (5.0 ns) before"},
        // One thread's stamps come in program order: the MMA wait may not start inside the MMA issue.
        {with_line(7, "0,consumer0,mma_wait,0,0,0,1520.0,2400.0"), "timeline.csv:7:", "before its interval on line 6"},
        {"# source: x\n", "timeline.csv:1:", "no header line"},
        {"# source: x\nblock,role,event,tile,k_slice,stage,begin_ns,end_ns\n", "timeline.csv:2:", "no rows"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto message = error_reading(c.text);
        check_mentions(message, {c.where, c.what});
    }
    // Another block's or role's rows keep their own order: they may start earlier.
    CHECK_NOTHROW(read_overlap_timeline(std::string(kGood) + "0,consumer1,wait_full,0,0,0,0.0,10.0\n"
                                                             "66,consumer0,wait_full,0,0,0,0.0,10.0\n",
                                        "timeline.csv"));
}

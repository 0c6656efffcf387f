// The watched replay, once more before a refusal (replay_retry.hpp): the decision on
// comparisons written by hand (the GPU tests and a grading on the device make real ones).
#include "test_support.hpp"

#include "replay_retry.hpp"

#include <functional>

using namespace roofline_test;
using roofline::ReplayComparison;
using roofline::ReplayDecision;
using Step = ReplayDecision::Step;

namespace {

// compare_replay's answer for a timed and a watched median: the comparison the grader makes.
std::optional<ReplayComparison> compared(double timed_s, double watched_s) {
    roofline::protocol::Result graded, watched;
    graded.timing.emplace().variant.median_s = timed_s;
    watched.replay = roofline::protocol::Replay{.shape = {{"n", 1}}, .launches = 40, .median_s = watched_s, .launched = {}};
    auto comparison = roofline::compare_replay(graded, watched);
    REQUIRE(comparison.has_value());
    return comparison;
}

}  // namespace

TEST_CASE("replay retry: a first replay within the limit is accepted, never watched again", "[replay_retry]") {
    auto decision = roofline::decide_replay({compared(100e-6, 250e-6)}, "4242 python3 (2048 MiB)");
    CHECK(decision.step == Step::accepted);
    CHECK(decision.note.empty());
    CHECK(decision.message.empty());
    // Nothing to compare (no timing, or no replay): nothing to refuse, nothing to retry.
    CHECK(roofline::decide_replay({std::nullopt}, "").step == Step::accepted);
    CHECK(roofline::decide_replay({}, "").step == Step::accepted);
}

TEST_CASE("replay retry: a first replay too slow is watched once more", "[replay_retry]") {
    auto first = compared(10e-6, 250e-6);
    REQUIRE(first->refused);
    auto decision = roofline::decide_replay({first}, "");
    CHECK(decision.step == Step::watch_again);
}

TEST_CASE("replay retry: a second replay within the limit accepts the timing, with a note", "[replay_retry]") {
    // Another process slowed the first watch: 25x. Alone, the second: 1.2x.
    auto decision = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 12e-6)}, "4242 python3 (2048 MiB)");
    CHECK(decision.step == Step::accepted);
    CHECK(decision.message.empty());
    check_mentions(decision.note, {"250 us", "25.0x", "12 us", "1.2x", "timed 10 us", "within the limit",
                                   "4242 python3 (2048 MiB)"});
    SECTION("the wait before the second watch is said in the note, and in a refusal") {
        roofline::FreeGpuWait waited{true, 0.5, "the grader waited 0.5 s for the other processes to leave the GPU"};
        auto accepted = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 12e-6)}, "4242 python3", waited);
        CHECK(contains(accepted.note, "(the grader waited 0.5 s for the other processes to leave the GPU)"));
        auto refused = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 240e-6)}, "4242 python3", waited);
        CHECK(refused.step == Step::refused);
        CHECK(contains(refused.message, "(the grader waited 0.5 s"));
    }
    SECTION("with no other process seen, the note names none") {
        auto alone = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 12e-6)}, "");
        CHECK(alone.step == Step::accepted);
        CHECK_FALSE(contains(alone.note, "other processes"));
    }
}

// A kernel that does less work when timed than when watched is slow under every watch: the
// retry changes nothing for it.
TEST_CASE("replay retry: two replays too slow are refused, naming both and the other processes", "[replay_retry]") {
    auto decision = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 240e-6)}, "4242 python3 (2048 MiB)");
    CHECK(decision.step == Step::refused);
    CHECK(decision.note.empty());
    check_mentions(decision.message, {"did less work while it was timed", "Watched twice", "250 us", "25.0x",
                                      "240 us", "24.0x", "4242 python3 (2048 MiB)"});
    SECTION("with no other process seen, the refusal names none") {
        auto alone = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 240e-6)}, "");
        CHECK(alone.step == Step::refused);
        CHECK_FALSE(contains(alone.message, "Other processes"));
    }
    SECTION("a second watch with nothing to compare keeps the first refusal") {
        auto unmatched = roofline::decide_replay({compared(10e-6, 250e-6), std::nullopt}, "");
        CHECK(unmatched.step == Step::refused);
        check_mentions(unmatched.message, {"250 us", "no time to compare"});
    }
    SECTION("never a third watch") {
        auto third = roofline::decide_replay({compared(10e-6, 250e-6), compared(10e-6, 240e-6), compared(10e-6, 11e-6)}, "");
        CHECK(third.step == Step::refused);
    }
}

namespace {

// A listing of the grading's GPU: the grader's own lab program, and `others` beside it.
roofline::ComputeAppsListing listing_with(const std::vector<long long>& others) {
    roofline::ComputeAppsListing listing;
    listing.listed.push_back({"GPU-ours", 11, "lab-00-copy", 900});
    listing.own = {11};
    for (auto pid : others) listing.listed.push_back({"GPU-ours", pid, "python3", 2048});
    return listing;
}

// nvidia-smi's listings, one a call: pid 4242 beside the grader for the first `busy` calls, then none.
std::function<std::optional<roofline::ComputeAppsListing>()> busy_for(int busy) {
    return [busy, calls = 0]() mutable -> std::optional<roofline::ComputeAppsListing> {
        return ++calls <= busy ? listing_with({4242}) : listing_with({});
    };
}

}  // namespace

TEST_CASE("replay retry: before the second watch the grader waits, briefly, for the others to leave", "[replay_retry]") {
    std::vector<double> pauses;
    auto pause = [&](double s) { pauses.push_back(s); };
    SECTION("they leave after two polls: free, the wait said") {
        auto wait = roofline::wait_for_free_gpu(busy_for(2), pause, 10, 0.25);
        CHECK(wait.free);
        CHECK(pauses.size() == 2);
        CHECK(wait.waited_s == Approx(0.5));
        CHECK(contains(wait.text, "waited 0.5 s for the other processes to leave"));
    }
    SECTION("they stay: the wait ends at its limit, naming them") {
        auto wait = roofline::wait_for_free_gpu(busy_for(1000), pause, 1.0, 0.25);
        CHECK_FALSE(wait.free);
        CHECK(pauses.size() == 4);
        CHECK(wait.waited_s == Approx(1.0));
        CHECK(contains(wait.text, "waited 1 s for the GPU to be free, and 4242 python3 (2048 MiB) still used it"));
    }
    SECTION("already free: no pause at all") {
        auto wait = roofline::wait_for_free_gpu(busy_for(0), pause);
        CHECK(wait.free);
        CHECK(pauses.empty());
        CHECK(contains(wait.text, "no other process"));
    }
    SECTION("nvidia-smi cannot list: no wait, and said") {
        auto wait = roofline::wait_for_free_gpu([] { return std::optional<roofline::ComputeAppsListing>(); }, pause);
        CHECK_FALSE(wait.free);
        CHECK(pauses.empty());
        CHECK(contains(wait.text, "did not wait"));
    }
}

// One vocabulary for how a grading ends (outcome.hpp): the grade JSON's word, the exit code and
// the batch's word for a submission all come from one table.
#include "outcome.hpp"
#include "exit_code.hpp"
#include "grade_outcome.hpp"
#include "test_support.hpp"

TEST_CASE("every outcome has one name that parses back to it, and an exit code", "[outcome]") {
    using roofline::Outcome;
    int count = 0;
    for (int i = 0; i <= static_cast<int>(Outcome::other_hardware); ++i, ++count) {
        auto outcome = static_cast<Outcome>(i);
        auto name = roofline::outcome_name(outcome);
        INFO(name);
        REQUIRE(roofline::parse_outcome(name) == outcome);
    }
    CHECK(count == 13);
    CHECK_FALSE(roofline::parse_outcome("ok"));  // the lab program's status word, not an outcome
    CHECK(roofline::exit_code_for(Outcome::correct) == roofline::kGradedCorrect);
    CHECK(roofline::exit_code_for(Outcome::incorrect) == roofline::kGradedIncorrect);
    CHECK(roofline::exit_code_for(Outcome::timed_out) == roofline::kCrashedOrTimedOut);
    CHECK(roofline::exit_code_for(Outcome::timing_refused) == roofline::kForbidden);
    CHECK(roofline::exit_code_for(Outcome::no_prediction) == roofline::kNoPrediction);
    CHECK(roofline::exit_code_for(Outcome::other_hardware) == roofline::kNeedsOtherHardware);
}

TEST_CASE("a submission's word for each variant outcome comes from the same table", "[outcome][batch]") {
    using roofline::Outcome;
    namespace batch = roofline::batch;
    CHECK(batch::submission_word(Outcome::correct) == batch::SubmissionOutcome::graded);
    CHECK(batch::submission_word(Outcome::incorrect) == batch::SubmissionOutcome::wrong_answer);
    CHECK(batch::submission_word(Outcome::timing_refused) == batch::SubmissionOutcome::timing_refused);
    CHECK(batch::submission_word(Outcome::forbidden_symbol) == batch::SubmissionOutcome::forbidden_symbol);
    CHECK(batch::submission_word(Outcome::build_failed) == batch::SubmissionOutcome::compile_error);
    CHECK(batch::submission_word(Outcome::other_hardware) == batch::SubmissionOutcome::no_gpu);
    // The grade JSON's word, read by the batch.
    CHECK(batch::variant_outcome({{"outcome", "forbidden_call"}}) == batch::SubmissionOutcome::forbidden_call);
    CHECK(batch::variant_outcome({{"outcome", "a word from a newer grader"}}) == batch::SubmissionOutcome::error);
    CHECK(batch::variant_outcome({{"points", {{"total", 10}}}}) == batch::SubmissionOutcome::error);  // no outcome: not trusted
}

TEST_CASE("the submission outcome table: every word in the enum's order, parsed back, with a meaning", "[outcome][batch]") {
    namespace batch = roofline::batch;
    const auto& rows = batch::submission_outcomes();
    REQUIRE(rows.size() == static_cast<std::size_t>(batch::SubmissionOutcome::unsafe_entry) + 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        INFO(rows[i].name);
        CHECK(static_cast<std::size_t>(rows[i].outcome) == i);
        CHECK(batch::parse_submission_outcome(rows[i].name) == rows[i].outcome);
        CHECK(std::string(rows[i].meaning).size() > 10);
    }
    // Every variant outcome has a submission word (the switch), and every word a line in --help.
    for (int i = 0; i <= static_cast<int>(roofline::Outcome::other_hardware); ++i) {
        auto word = batch::submission_word(static_cast<roofline::Outcome>(i));
        CHECK(batch::parse_submission_outcome(batch::outcome_name(word)) == word);
    }
}

TEST_CASE("roofline batch --help lists every submission outcome, from the table", "[outcome][batch][cli]") {
    auto r = roofline_test::run_cli("batch --help");
    INFO(r.all());
    REQUIRE(r.exit_code == 0);
    for (const auto& row : roofline::batch::submission_outcomes()) {
        INFO(row.name);
        CHECK(roofline_test::contains(r.out, std::string("  ") + row.name + " "));
    }
    for (auto word : {"forbidden_call", "forbidden_symbol", "timing_refused", "unsafe_entry"}) {
        CHECK(roofline_test::contains(r.out, word));
    }
    CHECK(roofline_test::contains(r.out, "--no-sandbox-i-trust-these-submissions"));
}

// Small answers the command line used to get wrong (issue 33, item 11): `hardware ID` as
// a shorthand for `hardware show ID`, and `profile --csv` given a file that is no ncu
// table is bad input (exit 2) naming the file, not a profiler refused (exit 10), even when
// its prose mentions ncu's permission error.
#include "test_support.hpp"

using namespace roofline;
using namespace roofline_test;

TEST_CASE("cli: hardware ID shows the profile, as hardware show ID does; hardware alone lists", "[cli]") {
    auto shorthand = run_cli(repo_flag() + " hardware h200-sxm");
    auto show = run_cli(repo_flag() + " hardware show h200-sxm");
    INFO(shorthand.all());
    CHECK(shorthand.exit_code == 0);
    CHECK(show.exit_code == 0);
    CHECK(shorthand.out == show.out);
    CHECK(contains(shorthand.out, "h200-sxm"));
    auto bare = run_cli(repo_flag() + " hardware");
    CHECK(bare.exit_code == 0);
    CHECK(bare.out == run_cli(repo_flag() + " hardware list").out);
    auto unknown = run_cli(repo_flag() + " hardware no-such-gpu");
    CHECK(unknown.exit_code == 2);
    CHECK(contains(unknown.err, "no-such-gpu"));
}

TEST_CASE("cli: profile --csv of a file that is no ncu table is bad input naming it", "[cli][profile]") {
    TempDir dir;
    auto not_a_table = dir / "notes.csv";
    write_file(not_a_table, "my notes, not a table: last week ncu said ERR_NVGPUCTRPERM and\n"
                            "No kernels were profiled; the README says what to do.\n");
    auto r = run_cli(course_flags() + " profile 01-memory-roof/copy_vectorized_fp32 --log " +
                     shell_quote((dir / "log.yaml").string()) + " --csv " + shell_quote(not_a_table.string()));
    check_one_line_error(r);
    check_mentions(r.err, {"notes.csv", "no ncu table"});
    CHECK_FALSE(contains(r.err, "administrator"));
    // the recorded permission failure (ncu's own ==ERROR== line) is still exit 10
    auto denied = run_cli(course_flags() + " profile 01-memory-roof/copy_vectorized_fp32 --log " +
                          shell_quote((dir / "log.yaml").string()) + " --csv " +
                          shell_quote((test_data() / "ncu" / "permission_denied.txt").string()));
    CHECK(denied.exit_code == 10);
}

// The checker behind lab 05's CPU-graded variants: each part of the student's layout
// library (layout.hpp) is run on many layouts and compared, index by index, with what
// the definitions say; the first index that goes wrong is reported with its case, its
// coordinate, the expected and the returned value. No GPU is involved.
//
// The functions are taken as a LayoutLibrary so that the CPU tests can plant a wrong
// one. The checker program (layout_check_main.cpp, roofline-layout-check) binds one that
// asks the student's runner, another process (remote_library.hpp); the CPU tests also
// bind the solution's functions in process (student_library.cpp).
#pragma once
#include "roofline/contract/layout.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace layouts {

// One call's answers for many inputs: one value per input asked, or fewer and the
// message of what the code threw at the next one.
struct Answers {
    std::vector<long long> values;
    std::optional<std::string> threw;
};

// One call the checker is about to make (LayoutLibrary::plan): the function's name and
// its arguments.
struct Call {
    std::string function;            // evaluate_table, coalesce, compose, complement, logical_divide, swizzle_each, wavefronts
    Layout layout, other;            // the layout (compose: a); the second one (compose: b; logical_divide: the tile)
    long long number = 0;            // complement: the cotarget; wavefronts: the access bytes
    Swizzle swizzle;                 // swizzle_each
    std::vector<long long> numbers;  // swizzle_each: the offsets; wavefronts: the addresses
};

struct LayoutLibrary {
    std::function<long long(const Layout&, long long)> evaluate;
    std::function<Layout(const Layout&)> coalesce;
    std::function<Layout(const Layout&, const Layout&)> compose;
    std::function<Layout(const Layout&, long long)> complement;
    std::function<Layout(const Layout&, const Layout&)> logical_divide;
    std::function<long long(const Swizzle&, long long)> swizzle;
    std::function<int(const std::vector<long long>&, int)> wavefronts;
    // Optional: a whole case in one call, for a library in another process (one request
    // instead of thousands). Unset, the functions above are called once per input.
    std::function<Answers(const Layout&)> evaluate_table;  // evaluate(layout, i) for i = 0 .. size(layout) - 1
    std::function<Answers(const Swizzle&, const std::vector<long long>&)> swizzle_each;  // swizzle(s, offset) for each
    // Optional: told, before a part's first call, every call the part will make, in order
    // (those after a wrong answer are not made). A runner in another process then gets its
    // requests ahead and answers them back to back. Set only with the two above.
    std::function<void(const std::vector<Call>&)> plan;
};

// The functions layout.hpp declares, as the files linked into this program define them.
LayoutLibrary student_library();

// The parts, in the lab's order: evaluate, coalesce, compose, complement, logical_divide,
// swizzle, wavefronts (lab.yaml's `op` of each CPU-graded variant).
const std::vector<std::string>& part_names();

struct FirstWrong {
    std::string case_text;   // "a = (6,2):(8,2), b = (4,3):(3,1)"
    long long index = -1;    // -1: the result as a whole (its size, its modes), not one index
    std::string coordinate;  // the index as a coordinate of the case's domain: "(1,2)"
    std::string expected, got;
};

struct PartReport {
    std::string part;
    std::string status;        // correct, incorrect, threw
    long long cases = 0;       // cases checked (up to and including the first wrong one)
    long long indices = 0;     // indices compared
    std::string message;       // one paragraph: what went wrong and where, or what was checked
    FirstWrong first_wrong;    // for incorrect and threw
};

// Checks one part; an unknown part name throws std::invalid_argument listing the parts.
// `on_case`, if given, is called with each case's text before it runs (the checker
// program keeps it to name the case if the runner crashes or hangs on it). The
// library's exceptions are the student's ("threw"); anything that is not a
// std::exception (a runner's failure, query_child.hpp) passes through.
PartReport check_part(const std::string& part, const LayoutLibrary& library,
                      const std::function<void(const std::string&)>& on_case = {});

}  // namespace layouts

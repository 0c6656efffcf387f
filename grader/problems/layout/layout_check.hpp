// The checker behind lab 09's CPU-graded variants: each part of the student's layout
// library (layout.hpp) is run on many layouts and compared, index by index, with what
// the definitions say; the first index that goes wrong is reported with its case, its
// coordinate, the expected and the returned value. No GPU is involved.
//
// The functions are taken as a LayoutLibrary so that the CPU tests can plant a wrong
// one; the lab's CPU program (layout_check_main.cpp) binds the student's.
#pragma once
#include "roofline/layout.hpp"

#include <functional>
#include <string>
#include <vector>

namespace layouts {

struct LayoutLibrary {
    std::function<long long(const Layout&, long long)> evaluate;
    std::function<Layout(const Layout&)> coalesce;
    std::function<Layout(const Layout&, const Layout&)> compose;
    std::function<Layout(const Layout&, long long)> complement;
    std::function<Layout(const Layout&, const Layout&)> logical_divide;
    std::function<long long(const Swizzle&, long long)> swizzle;
    std::function<int(const std::vector<long long>&, int)> wavefronts;
};

// The functions layout.hpp declares, as the student's files define them.
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
// `on_case`, if given, is called with each case's text before it runs (the CPU program
// keeps it to name the case if the student's code crashes).
PartReport check_part(const std::string& part, const LayoutLibrary& library,
                      const std::function<void(const std::string&)>& on_case = {});

}  // namespace layouts

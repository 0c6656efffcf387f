// Lab 09's layout library as the student's runner answers it, from another process: each
// call of the LayoutLibrary is one request to the runner (layout_runner_main.cpp) and its
// reply, checked for form before the checker compares it. The protocol, one JSON object
// a line each way:
//
//   {"ask": "hello"}                                         {"runner": "layout"}
//   {"ask": "evaluate_table", "layout": L}                   {"values": [v0, v1, ...]}
//   {"ask": "coalesce", "layout": L}                         {"layout": L}
//   {"ask": "compose", "a": L, "b": L}                       {"layout": L}
//   {"ask": "complement", "layout": L, "cotarget": n}        {"layout": L}
//   {"ask": "logical_divide", "layout": L, "tile": L}        {"layout": L}
//   {"ask": "swizzle_each", "swizzle": [bits, base, shift], "offsets": [...]}   {"values": [...]}
//   {"ask": "wavefronts", "addresses": [...], "access_bytes": n}               {"value": n}
//
// L is [[shape, stride], ...]. Where the student's code threw, the reply is {"threw":
// "what()"}, after the values it had (a "values" list shorter than asked). A reply of
// any other form is the runner's failure (RunnerFailure, "bad_reply"), never an answer.
#pragma once
#include "layout_check.hpp"
#include "query_child.hpp"

namespace layouts {

// Asks the runner's hello: throws RunnerFailure unless it answers as lab 09's runner.
void greet_runner(cpu_part::QueryChild& runner);

LayoutLibrary remote_library(cpu_part::QueryChild& runner);

}  // namespace layouts

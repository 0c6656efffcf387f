// The roofline calculator as a page section: the figures `roofline calc`
// computes, live in the browser. The C++ side writes the data (every profile in
// hardware/, its datasheet ceilings, the ceilings measured on this machine
// where `roofline ceilings` saved them, each dtype's bytes, the launch
// overhead); the page's script holds the model's few formulas once, in the same
// order of operations as roofline.cpp, and a browser test checks the two agree.
//
// The page reads its inputs from the URL fragment and writes them back, so a
// setting is a link:  #hw=b200&dtype=fp16&n=512   (square GEMM)
//                     #hw=h200-sxm&dtype=bf16&gemm=1,8192,8192
//                     #hw=l4&dtype=fp32&elementwise=268435456&reads=2&writes=1&flops=1
//                     &ceilings=measured   (where this machine measured that GPU)
// Each figure is an element with id calc-NAME whose data-value attribute holds
// the number exactly (JavaScript's shortest round-trip form).
#pragma once
#include "workspace.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace roofline {

// The calculator's data: {launch_overhead_s, dtypes[{name, bytes}],
// profiles[{id, name, ..., ceilings: {datasheet: {...}, measured?: {...}}}],
// default_profile: the reference H200 where hardware/ has it}.
// A malformed measured-ceilings file is an InputError naming it.
nlohmann::json calculator_data(const Workspace& ws);

// The section: controls, the two bars, the figures' table, the chart, the script.
std::string calculator_section(const nlohmann::json& data);

}  // namespace roofline

// The old name of roofline/contract/fma_chain.hpp, kept so that kernel files written before
// grader/include/roofline/ was split by kind (students' class folders and workspaces) still
// compile. New code includes "roofline/contract/fma_chain.hpp". grader/include/compat/README.md says more.
#pragma once
#include "roofline/contract/fma_chain.hpp"

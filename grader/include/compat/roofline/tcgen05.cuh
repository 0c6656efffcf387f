// The old name of roofline/ptx/tcgen05.cuh, kept so that kernel files written before
// grader/include/roofline/ was split by kind (students' class folders and workspaces) still
// compile. New code includes "roofline/ptx/tcgen05.cuh". grader/include/compat/README.md says more.
#pragma once
#include "roofline/ptx/tcgen05.cuh"

// The old name of roofline/ptx/wgmma.cuh, kept so that kernel files written before
// grader/include/roofline/ was split by kind (students' class folders and workspaces) still
// compile. New code includes "roofline/ptx/wgmma.cuh". grader/include/compat/README.md says more.
#pragma once
#include "roofline/ptx/wgmma.cuh"

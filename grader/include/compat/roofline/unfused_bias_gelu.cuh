// The old name of lab 04's given header labs/04-fusion/given/unfused_bias_gelu.cuh, which lived in
// grader/include/roofline/ until the lab-specific headers moved to their labs; kept so that
// kernel files written before (students' class folders and workspaces) still compile. It
// resolves through the lab's folder, which is on the include path of every kernel file of
// lab 04-fusion. New code includes "given/unfused_bias_gelu.cuh". grader/include/compat/README.md says more.
#pragma once
#include "given/unfused_bias_gelu.cuh"

// The old name of lab 09's given header labs/09-decode/given/decode_layer_steps.cuh, which lived in
// grader/include/roofline/ until the lab-specific headers moved to their labs; kept so that
// kernel files written before (students' class folders and workspaces) still compile. It
// resolves through the lab's folder, which is on the include path of every kernel file of
// lab 09-decode. New code includes "given/decode_layer_steps.cuh". grader/include/compat/README.md says more.
#pragma once
#include "given/decode_layer_steps.cuh"

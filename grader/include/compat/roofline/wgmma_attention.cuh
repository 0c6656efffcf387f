// The old name of lab 08's given header labs/08-attention/given/wgmma_attention.cuh, which lived in
// grader/include/roofline/ until the lab-specific headers moved to their labs; kept so that
// kernel files written before (students' class folders and workspaces) still compile. It
// resolves through the lab's folder, which is on the include path of every kernel file of
// lab 08-attention. New code includes "given/wgmma_attention.cuh". grader/include/compat/README.md says more.
#pragma once
#include "given/wgmma_attention.cuh"

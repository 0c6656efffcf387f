// The open rung's reference design: the guided rung's solution (one kernel, a ring of bulk
// copies of K and V tiles in shared memory, about one wave of splits, the merge in the block
// that arrives last), in ../decode_attention_ring.cuh. The debrief (labs/10-production/debrief/)
// compares it with the other designs the lesson offers.
#include "../decode_attention_ring.cuh"

ROOFLINE_DECODE_ATTENTION_VARIANT(open_decode_attention_b8_ragged, ring::decode_attention);

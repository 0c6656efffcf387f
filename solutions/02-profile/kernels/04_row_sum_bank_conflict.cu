// The kernel is in ../row_sum_padded.cuh, with its design notes; the open rung's reference
// (kernels/07_open_row_sum.cu) is the same design.
#include "../row_sum_padded.cuh"

ROOFLINE_ROW_SUM_VARIANT(row_sum_bank_conflict_bf16, row_sum_bank_conflict);

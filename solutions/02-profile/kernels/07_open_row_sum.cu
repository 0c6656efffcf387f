// The open rung's reference design: defect 4's fix (32 rows a block, one per lane;
// 16-byte loads into a padded fp32 tile, rows 257 words apart; each lane sums its row);
// the kernel is in ../row_sum_padded.cuh.
// The debrief (labs/02-profile/debrief/) compares it with the other designs the lesson offers.
#include "../row_sum_padded.cuh"

ROOFLINE_ROW_SUM_VARIANT(open_row_sum_bf16, row_sum_bank_conflict);

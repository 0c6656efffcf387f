#!/usr/bin/env bash
# Lab 08 rung 2 (fused attention, mma.sync) on a GPU, for the lead's batched run: the same steps
# as rung 3's script, on rung 2's variants, probe and sanitizer shapes.
#   bash scripts/device/attn2.sh BUILD_DIR OUT_DIR
RUNG=2 exec bash "$(dirname "$0")/attn23.sh" "$@"

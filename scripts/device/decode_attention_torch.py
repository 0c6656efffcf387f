# PyTorch's scaled_dot_product_attention on lab 10's decode shapes (one query token per
# sequence, 32 query heads on 8 KV heads of 128, bf16, every sequence at the full context):
# a cross-check of the lab's numbers, never a dependency of the course. Beside each SDPA time,
# a torch copy of the same bytes (half of them copied: reads plus writes) in the same process,
# so that the line reads as the lab's "% of cudaMemcpy". The open rung's ragged batch is not
# timed: SDPA takes one length for every sequence (a mask would add its own bytes).
# Usage: python3 decode_attention_torch.py [OUT_DIR]   (OUT_DIR/torch-sdpa.json gets the figures)
import json
import os
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch not importable: no anchor")
    sys.exit(0)

SHAPES = [(1, 4096), (1, 32768), (16, 4096), (16, 32768), (64, 32768)]
QH, KVH, D = 32, 8, 128
flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")


def median_us(fn, repeats=30):
    times = []
    for _ in range(repeats):
        flush.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return sorted(times)[len(times) // 2]


print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
rows = []
for batch, context in SHAPES:
    g = torch.Generator(device="cuda").manual_seed(0)
    q = (torch.rand(batch, QH, 1, D, device="cuda", generator=g) * 6 - 3).to(torch.bfloat16)
    k = (torch.rand(batch, KVH, context, D, device="cuda", generator=g) * 6 - 3).to(torch.bfloat16)
    v = (torch.rand(batch, KVH, context, D, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    nbytes = 2 * batch * KVH * context * D * 2 + 2 * batch * QH * D * 2 + 4 * batch  # the lab's model.hpp
    try:
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        out = sdpa()
    except TypeError as e:  # torch older than 2.5: no enable_gqa
        print(f"b{batch} ctx {context}: SDPA has no enable_gqa ({e}); skipped")
        continue
    rel = ""
    if batch == 1:  # the same attention in fp32, head group by head group
        kf = k.float().repeat_interleave(QH // KVH, dim=1)
        vf = v.float().repeat_interleave(QH // KVH, dim=1)
        ref = torch.softmax(q.float() @ kf.transpose(-1, -2) / D ** 0.5, dim=-1) @ vf
        rel = f", rel_l2 vs fp32 {((out.float() - ref).norm() / ref.norm()).item():.1e}"
        del kf, vf, ref
    t_sdpa = median_us(sdpa)
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    t_copy = median_us(lambda: dst.copy_(src))
    print(f"b{batch:<2d} ctx {context:5d}: {nbytes / 1e6:8.1f} MB  SDPA {t_sdpa:9.2f} us "
          f"({nbytes / t_sdpa / 1e6:5.3f} TB/s)  copy {t_copy:9.2f} us  SDPA at {100 * t_copy / t_sdpa:5.1f}% of the copy{rel}")
    rows.append({"batch": batch, "context": context, "bytes": nbytes, "sdpa_us": t_sdpa, "copy_us": t_copy,
                 "sdpa_fraction_of_copy": t_copy / t_sdpa})
    del q, k, v, out, src, dst
    torch.cuda.empty_cache()

if len(sys.argv) > 1:
    with open(os.path.join(sys.argv[1], "torch-sdpa.json"), "w") as f:
        json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "shapes": rows}, f, indent=2)

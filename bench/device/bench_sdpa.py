"""torch's scaled_dot_product_attention at the FlashAttention benchmark's shape.

Prints one line per causal setting: the median of 10 timed calls (CUDA events)
after 3 untimed ones, and TFLOP/s counted as 4*b*h*s*s*d (halved when causal).
Arguments: batch heads seq dim (defaults 8 32 4096 128)."""
import sys

import torch
import torch.nn.functional as F

b, h, s, d = (int(x) for x in (sys.argv[1:5] if len(sys.argv) >= 5 else (8, 32, 4096, 128)))
q = torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
k, v = torch.randn_like(q), torch.randn_like(q)
for causal in (False, True):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    ms = sorted(times)[len(times) // 2]
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    print(f"sdpa causal={causal} median {ms:.3f} ms {flops / ms / 1e9:.1f} TFLOP/s")

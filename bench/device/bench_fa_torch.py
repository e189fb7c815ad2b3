"""FlashAttention forward (examples/flash_attention.py) beside torch SDPA, in one
process on the GPU machine: each tile configuration compiled through the Python
user API (tilelang.compile with out_idx), checked against SDPA on the same
random inputs, then timed with the profiler's do_bench (CUDA events, median)
next to SDPA timed the same way. TFLOP/s counted as 4*b*h*s*s*d, halved when
causal.

  PYTHONPATH=build-device/python python3 bench/device/bench_fa_torch.py [BATCH HEADS SEQ DIM]
"""
import os
import sys

import torch
import torch.nn.functional as F

from tilelang_backend import run

run.install()  # `import tilelang` in the example resolves to tilelang_backend
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
import tilelang  # noqa: E402
from flash_attention import flashattn  # noqa: E402

b, h, s, d = (int(x) for x in (sys.argv[1:5] if len(sys.argv) >= 5 else (8, 32, 4096, 128)))
# (block_M, block_N, threads, num_stages): ours, then upstream's tuned one (128, 128, 256, 2)
CONFIGS = [(64, 64, 128, 1), (64, 64, 128, 2), (128, 64, 256, 1), (128, 64, 256, 2), (128, 128, 256, 1),
           (128, 128, 256, 2), (64, 128, 128, 1), (128, 64, 128, 1), (128, 64, 128, 2)]
if os.environ.get("FA_CONFIGS"):  # "bm,bn,threads,stages;..." to run only those
    CONFIGS = [tuple(int(x) for x in c.split(",")) for c in os.environ["FA_CONFIGS"].split(";")]
q = torch.randn(b, h, s, d, device="cuda", dtype=torch.float16)
k, v = torch.randn_like(q), torch.randn_like(q)
for causal in (False, True):
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    kern = None
    for bm, bn, th, st in CONFIGS:
        try:
            kern = tilelang.compile(flashattn(b, h, s, s, d, causal, bm, bn, st, th), out_idx=[3])
            out = kern(q, k, v)
            err = (out.float() - ref.float()).abs().max().item()
            ok = torch.allclose(out, ref, rtol=1e-2, atol=1e-2)
            ms = kern.get_profiler().do_bench(lambda: kern(q, k, v), return_mode="median")
            print(f"ours causal={causal} block {bm}x{bn} threads {th} stages {st}: {ms:.3f} ms "
                  f"{flops / ms / 1e9:.1f} TFLOP/s, max abs err {err:.2e} {'ok' if ok else 'MISMATCH'}", flush=True)
        except Exception as e:  # a configuration that does not compile is reported, the rest run
            print(f"ours causal={causal} block {bm}x{bn} threads {th} stages {st}: failed: {e}", flush=True)
    if kern is not None:
        ms = kern.get_profiler().do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                          return_mode="median")
        print(f"sdpa causal={causal}: {ms:.3f} ms {flops / ms / 1e9:.1f} TFLOP/s", flush=True)

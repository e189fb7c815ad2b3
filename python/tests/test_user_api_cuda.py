"""The user API on the GPU machine, as upstream's users call it: @tilelang.jit and
tilelang.compile with torch CUDA tensors (outputs allocated on the inputs' device),
results against torch, the profiler's do_bench beside torch's own timing. Skipped
where torch with CUDA is missing (every machine but the GPU one)."""

import os
import sys

import tilelang_backend as tb
from tilelang_backend import run

from conftest import gpu_marks, torch

pytestmark = gpu_marks()

HERE = os.path.dirname(os.path.abspath(__file__))
run.install()  # `import tilelang` in gpu_kernels.py resolves to tilelang_backend
sys.path.insert(0, os.path.join(HERE, "user_api"))
import gpu_kernels  # noqa: E402


def test_jit_gemm_on_torch_cuda_tensors():
    # Sizes the tiles do not divide: T.copy's edge clipping on the tensor-core path.
    M, N, K = 300, 200, 136
    k = gpu_kernels.matmul(M, N, K)
    assert k.target.kind == "cuda" and k.out_idx == [2]
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = k(a, b)
    assert c.device.type == "cuda" and c.dtype == torch.float16 and tuple(c.shape) == (M, N)
    torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=1e-2, atol=1e-1)
    assert "mma" in k.get_kernel_source()
    # the same signature is served from the jit's cache
    assert gpu_kernels.matmul(M, N, K) is k


def test_compile_with_out_idx_and_the_current_stream():
    k = tb.compile(gpu_kernels.elementwise_add(77, 130), out_idx=[2])
    a = torch.randn(77, 130, device="cuda")
    b = torch.randn(77, 130, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        c = k(a, b)
    s.synchronize()
    torch.testing.assert_close(c, a + b)


def test_profiler_beside_torch():
    M = N = K = 2048
    k = gpu_kernels.matmul(M, N, K)
    prof = k.get_profiler()
    prof.assert_allclose(lambda A, B: A @ B, atol=1e-1, rtol=1e-2)
    ours = prof.do_bench()
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    theirs = prof.do_bench(lambda: a @ b)
    assert ours > 0 and theirs > 0
    print(f"\ngemm {M}^3 float16: ours {ours:.4f} ms ({2 * M * N * K / ours / 1e9:.1f} TFLOP/s), "
          f"torch {theirs:.4f} ms ({2 * M * N * K / theirs / 1e9:.1f} TFLOP/s)")

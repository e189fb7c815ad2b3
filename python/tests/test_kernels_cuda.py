"""Kernels on the GPU machine with torch CUDA tensors on the current stream. Skipped
where torch with CUDA is missing (every machine but the GPU one)."""

import os

import pytest

import tilelang_backend as tb

from conftest import gpu_marks, torch

pytestmark = gpu_marks()

ROOT = os.environ.get("TLPY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples")


@pytest.fixture(scope="module")
def vector_add():
    return tb.compile(os.path.join(EXAMPLES, "vector_add.py"))


def test_target_is_the_gpu(vector_add):
    assert vector_add.target.kind == "cuda"
    major, minor = torch.cuda.get_device_capability()
    assert vector_add.target.attrs["arch"].startswith(f"sm_{major}{minor}")


def test_vector_add_with_torch_tensors(vector_add):
    for n in (1, 1000, 4096):
        a = torch.randn(n, device="cuda")
        b = torch.randn(n, device="cuda")
        c = torch.empty_like(a)
        vector_add(a, b, c)
        torch.testing.assert_close(c, a + b)


def test_runs_on_torch_current_stream(vector_add):
    n = 1 << 20
    s = torch.cuda.Stream()
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        c = torch.empty_like(a)
        vector_add(a, b, c)  # stream=None: torch's current stream, `s`
        d = c * 2            # ordered after the kernel on `s`
    s.synchronize()
    torch.testing.assert_close(d, (a + b) * 2)


def test_explicit_stream(vector_add):
    a = torch.randn(4096, device="cuda")
    b = torch.randn(4096, device="cuda")
    c = torch.empty_like(a)
    s = torch.cuda.Stream()
    # torch's side streams do not wait for the default one: the inputs' randn must
    # be ordered before the kernel, as for any work handed to another stream.
    s.wait_stream(torch.cuda.current_stream())
    vector_add(a, b, c, stream=s.cuda_stream)
    s.synchronize()
    torch.testing.assert_close(c, a + b)


def test_outputs_allocated_as_torch_tensors_on_the_device():
    kernel = tb.compile(os.path.join(EXAMPLES, "transpose.py"))
    a = torch.randn(70, 45, device="cuda")
    b = kernel(a)
    assert isinstance(b, torch.Tensor) and b.device == a.device and b.shape == (45, 70)
    torch.testing.assert_close(b, a.T.contiguous())


def test_device_mismatch_is_reported(vector_add):
    a = torch.randn(16)
    with pytest.raises(ValueError):
        vector_add(a, a, a)  # CPU tensors for a CUDA kernel: the library refuses

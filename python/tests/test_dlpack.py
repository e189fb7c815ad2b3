"""Tensors from Python through DLPack (and torch's direct path): what arrives in C is
checked by the library, shown here through the reference interpreter."""

import numpy as np
import pytest

import tilelang_backend as tb

COPY2D = '''
import tilelang.language as T
M = T.symbolic("M")
N = T.symbolic("N")

@T.prim_func
def copy2d(A: T.Tensor((M, N), "{dt}"), B: T.Tensor((M, N), "{dt}")):
    with T.Kernel(1, threads=1) as bx:
        for i, j in T.Parallel(M, N):
            B[i, j] = A[i, j]
'''


def copy_module(dt):
    return tb.IRModule.from_script(COPY2D.format(dt=dt))


@pytest.mark.parametrize("dt", ["float32", "float16", "float64", "int8", "int32", "int64", "uint8"])
def test_numpy_dtypes_and_shapes(dt):
    mod = copy_module(dt)
    a = (np.arange(12).reshape(3, 4) % 7).astype(dt)
    b = np.zeros_like(a)
    mod.interpret(None, a, b)
    np.testing.assert_array_equal(a, b)


def test_library_checks_what_arrives():
    mod = copy_module("float32")
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="'B'"):
        mod.interpret(None, a, np.zeros((3, 4), np.float64))
    with pytest.raises(ValueError, match="'B'"):
        mod.interpret(None, a, np.zeros((3, 5), np.float32))
    with pytest.raises(ValueError, match="'A'"):
        mod.interpret(None, np.ones(12, np.float32), np.zeros((3, 4), np.float32))
    # A transposed view is not compact: refused by the library, not copied behind the caller's back.
    with pytest.raises(ValueError, match="'A'"):
        mod.interpret(None, np.ones((4, 3), np.float32).T, np.zeros((3, 4), np.float32))


def test_non_tensors_are_type_errors():
    mod = copy_module("float32")
    with pytest.raises(TypeError, match="__dlpack__"):
        mod.interpret(None, [1.0, 2.0], np.zeros((1, 2), np.float32))

    class Liar:
        def __dlpack__(self, stream=None):
            return "not a capsule"

    with pytest.raises(TypeError, match="did not return a DLPack capsule"):
        mod.interpret(None, Liar(), np.zeros((1, 2), np.float32))


def test_capsules_are_not_consumed():
    # The producer keeps ownership: the array stays usable, and exporting it again works.
    a = np.ones((2, 2), np.float32)
    b = np.zeros((2, 2), np.float32)
    mod = copy_module("float32")
    for _ in range(3):
        mod.interpret(None, a, b)
    assert a.__dlpack__() is not None
    np.testing.assert_array_equal(b, 1)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    mod = copy_module("float32")
    a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    b = torch.zeros(3, 4)
    mod.interpret(None, a, b)
    assert torch.equal(a, b)
    with pytest.raises(ValueError, match="'A'"):
        mod.interpret(None, torch.zeros(4, 3).t(), b)  # not compact
    with pytest.raises(ValueError, match="'B'"):
        mod.interpret(None, a, torch.zeros(3, 4, dtype=torch.float16))
    h = copy_module("float16")
    x = torch.randn(2, 5).half()
    y = torch.zeros(2, 5).half()
    h.interpret(None, x, y)
    assert torch.equal(x, y)
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="'A'"):
            mod.interpret(None, a.cuda(), b)  # the interpreter runs on host tensors only

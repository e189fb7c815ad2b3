"""The user API (upstream's tilelang.compile / tilelang.jit / language / profiler):
kernels defined in Python (user_api/kernels.py, upstream style) compiled from their
source text for the CPU, called with buffer-protocol arrays and checked against
pure-Python references; jit specialization and its cache; errors; the run module."""

import array
import ctypes
import os
import subprocess
import sys

import pytest

import tilelang_backend as tb
from tilelang_backend import run

HERE = os.path.dirname(os.path.abspath(__file__))
run.install()  # `import tilelang` in kernels.py resolves to tilelang_backend
sys.path.insert(0, os.path.join(HERE, "user_api"))
import kernels  # noqa: E402

CPU = ["c", "llvm"] if "llvm" in tb.target.list_target_kinds() else ["c"]


def floats(values):
    return array.array("f", values)


def test_alias_resolves_to_this_package():
    import tilelang
    import tilelang.language as T

    assert tilelang is tb and T is tb.language
    import tilelang.jit  # the module: tilelang.jit stays the decorator, as upstream's
    from tilelang.jit import JITKernel

    assert tilelang.jit is tb.jit and callable(tb.jit) and JITKernel is tb.JITKernel
    assert kernels.T.float16 == "float16" and repr(kernels.T.float16) == "T.float16"


def test_prim_func_record():
    pf = kernels.vadd
    assert isinstance(pf, tb.PrimFunc) and pf.name == "vadd" and pf.factory is None
    assert pf.file.endswith("kernels.py") and pf.line > 1
    nested = kernels.scale(8, 3.0)
    assert nested.factory == "scale" and nested.factory_args == {"M": 8, "factor": 3.0, "dtype": "float32"}
    with pytest.raises(TypeError, match="is not called from Python"):
        pf(1, 2)


@pytest.mark.parametrize("target", ["c"])
def test_compile_top_level_prim_func(target):
    k = tb.compile(kernels.vadd, out_idx=[2], target=target)
    assert isinstance(k, tb.JITKernel) and k.out_idx == [2]
    assert [p.name for p in k.params] == ["A", "B", "C"] and k.params[2].is_output and k.params[0].shape == ("N",)
    for n in (1, 5, 130):
        a, b = floats(range(n)), floats(3 * i for i in range(n))
        c = k(a, b)
        assert isinstance(c, memoryview) and c.tolist() == [4.0 * i for i in range(n)]
    # All parameters given: written in place, nothing returned.
    a, b, c = floats([1, 2]), floats([3, 4]), floats([0, 0])
    assert k(a, b, c) is None and c.tolist() == [4.0, 6.0]
    assert "vadd" in k.get_kernel_source() or k.get_kernel_source()
    assert isinstance(k.get_host_source(), str)


def test_compile_factory_values_from_the_live_call():
    k = tb.compile(kernels.scale(8, 3.0), out_idx=-1, target="c")
    assert k(floats(range(8))).tolist() == [3.0 * i for i in range(8)]
    k2 = tb.compile(kernels.scale(4, -0.5), out_idx=[1], target="c")
    assert k2(floats(range(4))).tolist() == [-0.5 * i for i in range(4)]
    # A factory local (not a parameter) is recomputed by the front end from the parameters.
    k3 = tb.compile(kernels.needs_cell(4), out_idx=[1], target="c")
    assert k3(floats([1, 1, 1, 1])).tolist() == [9.0] * 4


def test_buffer_protocol_inputs():
    k = tb.compile(kernels.vadd, out_idx=[2], target="c")
    a = (ctypes.c_float * 3)(1, 2, 3)
    b = memoryview(bytearray(floats([10, 20, 30]).tobytes())).cast("f")
    assert k(a, b).tolist() == [11.0, 22.0, 33.0]
    with pytest.raises(TypeError, match="read-only buffer"):
        k(bytes(12), b)
    with pytest.raises(tb.TileLangError):  # the library's argument checks: dtype
        k(array.array("d", [1.0, 2.0, 3.0]), b)


def test_generic_dlpack_object_is_a_tensor():
    """An object exposing only __dlpack__/__dlpack_device__ (here: made from a
    buffer by the extension's own capsules when NumPy exists) goes the DLPack path."""
    np = pytest.importorskip("numpy")

    class Only:
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    k = tb.compile(kernels.vadd, out_idx=[2], target="c")
    a, b = np.arange(4, dtype="float32"), np.ones(4, dtype="float32")
    out = k(Only(a), Only(b))
    assert list(out) == [1.0, 2.0, 3.0, 4.0]
    assert isinstance(k(a, b), np.ndarray)  # NumPy inputs: NumPy outputs


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class CtypesDLPack:
    """A pure-Python DLPack producer (ctypes): a float32 CPU vector exposing only
    __dlpack__ and __dlpack_device__, as torch or JAX tensors do."""

    _new = ctypes.pythonapi.PyCapsule_New
    _new.restype = ctypes.py_object
    _new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

    def __init__(self, values):
        self.data = (ctypes.c_float * len(values))(*values)
        self.shape = (ctypes.c_int64 * 1)(len(values))
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = ctypes.addressof(self.data)
        t.device = _DLDevice(1, 0)
        t.ndim = 1
        t.dtype = _DLDataType(2, 32, 1)
        t.shape = self.shape
        self.capsules = 0

    def __dlpack__(self, stream=None):
        self.capsules += 1  # the capsule has no destructor: the memory is this object's
        return self._new(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)

    def tolist(self):
        return list(self.data)


def test_ctypes_dlpack_producer():
    k = tb.compile(kernels.vadd, out_idx=[2], target="c")
    a, b = CtypesDLPack([1, 2, 3]), CtypesDLPack([4, 5, 6])
    out = k(a, b)
    assert a.capsules == 1 and b.capsules == 1
    assert [float(x) for x in out.tolist()] == [5.0, 7.0, 9.0]
    c = CtypesDLPack([0, 0, 0])
    k(a, b, c)
    assert c.tolist() == [5.0, 7.0, 9.0]
    assert _C_tensor_info(a) == ((3,), "float32", 1)


def _C_tensor_info(x):
    return tb._C.tensor_info(x)


def test_compile_options(tmp_path, capsys):
    with pytest.raises(NotImplementedError, match="compile_flags are not supported"):
        tb.compile(kernels.vadd, compile_flags=["-O3"], target="c")
    k = tb.compile(kernels.vadd, out_idx=[2], target="c", verbose=True, pass_configs={"tir.disable_vectorize": True})
    assert "compiled vadd for c" in capsys.readouterr().out
    assert k(floats([1]), floats([2])).tolist() == [3.0]
    assert tb.is_cache_enabled()
    assert tb.compile(kernels.vadd, out_idx=[2], target="c").kernel.from_cache  # the library's cache
    tb.disable_cache()
    try:
        assert not tb.is_cache_enabled()
        assert not tb.compile(kernels.vadd, out_idx=[2], target="c").kernel.from_cache
    finally:
        tb.enable_cache()
    dumped = tb.jit(out_idx=[-1], target="c", debug_root_path=str(tmp_path))(kernels.jscale.func)
    dumped(4)
    assert any(p.name.startswith("jscale") for p in tmp_path.iterdir())


def test_jit_lazy_caches_per_signature(monkeypatch):
    # target "auto" is the GPU where there is one; these kernels take NumPy arrays
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", "c")
    f = kernels.jscale
    before = f.compiles
    k = f(4)
    assert k(floats(range(4))).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert f(4) is k and f.compiles == before + 1  # same signature: nothing compiled
    k8 = f(8, factor=0.5)
    assert k8 is not k and f.compiles == before + 2
    assert k8(floats(range(8))).tolist() == [0.5 * i for i in range(8)]


def test_jit_eager_specializes_on_shapes(monkeypatch):
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", "c")
    f = kernels.eager_add
    before = f.compiles
    assert f(floats(range(5)), floats(range(5))).tolist() == [2.0 * i for i in range(5)]
    assert f(floats([1] * 5), floats([2] * 5)).tolist() == [3.0] * 5
    assert f.compiles == before + 1
    assert f(floats(range(7)), floats(range(7))).tolist() == [2.0 * i for i in range(7)]
    assert f.compiles == before + 2
    # The kernel for 7 elements has M bound: a constant dimension.
    k = f.compile(floats(range(7)), floats(range(7)))
    assert k.params[0].shape == (7,)


def test_profiler():
    k = tb.compile(kernels.vadd, out_idx=[2], target="c")
    p = k.get_profiler()
    ms = p.do_bench(input_tensors=[floats(range(64)), floats(range(64))], warmup=1, rep=5)
    assert ms > 0
    k2 = tb.compile(kernels.scale(16, 2.0), out_idx=-1, target="c")
    p2 = k2.get_profiler()
    p2.assert_allclose(lambda a: [2.0 * x for x in a.tolist()], rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError, match="elements differ"):
        p2.assert_allclose(lambda a: [3.0 * x + 1 for x in a.tolist()], atol=1e-3, rtol=1e-3)
    assert p2.do_bench(warmup=1, rep=5) > 0
    with pytest.raises(ValueError, match="symbolic dims"):
        p.do_bench()
    zeros = tb.Profiler(k2, tb.profiler.TensorSupplyType.Zero)
    zeros.assert_allclose(lambda a: [0.0] * 16, atol=0, rtol=0)
    (a,) = p2._get_inputs()
    assert all(-1.0 <= x <= 1.0 for x in a.tolist()) and len(set(a.tolist())) > 1


def test_errors():
    with pytest.raises(tb.TileLangError, match=r"kernels.py:\d+:\d+: .*undefined_name"):
        tb.compile(kernels.bad_kernel(4), target="c")
    with pytest.raises(ValueError, match="out_idx 5 is out of range"):
        tb.compile(kernels.vadd, out_idx=[5], target="c")
    with pytest.raises(TypeError, match="is a @jit function"):
        tb.compile(kernels.jscale)
    with pytest.raises(TypeError, match="argument 'M' is a object"):
        kernels.jscale(object())
    with pytest.raises(RuntimeError, match="T.gemm is part of a kernel body"):
        tb.language.gemm(1, 2)

    def local_factory():
        @tb.language.prim_func
        def inner(A: tb.language.Tensor((4,), "float32")):
            pass

        return inner

    with pytest.raises(ValueError, match="which is not a module-level function"):
        tb.compile(_nested_in_method(), target="c")

    with pytest.raises(ValueError, match="not a module-level function"):
        tb.jit(local_factory)


def _nested_in_method():
    class Holder:
        def make(self):
            @tb.language.prim_func
            def k(A: tb.language.Tensor((4,), "float32")):
                pass

            return k

    return Holder().make()


def _run(*args, cwd=HERE):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "tilelang_backend.run", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_run_module_upstream_script():
    r = _run(os.path.join("user_api", "upstream_script.py"), "2.5")
    assert r.returncode == 0, r.stderr
    assert "upstream_script: ok tilelang_backend tilelang_backend.language True" in r.stdout


def test_run_module_names_missing_upstream_modules():
    r = _run(os.path.join("user_api", "missing_module.py"))
    assert r.returncode != 0
    assert "'tilelang.carver' is a module of upstream TileLang that tilelang_backend does not provide" in r.stderr


def test_run_module_usage():
    r = _run()
    assert r.returncode == 2 and "usage: python -m tilelang_backend.run" in r.stdout

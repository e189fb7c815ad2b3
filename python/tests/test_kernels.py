"""Kernels compiled by the library and called from Python with NumPy arrays on the
CPU, checked against the reference interpreter (IRModule.interpret)."""

import os

import numpy as np
import pytest

import tilelang_backend as tb

ROOT = os.environ.get("TLPY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples")

SCALE = '''
import tilelang.language as T
N = T.symbolic("N")

@T.prim_func
def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), alpha: T.float32, k: T.int32):
    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
        for i in T.Parallel(64):
            if bx * 64 + i < N:
                B[bx * 64 + i] = A[bx * 64 + i] * alpha + k
'''


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(1234)


def reference(mod, func, *args):
    """Runs the interpreter on copies of the arguments; returns the copies."""
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    mod.interpret(func, *copies)
    return copies


def test_vector_add_against_the_interpreter(rng):
    path = os.path.join(EXAMPLES, "vector_add.py")
    kernel = tb.compile(path, target="c")
    assert isinstance(kernel, tb.Kernel)
    assert kernel.name == "vector_add" and kernel.params == ("A", "B", "C")
    assert kernel.target.kind == "c"
    mod = tb.IRModule.from_file(path)
    for n in (1, 255, 256, 1000):  # one kernel serves every N (symbolic)
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        c = np.zeros(n, np.float32)
        assert kernel(a, b, c) is None
        _, _, expected = reference(mod, None, a, b, np.zeros(n, np.float32))
        np.testing.assert_array_equal(c, expected)
        np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_scalars_and_source_text(rng):
    kernel = tb.compile(SCALE, target="c")
    a = rng.standard_normal(100, dtype=np.float32)
    b = np.zeros(100, np.float32)
    kernel(a, b, 2.5, 3)
    _, expected, _, _ = reference(tb.IRModule.from_script(SCALE), None, a, np.zeros(100, np.float32), 2.5, 3)
    np.testing.assert_array_equal(b, expected)


def test_outputs_are_allocated_and_returned(rng):
    path = os.path.join(EXAMPLES, "transpose.py")
    kernel = tb.compile(path, target="c")
    assert kernel.outputs == ("B",)
    a = rng.standard_normal((70, 45), dtype=np.float32)
    b = kernel(a)
    assert isinstance(b, np.ndarray) and b.shape == (45, 70) and b.dtype == np.float32
    np.testing.assert_array_equal(b, a.T)
    # Every parameter given: nothing allocated, nothing returned.
    out = np.zeros((45, 70), np.float32)
    assert kernel(a, out) is None
    np.testing.assert_array_equal(out, a.T)


def test_params_bind_constants(rng):
    kernel = tb.compile(os.path.join(EXAMPLES, "gemm.py"), target="c",
                        params={"M": 64, "N": 32, "K": 48, "dtype": "float32"})
    a = rng.standard_normal((64, 48), dtype=np.float32)
    b = rng.standard_normal((48, 32), dtype=np.float32)
    c = np.zeros((64, 32), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_argument_errors_come_from_the_library(rng):
    kernel = tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target="c")
    a = np.zeros(10, np.float32)
    with pytest.raises(ValueError) as info:
        kernel(a, a, np.zeros(10, np.float16))
    assert "'C'" in str(info.value) and info.value.status == "TL_EINVAL"
    with pytest.raises(ValueError, match="'B'"):
        kernel(a, np.zeros(9, np.float32), a)
    with pytest.raises(ValueError):
        kernel(a, a)  # a wrong count: the library says so
    with pytest.raises(TypeError):
        kernel(a, a, "not a tensor")
    with pytest.raises(TypeError):
        kernel(a, a, a, bogus=1)


def test_any_dlpack_producer():
    class Wrapped:
        """A minimal DLPack producer (delegates to NumPy)."""

        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    kernel = tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target="c")
    a, b, c = np.ones(64, np.float32), np.full(64, 2, np.float32), np.zeros(64, np.float32)
    kernel(Wrapped(a), Wrapped(b), Wrapped(c))
    np.testing.assert_array_equal(c, 3)


def test_compile_errors():
    with pytest.raises(ValueError, match=r"<string>:\d+:\d+"):
        tb.compile("import tilelang.language as T\n@T.prim_func\ndef f(:\n  pass\n", target="c")
    with pytest.raises(ValueError) as info:
        tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target="c", execution_backend="nvrtc")
    assert "Invalid execution backend 'nvrtc' for target 'c'" in str(info.value)


def test_kernel_cache_and_introspection():
    path = os.path.join(EXAMPLES, "vector_add.py")
    first = tb.compile(path, target="c")
    second = tb.compile(path, target="c")
    assert second.from_cache
    assert "vector_add" in first.device_source or "vector_add" in first.host_source
    table = first.kernel_table
    assert table["entry"] == "vector_add" and [p["name"] for p in table["params"]] == ["A", "B", "C"]


def random_args(kernel, rng, size=37):
    """Inputs for every parameter from the kernel table: symbolic dims take `size`
    (scalars that bind them too), constant dims their value."""
    table = kernel.kernel_table
    sym_values = [size + 3 * i for i in range(len(table["syms"]))]
    args = []
    for p in table["params"]:
        if not p["tensor"]:
            bound = [i for i, s in enumerate(table["syms"]) if s["param"] == len(args) and s["dim"] == -1]
            args.append(sym_values[bound[0]] if bound else (1.5 if p["dtype"].startswith("float") else 3))
            continue
        shape = [sym_values[d["sym"]] if isinstance(d, dict) else d for d in p["dims"]]
        dt = np.dtype(p["dtype"])
        if dt.kind == "f":
            args.append(rng.standard_normal(shape).astype(dt))
        else:
            args.append(rng.integers(-5, 6, size=shape).astype(dt))
    return args


EXAMPLE_FILES = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py")) if os.path.isdir(EXAMPLES) else []


@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_every_example_against_the_interpreter(example, rng):
    path = os.path.join(EXAMPLES, example)
    mod = tb.IRModule.from_file(path)
    # a file with several kernels (flash_decoding.py: split and combine): each one
    for func in mod.functions:
        kernel = tb.compile(path, name=func, target="c")
        args = random_args(kernel, rng)
        expected = reference(mod, func, *args)
        got = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        kernel(*got)
        for name, g, e in zip(kernel.params, got, expected):
            if isinstance(g, np.ndarray):
                tol = 2e-2 if g.dtype == np.float16 else 1e-5
                np.testing.assert_allclose(g, e, rtol=tol, atol=tol, err_msg=f"{example} {func}: parameter {name}")


def test_every_available_execution_backend(rng):
    cpu = tb.get_backend("cpu")
    names = cpu.allowed_execution_backends("c", include_unavailable=False)
    assert "native" in names
    a = rng.standard_normal(300, dtype=np.float32)
    b = rng.standard_normal(300, dtype=np.float32)
    for name in names:
        kernel = tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target="c", execution_backend=name)
        assert kernel.execution_backend == name
        c = np.zeros(300, np.float32)
        if name == "source":
            with pytest.raises(ValueError) as info:
                kernel(a, b, c)
            assert info.value.status == "TL_EUNSUPPORTED"
            continue
        kernel(a, b, c)
        np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_a_python_backend_compiles_and_runs(rng):
    """A backend whose pipeline, device codegen, host hook and host codegen are Python
    functions (delegating the real work to the built-in cpu backend's C components,
    which Python sees as CFunctions), registered from Python and driven by tl_compile
    end to end: the kernel it produces runs."""
    cpu = tb.get_backend("cpu")
    model = "py-" + str(os.getpid())
    trace = []

    def lower(mod, target):
        trace.append(("lower", target.kind))
        cpu.pipelines["c"].body(mod, target)
        mod.set_attr("py.lowered", 1)

    def device(mod, target):
        trace.append(("device", mod.get_attr("py.lowered"), "vector_add_kernel" in mod.functions))
        return cpu.device_codegens["c"].build_without_compile(mod, target)

    def hook(mod, host, target):
        trace.append(("hook", host.kind, target.kind))
        mod.set_attr("py.hooked", 1)

    def host(mod, target_host):
        trace.append(("host", mod.get_attr("py.hooked")))
        return cpu.host_codegens["c"].build(mod, target_host)

    bm = tb.register_backend(
        tb.BackendModule(
            name="pycpu-" + model,
            target_kinds=("llvm",),
            pipelines={"llvm": tb.PassPipeline("llvm", lower)},
            device_codegens={"llvm": tb.DeviceCodegen("pyc", build_without_compile=device)},
            execution_backends=(cpu.execution_backends[0],),  # the C library's 'native'
            supports_target=lambda t: t.attrs.get("model") == model,
            host_codegens={"c": tb.HostCodegen("pyhost", host)},
            host_codegen_hooks={"llvm": (tb.HostCodegenHook("pyhook", hook),)},
            callbacks={f"{model}.describe": lambda: "a Python backend"},
        )
    )
    kernel = tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target={"kind": "llvm", "model": model},
                        disable_cache=True)
    assert kernel.target.kind == "llvm" and kernel.execution_backend == "native"
    assert trace == [("lower", "llvm"), ("device", 1, True), ("hook", "c", "llvm"), ("host", 1)]
    a = rng.standard_normal(500, dtype=np.float32)
    b = rng.standard_normal(500, dtype=np.float32)
    c = np.zeros(500, np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    assert tb.create_backend_context({"kind": "llvm", "model": model}).module is bm
    assert tb.ffi.call_global_func(f"{model}.describe") == "a Python backend"


def test_a_failing_python_pipeline_fails_the_compile():
    model = "pyfail-" + str(os.getpid())
    cpu = tb.get_backend("cpu")

    def lower(mod, target):
        raise ValueError("this pipeline refuses vector_add")

    tb.register_backend(
        tb.BackendModule(
            name="pyfail-" + model,
            target_kinds=("llvm",),
            pipelines={"llvm": tb.PassPipeline("llvm", lower)},
            device_codegens={"llvm": cpu.device_codegens["c"]},
            execution_backends=(cpu.execution_backends[0],),
            supports_target=lambda t: t.attrs.get("model") == model,
            host_codegens=cpu.host_codegens,
        )
    )
    with pytest.raises(ValueError, match="this pipeline refuses vector_add") as info:
        tb.compile(os.path.join(EXAMPLES, "vector_add.py"), target={"kind": "llvm", "model": model},
                   disable_cache=True)
    assert type(info.value) is ValueError  # the pipeline's own exception, unchanged

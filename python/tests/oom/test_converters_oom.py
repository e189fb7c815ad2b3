"""Out-of-memory sweep of the extension's conversions (components and manifests, both
directions), against the test variant of the extension (python/CMakeLists.txt:
tl_python_ext_oom, with python/src/test_hooks/oom.c).

For every n from 1 until a call no longer reaches its nth allocation, the call runs
with that allocation failing: once for CPython's allocators (the extension's own
memory and every Python object made; only the nth fails) and once for the C
library's (the nth and every later one). Each failing call must raise MemoryError
(or an error caused by one), and a failure that repeats must leave the heap as it
was: the C heap (the library's and the extension's memory) and CPython's object
blocks. A conversion that leaked on an error path would grow them on every repeat.
"""

import ctypes
import gc
import sys
import tracemalloc

import pytest

import tilelang_backend as tb
from tilelang_backend import _C

if not hasattr(_C, "_oom_call"):
    pytest.skip("not the test variant of the extension (no _C._oom_call)", allow_module_level=True)

SOURCES = ("python", "library")
# A failure is repeated in windows of WINDOW calls after WARMUP: CPython's caches may
# grow now and then (in bursts), a leak grows in every window, by at least MIN_BLOCK
# bytes per call.
WARMUP, WINDOW, WINDOWS, MIN_BLOCK = 2, 10, 8, 16


def _c_heap_probe():
    """Bytes the C heap has handed out: ASan's count under ASan, else glibc's."""
    libc = ctypes.CDLL(None)
    asan = getattr(libc, "__sanitizer_get_current_allocated_bytes", None)
    if asan is not None:
        asan.restype = ctypes.c_size_t
        return asan

    class Mallinfo2(ctypes.Structure):
        _fields_ = [(f, ctypes.c_size_t) for f in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                     "fordblks", "keepcost")]

    mallinfo2 = libc.mallinfo2
    mallinfo2.restype = Mallinfo2
    return lambda: mallinfo2().uordblks + mallinfo2().hblkhd


_c_heap = _c_heap_probe()
tracemalloc.start()


def heap():
    """What CPython's allocators have handed out (tracemalloc: every domain, so the
    extension's own memory too) and what the C heap has (the library's memory).
    The type attribute cache keeps the last name looked up in each slot: emptied first."""
    sys._clear_type_cache()
    gc.collect()
    return tracemalloc.get_traced_memory()[0], _c_heap()


def caused_by_memory_error(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def run(source, n, call, args):
    """call(*args) with allocation n failing: whether it reached n."""
    try:
        _C._oom_call(source, n, call, *args)
    except BaseException as exc:  # noqa: B036 - any exception is judged here
        if not caused_by_memory_error(exc):
            raise AssertionError(f"{source} allocation {n} failing: {exc!r}, not MemoryError") from exc
    return _C._oom_reached()


def leaks(source, n, call, args):
    """Whether every window of failing calls grows the heap by a leak's worth."""
    for _ in range(WARMUP):
        run(source, n, call, args)
    for _ in range(WINDOWS):
        py_bytes, c_bytes = heap()
        for _ in range(WINDOW):
            run(source, n, call, args)
        py_grown, c_grown = (after - before for after, before in zip(heap(), (py_bytes, c_bytes)))
        if py_grown < WINDOW * MIN_BLOCK and c_grown < WINDOW * MIN_BLOCK:
            return None
    return py_grown, c_grown


def sweep(source, call, *args, check_leaks=True, limit=20000):
    """Runs call(*args) with allocation n failing, n = 1, 2, ... until a call no longer
    reaches n; returns how many allocations failed in turn. `args` are made before,
    outside the count."""
    gc.freeze()  # what exists now is not garbage: each collection looks at new objects only
    for n in range(1, limit):
        if not run(source, n, call, args):
            return n - 1
        grown = check_leaks and leaks(source, n, call, args)
        if grown:
            raise AssertionError(f"{source} allocation {n} failing: each call leaks ({grown[0]} bytes of "
                                 f"Python's allocators, {grown[1]} C heap bytes per {WINDOW} calls)")
    raise AssertionError(f"{source}: still failing after {limit} allocations")


def py_lower(mod, target):
    return None


def py_build(mod, target):
    return "// source"


def py_host_build(mod, target_host):
    return "// host"


def py_hook(mod, target_host, target):
    return None


def py_pred(target):
    return True


def py_available():
    return True


def py_reason():
    return None


def py_packed(*args):
    return None


_serial = iter(range(1 << 30))


def fresh(prefix):
    return f"oom_{prefix}_{next(_serial)}"


def components():
    """One of each class with Python callables, named afresh (so not yet interned)."""
    return {
        _C.PASS_PIPELINE: tb.PassPipeline("vulkan", py_lower),
        _C.DEVICE_CODEGEN: tb.DeviceCodegen(fresh("dc"), build=py_build, build_without_compile=py_build,
                                            supports_target=py_pred),
        _C.HOST_CODEGEN: tb.HostCodegen(fresh("hc"), build=py_host_build, supports_target=py_pred),
        _C.HOST_CODEGEN_HOOK: tb.HostCodegenHook(fresh("hk"), apply=py_hook, supports_target=py_pred),
        _C.EXECUTION_BACKEND_SPEC: tb.ExecutionBackendSpec(fresh("spec"), is_available=py_available,
                                                           supports_target=py_pred, unavailable_reason=py_reason),
    }


COMPONENT_NAMES = {
    _C.PASS_PIPELINE: "PassPipeline",
    _C.DEVICE_CODEGEN: "DeviceCodegen",
    _C.HOST_CODEGEN: "HostCodegen",
    _C.HOST_CODEGEN_HOOK: "HostCodegenHook",
    _C.EXECUTION_BACKEND_SPEC: "ExecutionBackendSpec",
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("which", sorted(COMPONENT_NAMES), ids=lambda w: COMPONENT_NAMES[w])
def test_component_to_c(source, which):
    if which == _C.PASS_PIPELINE:
        comp = tb.PassPipeline(fresh("kind"), py_lower)
    else:
        comp = components()[which]
    swept = sweep(source, _C._component_to_c, which, comp)
    if source == "python":
        assert swept > 0  # the conversion allocates: the sweep failed each of those
    assert _C._component_to_c(which, comp) == _C._component_to_c(which, comp)  # interned once made


@pytest.mark.parametrize("source", SOURCES)
def test_spec_with_c_and_python_parts(source):
    # A C spec's is_available with a Python supports_target: the parts go through one
    # tlpy_spec_calls.
    c_spec = tb.get_backend("webgpu").execution_backends[0]
    spec = tb.ExecutionBackendSpec(fresh("mixed"), is_available=c_spec.is_available, supports_target=py_pred)
    sweep(source, _C._component_to_c, _C.EXECUTION_BACKEND_SPEC, spec)
    assert spec.available() == c_spec.available()


def manifest_fields(name, kind):
    comps = components()
    return dict(
        name=name,
        target_kinds=(kind,),
        pipelines={kind: tb.PassPipeline(kind, py_lower)},
        device_codegens={kind: comps[_C.DEVICE_CODEGEN]},
        execution_backends=(comps[_C.EXECUTION_BACKEND_SPEC],),
        supports_target=py_pred,
        host_codegens={"c": comps[_C.HOST_CODEGEN]},
        host_codegen_hooks={kind: (comps[_C.HOST_CODEGEN_HOOK],)},
        callbacks={fresh("cb"): py_packed},
    )


def build(fields):
    return tb.BackendModule(**fields)


@pytest.mark.parametrize("source", SOURCES)
def test_backend_module_manifest(source):
    fields = manifest_fields(fresh("bm"), "vulkan")
    # The components are converted (and interned) on the way: every failure raises
    # MemoryError (their leaks are test_component_to_c's).
    sweep(source, build, fields, check_leaks=False)
    # Now only the manifest itself: every call builds, validates and frees one.
    swept = sweep(source, build, fields)
    if source == "python":
        assert swept > 0


@pytest.mark.parametrize("source", SOURCES)
def test_register_backend(source):
    bm = build(manifest_fields(fresh("reg"), "vulkan"))
    sweep(source, tb.register_backend, bm)
    assert tb.get_backend(bm.name) is bm


# C -> Python: the first lookup of a built-in backend wraps its manifest and every
# component (interned from then on: a repeat goes further, until it succeeds).
@pytest.mark.parametrize("source,name", [("python", "cpu"), ("library", "cuda"), ("python", "cuda"), ("python", "rocm")])
def test_builtin_manifest_to_python(source, name):
    sweep(source, tb.get_backend, name)
    bm = tb.get_backend(name)
    assert bm.name == name and bm is tb.get_backend(name)


@pytest.mark.parametrize("source", SOURCES)
def test_resolve_codegen_to_python(source):
    sweep(source, tb.device_codegen.resolve_device_codegen, tb.Target("metal"))
    assert tb.device_codegen.resolve_device_codegen("metal").name


@pytest.mark.parametrize("source", SOURCES)
def test_list_backends_to_python(source):
    sweep(source, tb.list_backends)
    assert all(b is tb.get_backend(n) for n, b in tb.list_backends().items())


USER_API_KERNEL = '''
import tilelang.language as T
N = T.symbolic("N")

@T.prim_func
def k(A: T.Tensor((N, 4), "float32"), B: T.Tensor((N, 4), "float32"), s: T.int32):
    with T.Kernel(1, threads=4) as bx:
        for i in T.Parallel(4):
            B[0, i] = A[0, i]
'''


@pytest.mark.parametrize("source", SOURCES)
def test_user_api_conversions(source):
    """The user API's calls into the extension: a function's signature, marking
    outputs (out_idx), and a buffer-protocol tensor read (tensor_info)."""
    import array

    mod = tb.IRModule.from_script(USER_API_KERNEL)
    sweep(source, mod.signature, None)
    assert mod.signature(None)[0] == ("A", "tensor", "float32", ("N", 4), False)
    sweep(source, mod.set_out_idx, None, [-2])
    assert [p[4] for p in mod.signature(None)] == [False, True, False]
    buf = memoryview(array.array("f", range(8))).cast("B").cast("f", (2, 4))
    sweep(source, _C.tensor_info, buf)
    assert _C.tensor_info(buf) == ((2, 4), "float32", 1)

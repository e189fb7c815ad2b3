"""The repository's examples (upstream style: factories, a top-level prim_func, eager
@tilelang.jit functions) imported as Python modules (`tilelang` resolving to this
package) and compiled through the user API from the live objects, as their
`__main__` blocks do, on the CPU with NumPy arrays; checked against the reference
interpreter (factories) or NumPy (eager jit functions)."""

import importlib.util
import os

import numpy as np
import pytest

import tilelang_backend as tb
from tilelang_backend import run

ROOT = os.environ.get("TLPY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples")
run.install()


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(kernel, rng, sizes=None):
    made = []
    for p in kernel.params:
        if p.is_output:
            continue
        shape = tuple(d if isinstance(d, int) else sizes[d] for d in p.shape)
        made.append(rng.standard_normal(shape).astype(p.dtype))
    return made


# example, factory (None: a module-level prim_func), out_idx as in its __main__ block
FACTORIES = [
    ("cumsum", "cumsum", [1]),
    ("elementwise_add", "elementwise_add", [2]),
    ("gemm", "matmul", [2]),
    ("rms_norm", "rms_norm", [2]),
    ("row_sum", "row_sum", [1]),
    ("softmax", "softmax", [1]),
    ("vector_add", None, [2]),
]


@pytest.mark.parametrize("example,factory,out_idx", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_example_factory_against_the_interpreter(example, factory, out_idx):
    mod = load(example)
    func = getattr(mod, example) if factory is None else getattr(mod, factory)()
    kernel = tb.compile(func, out_idx=out_idx, target="c")
    rng = np.random.default_rng(7)
    ins = inputs(kernel, rng, {"N": 1000})
    out = kernel(*ins)
    outs = out if isinstance(out, tuple) else (out,)
    # The reference: the script's function, interpreted, all parameters given.
    ir = tb.IRModule.from_file(os.path.join(EXAMPLES, example + ".py"))
    name = factory or example
    args, it_in, refs = [], iter(ins), []
    for p in kernel.params:
        if p.is_output:
            ref = np.zeros(out.shape if not isinstance(out, tuple) else outs[len(refs)].shape, dtype=p.dtype)
            refs.append(ref)
            args.append(ref)
        else:
            args.append(np.array(next(it_in), copy=True))
    ir.interpret(name, *args)
    for got, want in zip(outs, refs):
        np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), rtol=1e-5, atol=1e-5)


def test_eager_jit_examples_with_numpy(monkeypatch):
    # target "auto" is the GPU where there is one; these calls pass NumPy arrays
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", "c")
    rng = np.random.default_rng(3)
    row_max = load("row_max").row_max
    a = rng.standard_normal((20, 50)).astype("float32")
    np.testing.assert_array_equal(row_max(a), a.max(axis=1))
    b = rng.standard_normal((20, 50)).astype("float32")
    np.testing.assert_array_equal(row_max(b), b.max(axis=1))
    assert row_max.compiles == 1  # same shape and dtype: one kernel
    c = rng.standard_normal((9, 70)).astype("float32")
    np.testing.assert_array_equal(row_max(c), c.max(axis=1))
    assert row_max.compiles == 2
    transpose = load("transpose").transpose
    t = rng.standard_normal((33, 65)).astype("float32")
    np.testing.assert_array_equal(transpose(t), t.T)
    np.testing.assert_array_equal(transpose(t, block_M=16), t.T)
    assert transpose.compiles == 2  # a constant's value is part of the signature

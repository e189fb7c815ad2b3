#!/usr/bin/env python3
"""Coverage of upstream TileLang's own kernels by this front end and backends.

usage: scripts/coverage-upstream.py UPSTREAM [--tlc PATH] [--out TABLE] [--json FILE]
                                    [--filter REGEX] [--timeout S] [--no-run] [--no-cuda]
                                    [--jobs N] [--cpu-backend native|tcc]

UPSTREAM is a checkout (or an exported tree) of github.com/tile-ai/tilelang; only
its examples/ and testing/python/language/ are read. No upstream code lives here:
this script reads those files with Python's `ast` module and drives `tlc`.

For every kernel in every file it runs, each with a timeout:
  check   tlc check FILE --func F --param ...
  cpu     tlc run FILE --func F --param ... --dim ... --check --target c
          --execution-backend native|tcc (the compiled C kernel against the
          reference interpreter, on tlc's seeded random inputs: kernels that index
          with their input data can go out of bounds on them)
  cuda    tlc run FILE --func F --param ... --target {"kind":"cuda","arch":"sm_90a"}
          --execution-backend nvrtc: counts as built when NVRTC compiled the
          kernel ("... compiled in N ms"); without a GPU the run itself fails after.
A later stage runs only when `check` passed.

What a kernel is (the unit counted). A top-level `def` of the file that upstream
would compile: decorated `@T.prim_func` or `@tilelang.jit[(...)]` (the last
component of the decorator's dotted name is `prim_func` or `jit` and its first
one a name the file binds to a tilelang module: not `@triton.jit`), or a
factory: a `def` whose body defines such a function and returns it by name. Test
functions that build a kernel inside and do not return it are not kernels. Files without a
kernel are not counted.

How sizes are bound (sizes only, never the body). The script evaluates, with a
small abstract interpreter over the AST, the code upstream runs: the
`if __name__ == "__main__":` block (argparse defaults are read from
`add_argument(..., default=V)`), then `main()`, `run_*`/`test_*` functions (the
first case of `@pytest.mark.parametrize`), following calls into the file's own
functions (5 levels) with their arguments. The first call it finds of a kernel
gives the kernel's arguments:
  - `factory(args...)`, `jit_fn(tensors..., consts...)`, `jit_fn.compile(M=.., ..)`;
  - tensors made by torch.randn/rand/randint/empty/zeros/ones/full (and .cuda(),
    .half(), .to(...)) give their shapes, unified with the `T.Tensor((M, K), ..)`
    annotations of a jit function to give its `T.const` dims;
  - dtypes (`T.float16`, `torch.float16`, `"float16"`) are bound as dtype names.
Parameters the evaluation leaves unknown take their default; without a default
they are guessed from the name (dtype-like names: float16; block/tile names: 64;
threads: 128; stages: 2; anything else: 256) and the result says "guessed".
Then sizes are made small enough for the interpreter: an int bound to a parameter
that is not a tile-like name (block, tile, thread, stage, split, chunk, warp, ...)
and exceeds 256 is replaced by the least multiple of the lcm of the tile-like
ints that is >= 256 (when that is smaller); counts (batch, heads, groups,
experts, num_*) are at most 2. Each CPU run may use 4 GiB of address space.
Symbolic dims (`T.dynamic("n")`,
`T.symbolic("n")`) found in the file get `--dim n=256` for the CPU run.

Failures are grouped by their first error message with the location and numbers
taken out ("T.foo is not supported", "nothing named '_' to bind").
"""
import argparse
import ast
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, OrderedDict

CUDA_TARGET = '{"kind":"cuda","arch":"sm_90a"}'
CAP = 256
TILE_RE = re.compile(
    r"(?i)(block|blk|tile|thread|stage|split|chunk|warp|pack|vec|panel|unroll|group|page|window|"
    r"^num_|^n_|width|bits|stride|lanes|wave|^b[mnkhdc]?$|^b[mnk]_|kpack|topk|top_k|select|sel_|"
    r"^tm$|^tn$|^tk$|^bs|_bs$|^wg|rep|step|^k_|^v_|dim_v|sm_num|sms)")
DTYPE_NAMES = {
    "float16", "float32", "float64", "bfloat16", "float8_e4m3", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
    "float4_e2m1fn", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "int4",
    "uint4", "half", "float", "double", "float8_e4m3fnuz", "float8_e5m2fnuz", "int1",
}
TORCH_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16",
                 "long": "int64", "int": "int32", "short": "int16", "bool": "bool", "uint8": "uint8"}


class Unknown:
    def __repr__(self):
        return "?"


UNKNOWN = Unknown()


class DType(str):
    """A dtype name (bound as a bare name: --param dtype=float16)."""


class Tensor:
    def __init__(self, shape, dtype=None):
        self.shape, self.dtype = shape, dtype


class Namespace:
    def __init__(self, attrs):
        self.attrs = attrs


class Parser:
    def __init__(self):
        self.attrs = {}


class FuncRef:
    def __init__(self, node):
        self.node = node


class KernelRef:
    """The result of calling a factory, or the jit function itself."""

    def __init__(self, kernel):
        self.kernel = kernel


def dotted(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        d = dotted(e.value)
        return d + "." + e.attr if d else None
    if isinstance(e, ast.Call):
        return dotted(e.func)
    return None


def deco_last(e):
    d = dotted(e)
    return d.rsplit(".", 1)[-1] if d else ""


TILELANG_NAMES = set()  # names the file binds to tilelang modules or to tilelang.jit


def tilelang_names(tree):
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name.split(".")[0] == "tilelang":
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "tilelang":
            for a in n.names:
                names.add(a.asname or a.name)
    return names


def is_kernel_deco(e):
    """@T.prim_func, @tilelang.jit(...), @jit from tilelang (not @triton.jit)."""
    d = dotted(e)
    if not d or deco_last(e) not in ("prim_func", "jit"):
        return False
    return d.split(".")[0] in TILELANG_NAMES


def returns_nested_kernel(fn):
    """A factory: it returns (the name of) a kernel it defines inside."""
    inner, rets = set(), []

    def visit(node):  # fn's own statements, not those of functions inside it
        for c in ast.iter_child_nodes(node):
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(is_kernel_deco(d) for d in c.decorator_list):
                    inner.add(c.name)
            elif isinstance(c, ast.Return):
                rets.append(c)
            elif not isinstance(c, (ast.Lambda, ast.ClassDef)):
                visit(c)

    visit(fn)
    return any(isinstance(r.value, ast.Name) and r.value.id in inner for r in rets)


class Kernel:
    def __init__(self, node):
        self.node = node
        self.name = node.name
        decos = [deco_last(d) for d in node.decorator_list]
        self.kind = "jit" if "jit" in decos else "prim_func" if "prim_func" in decos else "factory"
        self.params = []  # (name, default expr or None)
        a = node.args
        pos = a.posonlyargs + a.args
        defs = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        self.params += list(zip([p.arg for p in pos], defs))
        self.params += list(zip([p.arg for p in a.kwonlyargs], a.kw_defaults))
        # jit style: tensor parameters declared in the body, T.const dims
        self.tensor_params, self.consts, self.shapes = set(), [], {}
        if self.kind == "jit":
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is None:
                    self.tensor_params.add(st.target.id)
                    self.shapes[st.target.id] = tensor_ann_shape(st.annotation)
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and deco_last(st.value) == "const":
                    if st.value.args and isinstance(st.value.args[0], ast.Constant) and isinstance(
                            st.value.args[0].value, str):
                        self.consts += [s.strip() for s in re.split(r"[,\s]+", st.value.args[0].value) if s.strip()]
            for p in pos:
                if p.annotation is not None and "Tensor" in (dotted(p.annotation) or ast.dump(p.annotation)):
                    self.tensor_params.add(p.arg)
                    self.shapes[p.arg] = tensor_ann_shape(p.annotation)


def tensor_ann_shape(ann):
    """The shape entries (names or None) of T.Tensor((M, K), dtype) / T.Tensor[(M, K), dtype]."""
    sh = None
    if isinstance(ann, ast.Call) and ann.args:
        sh = ann.args[0]
    elif isinstance(ann, ast.Subscript):
        s = ann.slice
        sh = s.elts[0] if isinstance(s, ast.Tuple) and s.elts else s
    if isinstance(sh, (ast.Tuple, ast.List)):
        return [e.id if isinstance(e, ast.Name) else None for e in sh.elts]
    if isinstance(sh, ast.Name):
        return [sh.id]
    return []


def find_kernels(tree):
    TILELANG_NAMES.clear()
    TILELANG_NAMES.update(tilelang_names(tree))
    ks = []
    for n in tree.body:
        if not isinstance(n, ast.FunctionDef):
            continue
        if any(is_kernel_deco(d) for d in n.decorator_list):
            ks.append(Kernel(n))
        elif returns_nested_kernel(n):
            ks.append(Kernel(n))
    return ks


class Evaluator:
    """Abstract evaluation of the script code that calls kernels."""

    def __init__(self, tree, kernels):
        self.tree = tree
        self.kernels = {k.name: k for k in kernels}
        self.funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.found = OrderedDict()  # kernel name -> (args dict, tensor shapes dict)
        self.module = {}
        self.steps = 0

    # -- expressions
    def ev(self, e, env, depth):
        self.steps += 1
        if self.steps > 200000:
            return UNKNOWN
        try:
            return self._ev(e, env, depth)
        except RecursionError:
            return UNKNOWN
        except Exception:
            return UNKNOWN

    def _ev(self, e, env, depth):
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            if e.id in self.module:
                return self.module[e.id]
            if e.id in self.kernels:
                return KernelRef(self.kernels[e.id])
            if e.id in self.funcs:
                return FuncRef(self.funcs[e.id])
            if e.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[e.id]
            return UNKNOWN
        if isinstance(e, (ast.Tuple, ast.List)):
            vals = [self.ev(x, env, depth) for x in e.elts]
            return tuple(vals) if isinstance(e, ast.Tuple) else vals
        if isinstance(e, ast.Dict):
            d = {}
            for k, v in zip(e.keys, e.values):
                if k is None:
                    continue
                kk = self.ev(k, env, depth)
                if isinstance(kk, (str, int, float, bool)):
                    d[kk] = self.ev(v, env, depth)
            return d
        if isinstance(e, ast.Attribute):
            obj = self.ev(e.value, env, depth)
            if isinstance(obj, Namespace):
                return obj.attrs.get(e.attr, UNKNOWN)
            if isinstance(obj, Tensor) and e.attr == "shape":
                return tuple(obj.shape)
            base = dotted(e.value) or ""
            if base.split(".")[0] in ("T", "tl", "torch", "tilelang", "language") or base.endswith("language"):
                name = TORCH_ALIASES.get(e.attr, e.attr) if base.startswith("torch") else e.attr
                if name in DTYPE_NAMES:
                    return DType({"half": "float16", "float": "float32", "double": "float64"}.get(name, name))
            return UNKNOWN
        if isinstance(e, ast.BinOp):
            a, b = self.ev(e.left, env, depth), self.ev(e.right, env, depth)
            if isinstance(a, bool) or isinstance(b, bool):
                pass
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                       ast.FloorDiv: lambda: a // b, ast.Div: lambda: a / b, ast.Mod: lambda: a % b,
                       ast.Pow: lambda: a ** b if abs(b) < 64 else UNKNOWN,
                       ast.LShift: lambda: a << b if b < 64 else UNKNOWN, ast.RShift: lambda: a >> b}
                f = ops.get(type(e.op))
                return f() if f else UNKNOWN
            if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and isinstance(e.op, ast.Add):
                return type(a)(list(a) + list(b))
            return UNKNOWN
        if isinstance(e, ast.UnaryOp):
            a = self.ev(e.operand, env, depth)
            if isinstance(a, (int, float)):
                if isinstance(e.op, ast.USub):
                    return -a
                if isinstance(e.op, ast.UAdd):
                    return a
            if isinstance(e.op, ast.Not) and isinstance(a, bool):
                return not a
            return UNKNOWN
        if isinstance(e, ast.IfExp):
            c = self.ev(e.test, env, depth)
            if isinstance(c, bool):
                return self.ev(e.body if c else e.orelse, env, depth)
            return UNKNOWN
        if isinstance(e, ast.Subscript):
            obj = self.ev(e.value, env, depth)
            idx = self.ev(e.slice, env, depth)
            if isinstance(obj, (tuple, list, dict)) and isinstance(idx, (int, str)):
                try:
                    return obj[idx]
                except Exception:
                    return UNKNOWN
            return UNKNOWN
        if isinstance(e, ast.Call):
            return self.call(e, env, depth)
        return UNKNOWN

    def call(self, e, env, depth):
        fname = dotted(e.func) or ""
        last = fname.rsplit(".", 1)[-1]
        args = [self.ev(a, env, depth) for a in e.args if not isinstance(a, ast.Starred)]
        kw = {}
        for k in e.keywords:
            if k.arg is None:
                d = self.ev(k.value, env, depth)
                if isinstance(d, dict):
                    kw.update({kk: vv for kk, vv in d.items() if isinstance(kk, str)})
            else:
                kw[k.arg] = self.ev(k.value, env, depth)
        # argparse
        if last == "ArgumentParser":
            return Parser()
        if isinstance(e.func, ast.Attribute):
            obj = self.ev(e.func.value, env, depth)
            if isinstance(obj, Parser):
                if e.func.attr == "add_argument":
                    names = [a for a in args if isinstance(a, str)]
                    longs = [n for n in names if n.startswith("--")] or names
                    dest = kw.get("dest") or (longs[0].lstrip("-").replace("-", "_") if longs else None)
                    if dest:
                        default = kw.get("default", None)
                        if "default" not in kw and kw.get("action") == "store_true":
                            default = False
                        obj.attrs[dest] = default
                    return None
                if e.func.attr in ("parse_args",):
                    return Namespace(dict(obj.attrs))
                if e.func.attr == "parse_known_args":
                    return (Namespace(dict(obj.attrs)), [])
                return UNKNOWN
            if isinstance(obj, Tensor) and e.func.attr in ("cuda", "half", "float", "to", "contiguous", "bfloat16",
                                                           "clone", "requires_grad_", "normal_", "uniform_", "t",
                                                           "transpose", "detach"):
                if e.func.attr in ("t", "transpose") and len(obj.shape) == 2:
                    return Tensor(obj.shape[::-1], obj.dtype)
                return obj
            if isinstance(obj, KernelRef) and e.func.attr == "compile":
                self.record(obj.kernel, args, kw, compile_call=True)
                return KernelRef(obj.kernel)
        if fname.startswith("torch.") and last in ("randn", "rand", "empty", "zeros", "ones", "full", "randint",
                                                   "randn_like", "empty_like", "zeros_like", "ones_like", "arange"):
            if last.endswith("_like"):
                return args[0] if args and isinstance(args[0], Tensor) else UNKNOWN
            sizes = args
            if last == "randint":
                sizes = args[2:] if len(args) > 2 else [kw.get("size", UNKNOWN)]
            if last == "full":
                sizes = args[:1]
            if last == "arange":
                sizes = [args[-1]] if args else []
            if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
                sizes = list(sizes[0])
            if "size" in kw and isinstance(kw["size"], (tuple, list)):
                sizes = list(kw["size"])
            return Tensor(sizes, kw.get("dtype"))
        if fname in ("list", "tuple", "sorted") and len(args) == 1 and isinstance(args[0], (list, tuple, dict)):
            return list(args[0]) if fname != "tuple" else tuple(args[0])
        if last in ("int", "float", "bool", "str") and args and fname == last:
            try:
                return {"int": int, "float": float, "bool": bool, "str": str}[last](args[0])
            except Exception:
                return UNKNOWN
        if fname in ("min", "max") and args and all(isinstance(a, (int, float)) for a in args):
            return (min if fname == "min" else max)(args)
        if fname in ("tilelang.cdiv", "T.ceildiv", "cdiv", "ceildiv", "triton.cdiv") and len(args) == 2 and all(
                isinstance(a, int) for a in args) and args[1]:
            return -(-args[0] // args[1])
        if last == "compile" and fname.startswith("tilelang"):
            return args[0] if args else UNKNOWN
        target = self.ev(e.func, env, depth)
        if isinstance(target, KernelRef):
            self.record(target.kernel, args, kw, compile_call=False, call=e)
            return KernelRef(target.kernel)
        if isinstance(target, FuncRef) and depth < 5:
            return self.run_func(target.node, args, kw, depth + 1)
        return UNKNOWN

    def record(self, k, args, kw, compile_call, call=None):
        if k.name in self.found:
            return
        vals, shapes = {}, {}
        names = [p for p, _ in k.params]
        for name, v in zip(names, args):
            if name in k.tensor_params or isinstance(v, Tensor):
                if isinstance(v, Tensor):
                    shapes[name] = v.shape
                continue
            vals[name] = v
        for name, v in kw.items():
            if isinstance(v, Tensor):
                shapes[name] = v.shape
            elif name in names or compile_call:
                vals[name] = v
        self.found[k.name] = (vals, shapes)

    # -- statements
    def run_func(self, fn, args, kw, depth, first_params=None):
        env = {}
        a = fn.args
        pos = a.posonlyargs + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        for i, p in enumerate(pos):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kw:
                env[p.arg] = kw[p.arg]
            elif first_params and p.arg in first_params:
                env[p.arg] = first_params[p.arg]
            elif defaults[i] is not None:
                env[p.arg] = self.ev(defaults[i], {}, depth)
            else:
                env[p.arg] = UNKNOWN
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            env[p.arg] = kw.get(p.arg, self.ev(d, {}, depth) if d is not None else UNKNOWN)
        try:
            self.block(fn.body, env, depth)
        except _Return as r:
            return r.value
        return UNKNOWN

    def assign(self, t, v, env):
        if isinstance(t, ast.Name):
            env[t.id] = v
        elif isinstance(t, (ast.Tuple, ast.List)):
            vs = list(v) if isinstance(v, (tuple, list)) and len(v) == len(t.elts) else [UNKNOWN] * len(t.elts)
            for tt, vv in zip(t.elts, vs):
                self.assign(tt, vv, env)

    def block(self, stmts, env, depth):
        for st in stmts:
            self.stmt(st, env, depth)

    def stmt(self, st, env, depth):
        if self.steps > 200000:
            return
        if isinstance(st, ast.Assign):
            v = self.ev(st.value, env, depth)
            for t in st.targets:
                self.assign(t, v, env)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.assign(st.target, self.ev(st.value, env, depth), env)
        elif isinstance(st, ast.AugAssign):
            self.ev(st.value, env, depth)
            if isinstance(st.target, ast.Name):
                env[st.target.id] = UNKNOWN
        elif isinstance(st, ast.Expr):
            self.ev(st.value, env, depth)
        elif isinstance(st, ast.Return):
            raise _Return(self.ev(st.value, env, depth) if st.value is not None else None)
        elif isinstance(st, ast.If):
            c = self.ev(st.test, env, depth)
            if isinstance(c, bool) or c is None or isinstance(c, (int, str)):
                self.block(st.body if c else st.orelse, env, depth)
            else:
                self.block(st.body, env, depth)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            it = self.ev(st.iter, env, depth)
            first = UNKNOWN
            if isinstance(it, (list, tuple)) and it:
                first = it[0]
            elif isinstance(st.iter, ast.Call) and dotted(st.iter.func) == "range":
                first = 0
            self.assign(st.target, first, env)
            self.block(st.body, env, depth)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.block(st.body, env, depth)
        elif isinstance(st, ast.Try):
            self.block(st.body, env, depth)
        elif isinstance(st, ast.While):
            pass

    def run_module(self):
        for st in self.tree.body:
            if isinstance(st, (ast.Assign, ast.AnnAssign)):
                env = {}
                self.stmt(st, env, 0)
                self.module.update(env)
        roots = []
        for st in self.tree.body:
            if isinstance(st, ast.If) and "__main__" in ast.dump(st.test):
                roots.append(("main-block", st))
        for name in ("main",):
            if name in self.funcs and name not in self.kernels:
                roots.append(("func", self.funcs[name]))
        for n in self.tree.body:
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test") and n.name not in self.kernels:
                roots.append(("func", n))
        for kind, node in roots:
            try:
                if kind == "main-block":
                    self.block(node.body, dict(self.module), 0)
                else:
                    self.run_func(node, [], {}, 0, first_params=parametrize_first(node, self))
            except _Return:
                pass
            except RecursionError:
                pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


def parametrize_first(fn, evalr):
    out = {}
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and deco_last(d) == "parametrize" and len(d.args) >= 2:
            names = evalr.ev(d.args[0], {}, 0)
            vals = evalr.ev(d.args[1], {}, 0)
            if not isinstance(names, str) or not isinstance(vals, (list, tuple)) or not vals:
                continue
            names = [s.strip() for s in names.split(",") if s.strip()]
            first = vals[0]
            if len(names) == 1:
                out[names[0]] = first
            elif isinstance(first, (tuple, list)):
                out.update(zip(names, first))
    return out


def literal(v):
    """The --param literal of a value, or None when it has none."""
    if isinstance(v, DType):
        return str(v)
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return "None"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else None
    if isinstance(v, str):
        if v in DTYPE_NAMES:
            return v
        if "'" in v or "\\" in v or "\n" in v:
            return None
        return "'" + v + "'"
    if isinstance(v, (tuple, list)):
        items = [literal(x) for x in v]
        if any(i is None for i in items):
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


# Counts (batch, heads, groups, experts) multiply the problem: they are kept small.
COUNT_RE = re.compile(r"(?i)^(b|h|g|e|bs|bsz|batch\w*|\w*heads?\w*|\w*groups?|\w*experts?|num_\w+|n_\w+)$")
COUNT_CAP = 2
NOT_COUNT_RE = re.compile(r"(?i)block|tile|size|split|thread|stage|warp|pack|width|bits|dim")


def is_count(name):
    return bool(COUNT_RE.match(name)) and not NOT_COUNT_RE.search(name)


def guess(name):
    n = name.lower()
    if is_count(name):
        return COUNT_CAP
    if "dtype" in n or n in ("in_dtype", "out_dtype", "accum_dtype"):
        return DType("float32" if "accum" in n else "float16")
    if "thread" in n:
        return 128
    if "stage" in n:
        return 2
    if TILE_RE.search(name):
        return 64
    if n.startswith(("is_", "use_", "enable", "trans")) or n in ("causal", "is_causal"):
        return False
    return 256


def shrink(vals):
    tiles = [v for k, v in vals.items() if isinstance(v, int) and not isinstance(v, bool) and TILE_RE.search(k)
             and 0 < v <= 4096]
    lcm = 1
    for t in tiles:
        lcm = lcm * t // math.gcd(lcm, t)
        if lcm > 4096:
            lcm = 4096
    for k, v in list(vals.items()):
        if not isinstance(v, int) or isinstance(v, bool):
            continue
        if is_count(k) and v > COUNT_CAP:
            vals[k] = COUNT_CAP if v % COUNT_CAP == 0 else 1
        elif not TILE_RE.search(k) and v > CAP:
            new = lcm * max(1, -(-CAP // lcm))
            if new < v:
                vals[k] = new
    return vals


def bindings_for(k, ev):
    """(params: [(name, literal)], notes) for kernel k."""
    vals, shapes = ev.found.get(k.name, ({}, {}))
    notes = []
    if k.name in ev.found:
        notes.append("call site")
    else:
        notes.append("no call site")
    full = OrderedDict()
    defaults = {}
    for name, d in k.params:
        if name in k.tensor_params:
            continue
        if name in vals and not isinstance(vals[name], (Unknown, KernelRef, FuncRef, Tensor, Namespace)):
            full[name] = vals[name]
        elif d is not None:
            dv = ev.ev(d, {}, 0)
            defaults[name] = dv
            full[name] = dv
        else:
            full[name] = guess(name)
            notes.append("guessed " + name)
    # jit T.const dims: from .compile(M=..) keywords or unified with tensor shapes
    for c in k.consts:
        v = vals.get(c)
        if not isinstance(v, int):
            v = None
            for tname, sh in k.shapes.items():
                if tname in shapes and c in sh:
                    i = sh.index(c)
                    if i < len(shapes[tname]) and isinstance(shapes[tname][i], int):
                        v = shapes[tname][i]
                        break
        if v is None:
            v = guess(c)
            notes.append("guessed " + c)
        full[c] = v
    shrink(full)
    params = []
    for name, v in full.items():
        if name in defaults and defaults[name] is v:
            continue  # the default, as written
        lit = literal(v)
        if lit is None:
            if name not in defaults:
                notes.append("unbindable " + name)
            continue
        params.append((name, lit))
    return params, notes


def symbolic_dims(tree):
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and deco_last(n) in ("dynamic", "symbolic") and n.args:
            a = n.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier():
                if a.value not in out:
                    out.append(a.value)
    return out


def first_error(text):
    """The first error message of a tlc run, normalized into a cause."""
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        m = re.match(r"^(?:tlc: )?\S+?\.py:\d+:\d+: (.*)$", s)
        if m:
            return m.group(1)
        if s.startswith("tlc: ") or "error" in s.lower() or "MISMATCH" in s or "fail" in s.lower():
            return re.sub(r"^tlc: ", "", s)
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def normalize(msg):
    m = re.sub(r"/\S+", "PATH", msg)
    m = re.sub(r"\b(factory|function|kernel|parameter|module) '[^']*'", r"\1 '_'", m)
    m = re.sub(r"nothing named '[^']*'", "nothing named '_'", m)
    m = re.sub(r"\b\d+(\.\d+)?\b", "N", m)
    m = re.sub(r"'[A-Za-z_][A-Za-z_0-9]*' (is not defined|is not a)", r"'_' \1", m)
    return m[:160]


MEMORY_LIMIT = 4 << 30  # address space of one tlc run: a size that slipped through fails, not the machine


def limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(cmd, timeout, env, limit=False):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env,
                           preexec_fn=limit_memory if limit else None)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), time.time() - t0
    except subprocess.TimeoutExpired:
        return 124, "", "timeout after %ds" % timeout, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("upstream")
    ap.add_argument("--tlc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin",
                                                  "tlc"))
    ap.add_argument("--out", help="write the summary table here too")
    ap.add_argument("--json", help="write per-kernel results here")
    ap.add_argument("--filter", help="only files whose path matches this regex")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per command (check: a quarter)")
    ap.add_argument("--no-run", action="store_true", help="only tlc check")
    ap.add_argument("--no-cuda", action="store_true", help="skip the sm_90a build")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=1, help="kernels tried at once")
    ap.add_argument("--cpu-backend", default="native", help="execution backend of the CPU run (native, tcc)")
    args = ap.parse_args()

    files = []
    for sub in ("examples", os.path.join("testing", "python", "language")):
        root = os.path.join(args.upstream, sub)
        for d, _, fs in os.walk(root):
            files += [os.path.join(d, f) for f in fs if f.endswith(".py")]
    files.sort()
    if args.filter:
        files = [f for f in files if re.search(args.filter, f)]
    tmp = tempfile.mkdtemp(prefix="tl-coverage-")
    env = dict(os.environ)
    env["TILELANG_CACHE_DIR"] = os.path.join(tmp, "cache")
    work = []
    nfiles = 0
    for path in files:
        rel = os.path.relpath(path, args.upstream)
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        ks = find_kernels(tree)
        if not ks:
            continue
        nfiles += 1
        ev = Evaluator(tree, ks)
        ev.run_module()
        dims = symbolic_dims(tree)
        for k in ks:
            params, notes = bindings_for(k, ev)
            work.append((path, rel, k.name, k.kind, params, notes, dims))

    def one(item):
        path, rel, kname, kind, params, notes, dims = item
        base = [args.tlc, "", path, "--func", kname]
        for n, v in params:
            base += ["--param", "%s=%s" % (n, v)]
        r = OrderedDict(file=rel, kernel=kname, kind=kind, params=params, notes=notes)
        cmd = list(base)
        cmd[1] = "check"
        rc, out, err, dt = run(cmd, max(10, args.timeout // 4), env)
        r["check"] = rc == 0
        r["check_error"] = None if rc == 0 else first_error(err + out)
        if rc == 0 and not args.no_run:
            cmd = list(base)
            cmd[1] = "run"
            cmd += ["--check", "--target", "c", "--execution-backend", args.cpu_backend, "--cache-dir",
                    os.path.join(tmp, "cache")]
            use = list(dims)
            while True:  # a file's symbolic dims need not all belong to this kernel
                extra = []
                for d in use:
                    extra += ["--dim", "%s=%d" % (d, CAP)]
                rc, out, err, dt = run(cmd + extra, args.timeout, env, limit=True)
                m = re.search(r"--dim (\w+): '[^']*' has no symbolic dimension", err)
                if rc == 0 or not m or m.group(1) not in use:
                    break
                use.remove(m.group(1))
            r["cpu"] = rc == 0
            r["cpu_error"] = None if rc == 0 else first_error(err + out)
            r["cpu_s"] = round(dt, 2)
        if r["check"] and not args.no_cuda:
            cmd = list(base)
            cmd[1] = "run"
            cmd += ["--target", CUDA_TARGET, "--execution-backend", "nvrtc", "--no-cache"]
            rc, out, err, dt = run(cmd, args.timeout, env)
            built = re.search(r"execution backend nvrtc, compiled in", out) is not None
            r["cuda"] = built
            r["cuda_error"] = None if built else first_error(err + out)
        print("%-70s %-28s check:%s cpu:%s cuda:%s" % (
            rel[:70], kname[:28], "ok" if r["check"] else "no", {True: "ok", False: "no"}.get(r.get("cpu"), "-"),
            {True: "ok", False: "no"}.get(r.get("cuda"), "-")), file=sys.stderr, flush=True)
        return r

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, work))

    lines = summarize(results, nfiles, args)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def summarize(results, nfiles, args):
    n = len(results)
    ok_check = sum(r["check"] for r in results)
    ok_cpu = sum(bool(r.get("cpu")) for r in results)
    ok_cuda = sum(bool(r.get("cuda")) for r in results)
    both = sum(bool(r.get("cpu")) and bool(r.get("cuda")) for r in results)
    files = OrderedDict()
    for r in results:
        f = files.setdefault(r["file"], [True, True, True])
        f[0] &= r["check"]
        f[1] &= bool(r.get("cpu"))
        f[2] &= bool(r.get("cuda"))
    pct = lambda a, b: "%5.1f%%" % (100.0 * a / b) if b else "  -  "
    L = ["# upstream TileLang coverage: %d kernels in %d files (examples/, testing/python/language/)" % (n, nfiles),
         "",
         "| stage | kernels | % | files (all kernels) |",
         "| --- | --- | --- | --- |",
         "| tlc check | %d | %s | %d |" % (ok_check, pct(ok_check, n), sum(f[0] for f in files.values())),
         "| tlc run --check, target c | %d | %s | %d |" % (ok_cpu, pct(ok_cpu, n), sum(f[1] for f in files.values())),
         "| build for cuda sm_90a (nvrtc) | %d | %s | %d |" % (ok_cuda, pct(ok_cuda, n),
                                                               sum(f[2] for f in files.values())),
         "| cpu run --check and sm_90a build | %d | %s | |" % (both, pct(both, n)),
         ""]
    for stage, key in (("check", "check_error"), ("cpu run --check", "cpu_error"), ("cuda sm_90a build",
                                                                                     "cuda_error")):
        c = Counter(normalize(r[key]) for r in results if r.get(key))
        if not c:
            continue
        L.append("## first causes of failure: %s (%d kernels, top %d)" % (stage, sum(c.values()), args.top))
        L.append("")
        for msg, cnt in c.most_common(args.top):
            L.append("%4d  %s" % (cnt, msg))
        L.append("")
    return L


if __name__ == "__main__":
    main()

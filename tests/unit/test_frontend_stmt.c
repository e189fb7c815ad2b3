/* The front end's statements: every construct of the subset, checked on the IR
 * it produces (structure, kinds, regions) and on its printed form, plus the
 * errors for constructs outside it. */
#include "frontend_test.h"

#define IMPORTS "import tilelang\nimport tilelang.language as T\n\n\n"

static tl_ir_module *parse_ok(const char *src) {
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse(src, "t.py", NULL, &m);
  if (s != TL_OK) fail_msg("parse failed: %s\n%s", tl_last_error(), src);
  if (tl_ir_verify_module(m) != TL_OK) fail_msg("does not verify: %s\n%s", tl_last_error(), src);
  /* Every accepted program round-trips through the printer. */
  char *text = tl_ir_print_module(m);
  tl_ir_module *m2 = NULL;
  if (tl_ir_parse(text, "printed.py", NULL, &m2) != TL_OK) fail_msg("printed text does not parse: %s\n%s", tl_last_error(), text);
  if (!tl_ir_module_equal(m, m2)) fail_msg("parse(print(m)) differs:\n%s", text);
  tl_ir_module_free(m2);
  tl_free(text);
  return m;
}

static void expect_print(const char *src, const char *expected) {
  tl_ir_module *m = parse_ok(src);
  char *text = tl_ir_print_module(m);
  if (strcmp(text, expected) != 0) fail_msg("printed:\n%s\nexpected:\n%s", text, expected);
  tl_free(text);
  tl_ir_module_free(m);
}

static void expect_err(const char *src, const char *needle) {
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse(src, "t.py", NULL, &m);
  if (s != TL_EINVAL) fail_msg("expected an error containing \"%s\" for:\n%s", needle, src);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("message\n%s\nlacks \"%s\"", tl_last_error(), needle);
}

/* The statements of the first function's T.Kernel body. */
static const tl_ir_stmt *kernel_of(const tl_ir_module *m) {
  const tl_ir_stmt *k = tl_ir_module_func(m, 0)->body->u.seq.stmts[0];
  assert_int_equal(k->kind, TL_STMT_KERNEL);
  return k;
}
static const tl_ir_stmt *kstmt(const tl_ir_module *m, uint32_t i) {
  const tl_ir_stmt *b = kernel_of(m)->u.kernel.body;
  assert_int_equal(b->kind, TL_STMT_SEQ);
  assert_true(i < b->u.seq.n);
  return b->u.seq.stmts[i];
}
static int64_t ival(const tl_ir_expr *e) {
  assert_int_equal(e->kind, TL_EXPR_INT);
  return e->u.int_value;
}

static void test_loops(void **state) {
  (void)state;
  const char *src = IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\")):\n"
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        for i, j in T.Parallel(8, 8):\n"
    "            A[i, j] = 0.0\n"
    "        for k in range(2, 6):\n"
    "            A[k, 0] = 1.0\n"
    "        for k in T.serial(4):\n"
    "            A[k, 1] = 1.0\n"
    "        for k in T.Serial(bx, bx + 3):\n"
    "            A[k, 2] = 1.0\n"
    "        for k in T.Pipelined(8, num_stages=2):\n"
    "            A[k, 3] = 1.0\n"
    "        for k in T.unroll(4):\n"
    "            A[k, 4] = 1.0\n"
    "        for k in T.vectorized(4):\n"
    "            A[k, 5] = 1.0\n"
    "        for (i, j) in T.grid(2, 3):\n"
    "            A[i, j] = 2.0\n"
    "        for k in range(1, 1 + bx):\n"
    "            A[k, 6] = 1.0\n";
  tl_ir_module *m = parse_ok(src);
  const tl_ir_stmt *s = kstmt(m, 0);
  assert_int_equal(s->u.loop.kind, TL_FOR_PARALLEL);
  assert_int_equal(s->u.loop.n, 2);
  assert_string_equal(s->u.loop.vars[0]->name, "i");
  assert_string_equal(s->u.loop.vars[1]->name, "j");
  assert_int_equal(ival(s->u.loop.mins[1]), 0);
  assert_int_equal(ival(s->u.loop.extents[1]), 8);
  s = kstmt(m, 1);
  assert_int_equal(s->u.loop.kind, TL_FOR_SERIAL);
  assert_int_equal(ival(s->u.loop.mins[0]), 2);
  assert_int_equal(ival(s->u.loop.extents[0]), 4);
  s = kstmt(m, 3);
  assert_int_equal(s->u.loop.mins[0]->kind, TL_EXPR_VAR);
  assert_int_equal(ival(s->u.loop.extents[0]), 3); /* stop written as start + 3 */
  s = kstmt(m, 4);
  assert_int_equal(s->u.loop.kind, TL_FOR_PIPELINED);
  assert_int_equal(s->u.loop.num_stages, 2);
  assert_int_equal(kstmt(m, 5)->u.loop.kind, TL_FOR_UNROLLED);
  assert_int_equal(kstmt(m, 6)->u.loop.kind, TL_FOR_VECTORIZED);
  s = kstmt(m, 7);
  assert_int_equal(s->u.loop.kind, TL_FOR_SERIAL);
  assert_int_equal(s->u.loop.n, 2);
  s = kstmt(m, 8);
  assert_int_equal(ival(s->u.loop.mins[0]), 1);
  assert_int_equal(s->u.loop.extents[0]->kind, TL_EXPR_VAR);
  tl_ir_module_free(m);
  expect_print(src, IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\")):\n"
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        for i, j in T.Parallel(8, 8):\n"
    "            A[i, j] = 0.0\n"
    "        for k in T.serial(2, 6):\n"
    "            A[k, 0] = 1.0\n"
    "        for k in T.serial(4):\n"
    "            A[k, 1] = 1.0\n"
    "        for k in T.serial(bx, bx + 3):\n"
    "            A[k, 2] = 1.0\n"
    "        for k in T.Pipelined(8, num_stages=2):\n"
    "            A[k, 3] = 1.0\n"
    "        for k in T.unroll(4):\n"
    "            A[k, 4] = 1.0\n"
    "        for k in T.vectorized(4):\n"
    "            A[k, 5] = 1.0\n"
    "        for i, j in T.grid(2, 3):\n"
    "            A[i, j] = 2.0\n"
    "        for k in T.serial(1, 1 + bx):\n"
    "            A[k, 6] = 1.0\n");
}

static void test_if(void **state) {
  (void)state;
  const char *src = IMPORTS
    "FLAG = 2 > 1\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def f(A: T.Tensor((4, 4), \"float32\")):\n"
    "    with T.Kernel(3, threads=128) as bx:\n"
    "        if bx == 0:\n"
    "            A[0, 0] = 1.0\n"
    "        elif bx == 1:\n"
    "            A[0, 0] = 2.0\n"
    "        else:\n"
    "            A[0, 0] = 3.0\n"
    "        if FLAG:\n"
    "            t = A[1, 1]\n"
    "        else:\n"
    "            t = A[2, 2]\n"
    "        A[3, 3] = t\n"
    "        if bx:\n"
    "            pass\n";
  tl_ir_module *m = parse_ok(src);
  const tl_ir_stmt *s = kstmt(m, 0);
  assert_int_equal(s->kind, TL_STMT_IF);
  assert_int_equal(s->u.if_.else_->kind, TL_STMT_SEQ);
  assert_int_equal(s->u.if_.else_->u.seq.stmts[0]->kind, TL_STMT_IF);
  /* The static if left its chosen branch in the block: t is a LET over the rest. */
  assert_int_equal(kstmt(m, 1)->kind, TL_STMT_LET);
  tl_ir_module_free(m);
  expect_print(src, IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((4, 4), \"float32\")):\n"
    "    with T.Kernel(3, threads=128) as bx:\n"
    "        if bx == 0:\n"
    "            A[0, 0] = 1.0\n"
    "        elif bx == 1:\n"
    "            A[0, 0] = 2.0\n"
    "        else:\n"
    "            A[0, 0] = 3.0\n"
    "        t = A[1, 1]\n"
    "        A[3, 3] = t\n"
    "        if bx != 0:\n"
    "            pass\n");
}

static void test_bindings(void **state) {
  (void)state;
  const char *src = IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\"), I: T.Tensor((2,), \"int32\")):\n"
    "    \"\"\"A docstring.\"\"\"\n"
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        x = A[0, 0]\n"
    "        y = x * 2\n"
    "        x = y + 1\n"
    "        acc = T.alloc_var(\"float32\")\n"
    "        acc = 0.0\n"
    "        for k in T.serial(8):\n"
    "            acc += A[k, 0]\n"
    "            A[k, 1] += acc\n"
    "        A[0, 0] = acc + x\n"
    "        v = T.alloc_var(T.int32, 5)\n"
    "        n: T.int32 = 3\n"
    "        I[0] = v + n\n"
    "        s0, s1 = 1, bx * 2\n"
    "        I[1] = s0 + s1\n"
    "        c = 4\n"
    "        I[0] = c\n";
  tl_ir_module *m = parse_ok(src);
  const tl_ir_stmt *s = kstmt(m, 0);
  assert_int_equal(s->kind, TL_STMT_LET);
  assert_string_equal(s->u.let.var->name, "x");
  /* y = x * 2 then x = y + 1 (a new LET shadowing x), each over the rest. */
  const tl_ir_stmt *y = s->u.let.body->u.seq.stmts[0];
  assert_int_equal(y->kind, TL_STMT_LET);
  const tl_ir_stmt *x2 = y->u.let.body->u.seq.stmts[0];
  assert_int_equal(x2->kind, TL_STMT_LET);
  assert_true(x2->u.let.var != s->u.let.var);
  tl_ir_module_free(m);
  expect_print(src, IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\"), I: T.Tensor((2,), \"int32\")):\n"
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        x = A[0, 0]\n"
    "        y = x * 2.0\n"
    "        x_1 = y + 1.0\n"
    "        acc = T.alloc_var(\"float32\")\n"
    "        acc = 0.0\n"
    "        for k in T.serial(8):\n"
    "            acc = acc + A[k, 0]\n"
    "            A[k, 1] = A[k, 1] + acc\n"
    "        A[0, 0] = acc + x_1\n"
    "        v = T.alloc_var(\"int32\")\n"
    "        v = 5\n"
    "        n = T.int32(3)\n"
    "        I[0] = v + n\n"
    "        s1 = bx * 2\n"
    "        I[1] = 1 + s1\n"
    "        I[0] = 4\n");
}

static void test_kernel(void **state) {
  (void)state;
  const char *src = IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(2, 3, 4, threads=[32, 2]) as (x, y, z):\n"
    "        A[0] = 1.0\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def g(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(2, 3):\n"
    "        A[0] = 1.0\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def h(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(1, threads=64) as (b,):\n"
    "        A[b] = 1.0\n";
  tl_ir_module *m = parse_ok(src);
  const tl_ir_stmt *k = kernel_of(m);
  assert_int_equal(k->u.kernel.grid_ndim, 3);
  assert_int_equal(k->u.kernel.threads_ndim, 2);
  assert_string_equal(k->u.kernel.block_vars[2]->name, "z");
  /* Unbound block indices still exist, named bx, by; threads default to 128. */
  const tl_ir_stmt *kg = tl_ir_module_func(m, 1)->body->u.seq.stmts[0];
  assert_non_null(kg->u.kernel.block_vars[0]);
  assert_string_equal(kg->u.kernel.block_vars[1]->name, "by");
  assert_int_equal(kg->u.kernel.threads_ndim, 1);
  assert_int_equal(ival(kg->u.kernel.threads[0]), 128);
  tl_ir_module_free(m);
  expect_print(src, IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(2, 3, 4, threads=(32, 2)) as (x, y, z):\n"
    "        A[0] = 1.0\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def g(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(2, 3, threads=128) as (bx, by):\n"
    "        A[0] = 1.0\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def h(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(1, threads=64) as b:\n"
    "        A[b] = 1.0\n");
}

static void test_regions(void **state) {
  (void)state;
  const char *src = IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((64, 64), \"float16\"), B: T.Tensor((4, 64, 64), \"float16\"), F: T.Tensor((64,), \"float16\"),\n"
    "      C: T.Tensor((32, 32), \"float32\")):\n"
    "    with T.Kernel(2, threads=128) as bx:\n"
    "        S = T.alloc_shared((32, 32), \"float16\")\n"
    "        R = T.alloc_fragment((32,), \"float32\")\n"
    "        Acc = T.alloc_fragment((32, 32), \"float32\")\n"
    "        T.copy(A[bx * 32, 0], S)\n"
    "        T.copy(S, B[1, bx * 32, 0])\n"
    "        T.copy(A[0:32, 32:64], S)\n"
    "        T.copy(A[bx * 32:bx * 32 + 32, :32], S)\n"
    "        T.copy(B[2, :, 5], F)\n"
    "        T.copy(A[bx, :], F)\n"
    "        T.fill(S, 0)\n"
    "        T.clear(Acc)\n"
    "        T.atomic_add(C[0, 0], 1)\n"
    "        T.atomic_add(C[0:32, 0:32], Acc)\n"
    "        T.atomic_add(C[0, 0], Acc)\n"
    "        T.reduce_sum(Acc, R, dim=-1)\n"
    "        T.reduce_max(Acc, R, 0, False)\n"
    "        T.reduce_min(Acc, R)\n"
    "        T.reduce_abssum(Acc, R, dim=1)\n"
    "        T.reduce_absmax(Acc, R, dim=1, clear=True)\n"
    "        T.cumsum(Acc)\n"
    "        T.cumsum(Acc, Acc, dim=1, reverse=True)\n"
    "        T.gemm(S, S, Acc, transpose_B=True, clear_accum=True)\n"
    "        T.gemm(S, S, Acc, True, policy=T.GemmWarpPolicy.FullRow)\n"
    "        T.sync_threads()\n";
  tl_ir_module *m = parse_ok(src);
  /* T.copy(A[bx * 32, 0], S): a point whose extents are S's shape. */
  const tl_ir_expr *c = kstmt(m, 3)->u.eval.expr;
  assert_int_equal(c->u.call.op, TL_OP_COPY);
  const tl_ir_expr *r = c->u.call.args[0];
  assert_int_equal(r->u.region.form, TL_REGION_POINT);
  assert_int_equal(ival(r->u.region.extents[0]), 32);
  assert_int_equal(c->u.call.args[1]->u.region.form, TL_REGION_FULL);
  /* T.copy(S, B[1, bx * 32, 0]): aligned to the trailing dimensions, leading extent 1. */
  r = kstmt(m, 4)->u.eval.expr->u.call.args[1];
  assert_int_equal(ival(r->u.region.extents[0]), 1);
  assert_int_equal(ival(r->u.region.extents[1]), 32);
  assert_int_equal(ival(r->u.region.extents[2]), 32);
  /* A[0:32, 32:64]: a slice. */
  r = kstmt(m, 5)->u.eval.expr->u.call.args[0];
  assert_int_equal(r->u.region.form, TL_REGION_SLICE);
  assert_int_equal(ival(r->u.region.mins[1]), 32);
  assert_int_equal(ival(r->u.region.extents[1]), 32);
  /* lo:lo + 32 gives the extent 32 itself. */
  r = kstmt(m, 6)->u.eval.expr->u.call.args[0];
  assert_int_equal(ival(r->u.region.extents[0]), 32);
  /* B[2, :, 5]: plain indices have extent 1, ':' the whole dimension. */
  r = kstmt(m, 7)->u.eval.expr->u.call.args[0];
  assert_int_equal(ival(r->u.region.extents[0]), 1);
  assert_int_equal(ival(r->u.region.extents[1]), 64);
  assert_int_equal(ival(r->u.region.extents[2]), 1);
  /* T.fill's value takes the buffer's dtype. */
  const tl_ir_expr *fill = kstmt(m, 9)->u.eval.expr;
  assert_int_equal(fill->u.call.args[1]->kind, TL_EXPR_FLOAT);
  assert_true(tl_dtype_eq(fill->u.call.args[1]->dtype, TL_DT_FLOAT16));
  /* T.atomic_add(C[0, 0], 1): a point of extents 1. */
  r = kstmt(m, 11)->u.eval.expr->u.call.args[0];
  assert_int_equal(ival(r->u.region.extents[0]), 1);
  /* T.atomic_add(C[0, 0], Acc): extents from the value region. */
  r = kstmt(m, 13)->u.eval.expr->u.call.args[0];
  assert_int_equal(ival(r->u.region.extents[0]), 32);
  /* reduce: dim -1 normalized, clear defaults to 1. */
  const tl_ir_expr *red = kstmt(m, 14)->u.eval.expr;
  assert_int_equal(ival(red->u.call.args[2]), 1);
  assert_int_equal(ival(red->u.call.args[3]), 1);
  red = kstmt(m, 15)->u.eval.expr;
  assert_int_equal(ival(red->u.call.args[2]), 0);
  assert_int_equal(ival(red->u.call.args[3]), 0);
  /* T.cumsum(Acc) is in place along dim 0. */
  const tl_ir_expr *cs = kstmt(m, 19)->u.eval.expr;
  assert_int_equal(cs->u.call.op, TL_OP_CUMSUM);
  assert_ptr_equal(cs->u.call.args[1]->u.region.buffer, cs->u.call.args[0]->u.region.buffer);
  assert_int_equal(ival(cs->u.call.args[2]), 0);
  assert_int_equal(ival(cs->u.call.args[3]), 0);
  const tl_ir_expr *g = kstmt(m, 21)->u.eval.expr;
  assert_int_equal(g->u.call.nargs, 7);
  assert_int_equal(ival(g->u.call.args[3]), 0);
  assert_int_equal(ival(g->u.call.args[4]), 1);
  assert_int_equal(ival(g->u.call.args[5]), 1);
  assert_int_equal(ival(g->u.call.args[6]), 0); /* policy: Square by default, as upstream */
  assert_int_equal(ival(kstmt(m, 22)->u.eval.expr->u.call.args[3]), 1); /* positional transpose_A */
  assert_int_equal(ival(kstmt(m, 22)->u.eval.expr->u.call.args[6]), 1); /* T.GemmWarpPolicy.FullRow */
  assert_int_equal(kstmt(m, 23)->kind, TL_STMT_BARRIER);
  tl_ir_module_free(m);
  expect_print(src, IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Tensor((64, 64), \"float16\"), B: T.Tensor((4, 64, 64), \"float16\"), F: T.Tensor((64,), \"float16\"), "
    "C: T.Tensor((32, 32), \"float32\")):\n"
    "    with T.Kernel(2, threads=128) as bx:\n"
    "        S = T.alloc_shared((32, 32), \"float16\")\n"
    "        R = T.alloc_fragment((32,), \"float32\")\n"
    "        Acc = T.alloc_fragment((32, 32), \"float32\")\n"
    "        T.copy(A[bx * 32, 0], S)\n"
    "        T.copy(S, B[1, bx * 32, 0])\n"
    "        T.copy(A[:32, 32:64], S)\n"
    "        T.copy(A[bx * 32:bx * 32 + 32, :32], S)\n"
    "        T.copy(B[2, :, 5], F)\n"
    "        T.copy(A[bx, :], F)\n"
    "        T.fill(S, 0.0)\n"
    "        T.clear(Acc)\n"
    "        T.atomic_add(C[0, 0], 1.0)\n"
    "        T.atomic_add(C[:, :], Acc)\n"
    "        T.atomic_add(C[0, 0], Acc)\n"
    "        T.reduce_sum(Acc, R, dim=1)\n"
    "        T.reduce_max(Acc, R, dim=0, clear=False)\n"
    "        T.reduce_min(Acc, R, dim=1)\n"
    "        T.reduce_abssum(Acc, R, dim=1)\n"
    "        T.reduce_absmax(Acc, R, dim=1)\n"
    "        T.cumsum(Acc, Acc, dim=0)\n"
    "        T.cumsum(Acc, Acc, dim=1, reverse=True)\n"
    "        T.gemm(S, S, Acc, transpose_B=True, clear_accum=True)\n"
    "        T.gemm(S, S, Acc, transpose_A=True, policy=T.GemmWarpPolicy.FullRow)\n"
    "        T.sync_threads()\n");
}

static void test_params(void **state) {
  (void)state;
  const char *src = IMPORTS
    "@T.prim_func\n"
    "def f(A: T.Buffer((4, 4), dtype=\"float32\"), B: T.Tensor[(4, 4), T.float16], C: T.Tensor((4,)), n: T.int32,\n"
    "      s: T.float32):\n"
    "    with T.Kernel(1, threads=32) as bx:\n"
    "        A[0, 0] = s * n\n";
  tl_ir_module *m = parse_ok(src);
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  assert_int_equal(f->nparams, 5);
  assert_int_equal(f->params[0].kind, TL_PARAM_BUFFER);
  assert_int_equal(f->params[0].buffer->scope, TL_SCOPE_GLOBAL);
  assert_true(tl_dtype_eq(f->params[1].buffer->dtype, TL_DT_FLOAT16));
  assert_true(tl_dtype_eq(f->params[2].buffer->dtype, TL_DT_FLOAT32)); /* TileLang's default */
  assert_int_equal(f->params[3].kind, TL_PARAM_SCALAR);
  assert_true(tl_dtype_eq(f->params[3].var->dtype, TL_DT_INT32));
  assert_string_equal(f->params[4].name, "s");
  assert_true(f->params[0].var == f->params[0].buffer->data);
  tl_ir_module_free(m);
}

static void test_errors(void **state) {
  (void)state;
#define K(body) IMPORTS "@T.prim_func\ndef f(A: T.Tensor((8, 8), \"float32\")):\n" body
#define IN_KERNEL(body) K("    with T.Kernel(1, threads=128) as bx:\n" body)
  expect_err(K("    T.clear(A)\n"), "t.py:7:5: T.clear must be inside a T.Kernel block");
  expect_err(K("    S = T.alloc_shared((4,), \"float32\")\n"), "T.alloc_shared must be inside a T.Kernel block");
  expect_err(K("    with T.Kernel(1, 2) as bx:\n        pass\n"), "T.Kernel has 2 grid dimensions but 'as' binds 1 name");
  expect_err(K("    with T.Kernel(1, threads=32, prelude=1) as bx:\n        pass\n"), "T.Kernel argument 'prelude' is not supported");
  expect_err(K("    with T.Kernel(1, 1, 1, 1) as bx:\n        pass\n"), "T.Kernel takes 0 to 3 grid extents, got 4");
  expect_err(K("    with open(A) as bx:\n        pass\n"), "only 'with T.Kernel(...)' is supported");
  expect_err(K("    with opn(A) as bx:\n        pass\n"), "name 'opn' is not defined");
  expect_err(IN_KERNEL("        for i in A:\n            pass\n"), "a for loop must iterate over T.Parallel");
  expect_err(IN_KERNEL("        for i in T.Parallel(8, coalesced_width=2):\n            pass\n"),
             "T.Parallel argument 'coalesced_width' is not supported");
  expect_err(IN_KERNEL("        for i in T.Pipelined(8, num_stages=2, num_stage=[0]):\n            pass\n"),
             "T.Pipelined got an unexpected keyword argument 'num_stage'");
  expect_err(IN_KERNEL("        for i in T.serial(8):\n            break\n"), "'break' in kernel code is not supported yet");
  expect_err(IN_KERNEL("        return A\n"), "'return' is not allowed in a T.prim_func");
  expect_err(IN_KERNEL("        @T.prim_func\n        def g():\n            pass\n"), "a kernel cannot be defined inside a kernel");
  expect_err(IN_KERNEL("        import math\n        A[0, 0] = math.sqrt\n"), "math.sqrt cannot be used in a kernel");
  expect_err(IN_KERNEL("        for i in T.serial(8):\n            i = 2\n"), "cannot assign to loop variable 'i'");
  expect_err(IN_KERNEL("        A = 2\n"), "cannot assign to parameter 'A'");
  expect_err(IN_KERNEL("        bx = 2\n"), "cannot assign to block index 'bx'");
  expect_err(IN_KERNEL("        A[0:2, 0] = 1.0\n"), "assignment to a buffer slice is not supported");
  expect_err(IN_KERNEL("        x = A[0, 0]\n        if bx == 0:\n            x = 1.0\n"),
             "cannot reassign 'x' inside a nested block");
  expect_err(IN_KERNEL("        A.shape = 3\n"), "cannot assign to this target");
  expect_err(IN_KERNEL("        T.exp(A[0, 0])\n"), "this expression has no effect");
  expect_err(IN_KERNEL("        T.copy(A, 1.0)\n"), "T.copy expects a buffer or a buffer region, got a float");
  expect_err(IN_KERNEL("        T.copy(A[0], A)\n"), "buffer 'A' has 2 dimensions but the region of T.copy gives 1");
  expect_err(IN_KERNEL("        T.copy(A[0:4:2, 0], A)\n"), "slice steps are not supported");
  expect_err(IN_KERNEL("        T.gemm(A[0, 0], A, A)\n"), "T.gemm needs whole buffers or slices, not a single element");
  expect_err(IN_KERNEL("        T.gemm(A, A, A, policy=7)\n"), "T.gemm: policy 7 is not a T.GemmWarpPolicy (0 Square, 1 FullRow, 2 FullCol)");
  expect_err(IN_KERNEL("        T.gemm(A, A, A, policy=T.GemmWarpPolicy.Square, k_pak=1)\n"), "T.gemm got an unexpected keyword argument 'k_pak'");
  expect_err(IN_KERNEL("        T.reduce_sum(A, A, dim=2)\n"), "T.reduce_sum: dim 2 is out of range for a 2-dimensional buffer");
  expect_err(IN_KERNEL("        T.reduce_sum(A, A, dim=bx)\n"), "dim must be a compile-time integer");
  expect_err(IN_KERNEL("        T.gemm(A, A, A, transpose_A=bx)\n"), "transpose_A must be True or False");
  expect_err(IN_KERNEL("        T.cumsum(A[0, 0])\n"), "T.cumsum in place needs a whole buffer or a slice");
  expect_err(IN_KERNEL("        T.sync_threads(1)\n"), "T.sync_threads takes no arguments");
  expect_err(IN_KERNEL("        v = T.alloc_var(\"float32\")\n        v[0] = 1.0\n"), "'v' is a T.alloc_var scalar");
  expect_err(IN_KERNEL("        S = T.alloc_shared((4,), \"float32\", scope=\"global\")\n"),
             "the scope of T.alloc_shared must be \"shared\" or \"shared.dyn\"");
  expect_err(IN_KERNEL("        S = T.alloc_shared((), \"float32\")\n"), "a shape needs at least one dimension");
  expect_err(IN_KERNEL("        S = T.alloc_shared((-4,), \"float32\")\n"), "dimension 0 of the shape is negative");
  expect_err(IN_KERNEL("        a, b = 1, 2, 3\n"), "cannot unpack a tuple into 2 names");
  expect_err(IN_KERNEL("        x = print\n"), "Python's builtin 'print' (not evaluated by the front end) cannot be used in a kernel");
  expect_err(IN_KERNEL("        x = prnt\n"), "name 'prnt' is not defined");
  expect_err(IN_KERNEL("        for i in T.serial(4):\n            acc = A[i, 0]\n        A[0, 0] = acc\n"),
             "name 'acc' is not defined");
  expect_err(IN_KERNEL("        try:\n            pass\n"), "'try' statements are not supported");
  expect_err(IN_KERNEL("        x = [*A]\n"), "starred expressions are not supported");
  expect_err(IN_KERNEL("        T.copy(*A)\n"), "argument unpacking (*args, **kwargs) is not supported");
  expect_err(IN_KERNEL("        x = 1 if bx else\n"), "expected an expression, found end of line");
  expect_err(IN_KERNEL("        x = a = 1 +\n"), "expected an expression, found end of line");
  expect_err(IN_KERNEL("        global y\n"), "'global' declarations are not supported");
  expect_err(IN_KERNEL("        assert bx < 4\n"), "'assert' on a run-time value is not supported in a kernel");
  expect_err(IN_KERNEL("        for i in T.serial(4):\n            pass\n        else:\n            pass\n"),
             "'for ... else' is not supported");
  expect_err(IN_KERNEL("        with T.Kernel(1) as by, T.Kernel(2) as bz:\n            pass\n"),
             "several context managers in one 'with' are not supported");
  expect_err(K("pass\n"), "expected an indented block after function definition on line 6");
  expect_err(IMPORTS "@T.prim_func\ndef f(A: T.Tensor((8,), \"float32\") = 3):\n    pass\n", "cannot have defaults");
  expect_err(IMPORTS "@T.prim_func\ndef f(A):\n    pass\n", "parameter 'A' needs a type");
  expect_err(IMPORTS "@T.prim_func\ndef f(A: int):\n    pass\n", "parameter 'A' needs a type");
  expect_err(IMPORTS "@T.prim_func\ndef f(*A):\n    pass\n", "a T.prim_func cannot take *args parameters");
  expect_err(IMPORTS "@T.prim_func\ndef f(A: T.Tensor[4]):\n    pass\n", "write the tensor type as T.Tensor[shape, dtype]");
#undef IN_KERNEL
#undef K
}

/* Deep nesting is an error, never a stack overflow. */
static void test_limits(void **state) {
  (void)state;
  char *src = malloc(200000);
  strcpy(src, IMPORTS "x = ");
  for (int i = 0; i < 5000; i++) strcat(src, "(");
  strcat(src, "1");
  for (int i = 0; i < 5000; i++) strcat(src, ")");
  strcat(src, "\n");
  expect_err(src, "too many nested parentheses");
  strcpy(src, IMPORTS "x = ");
  for (int i = 0; i < 5000; i++) strcat(src, "-");
  strcat(src, "1\n");
  expect_err(src, "expression nested too deeply");
  strcpy(src, IMPORTS "x = 1");
  for (int i = 0; i < 5000; i++) strcat(src, " + 1");
  strcat(src, "\n");
  expect_err(src, "expression nested too deeply");
  /* 150 nested if blocks. */
  strcpy(src, IMPORTS);
  for (int i = 0; i < 150; i++) {
    for (int k = 0; k < i; k++) strcat(src, " ");
    strcat(src, "if x:\n");
  }
  for (int k = 0; k < 150; k++) strcat(src, " ");
  strcat(src, "pass\n");
  expect_err(src, "too many levels of indentation");
  /* Run-time assignments nest (each LET holds the rest of its block). */
  strcpy(src, IMPORTS "@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n");
  for (int i = 0; i < 1200; i++) strcat(src, "        x = A[0] + 1.0\n");
  expect_err(src, "too many nested assignments (more than 1000");
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_loops),   cmocka_unit_test(test_if),      cmocka_unit_test(test_bindings),
    cmocka_unit_test(test_kernel),  cmocka_unit_test(test_regions), cmocka_unit_test(test_params),
    cmocka_unit_test(test_errors),  cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

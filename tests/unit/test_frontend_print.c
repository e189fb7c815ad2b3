/* The printer on IR built by hand: lowered constructs (asserts, launches,
 * thread-bound loops and variables, barriers, vectors, strides, calling
 * conventions, attributes), unique names, constants that a bare literal would
 * misread, and the round trip of tile-level IR. */
#include <math.h>

#include "frontend_test.h"

static tl_ir_module *M;

static int setup(void **state) {
  (void)state;
  return tl_ir_module_create(&M) == TL_OK ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  tl_ir_module_free(M);
  M = NULL;
  return 0;
}

static tl_ir_expr *i32(int64_t v) { return tl_ir_i32(M, v); }
static tl_ir_expr *ref(tl_ir_var *v) { return tl_ir_var_ref(M, v); }
static tl_ir_stmt *seq1(tl_ir_stmt *s) { return tl_ir_seq(M, 1, &s); }

static void expect_text(char *got, const char *expected) {
  assert_non_null(got);
  if (strcmp(got, expected) != 0) fail_msg("printed:\n%s\nexpected:\n%s", got, expected);
  tl_free(got);
}

static void test_lowered(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_ir_module_set_attr_str(M, "target", "{\"kind\":\"c\"}"));
  /* host entry: checks n, launches the device kernel */
  tl_ir_func *host, *dev;
  TL_ASSERT_OK(tl_ir_func_new(M, "host", &host));
  host->callconv = TL_CALLCONV_PACKED;
  tl_ir_expr *shape = i32(16);
  tl_ir_buffer *A = tl_ir_buffer_new(M, "A", TL_DT_FLOAT32, 1, &shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *n = tl_ir_var_new(M, "n", TL_DT_INT32);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, host, A, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, host, n));
  TL_ASSERT_OK(tl_ir_func_set_attr_str(M, host, "tl.kernel_source_name", "dev"));
  TL_ASSERT_OK(tl_ir_func_set_attr_int(M, host, "tl.num_kernels", 1));
  tl_ir_expr *cd[2] = {ref(n), i32(4)};
  tl_ir_expr *grid[3] = {tl_ir_call(M, TL_OP_CEILDIV, TL_DT_INT32, 2, cd), i32(1), i32(1)};
  tl_ir_expr *block[3] = {i32(4), i32(1), i32(1)};
  tl_ir_expr *args[2] = {ref(A->data), ref(n)};
  tl_ir_stmt *hs[2] = {
    tl_ir_assert(M, tl_ir_binary(M, TL_BIN_GT, ref(n), i32(0)), "n must be \"positive\"\n"),
    tl_ir_launch(M, "dev", 2, args, grid, block, i32(64)),
  };
  host->body = tl_ir_seq(M, 2, hs);
  /* device kernel: flattened buffer with strides, thread variables, vectors */
  TL_ASSERT_OK(tl_ir_func_new(M, "dev", &dev));
  dev->callconv = TL_CALLCONV_DEVICE_KERNEL;
  tl_ir_expr *st = i32(1);
  tl_ir_buffer *Ad = tl_ir_buffer_new(M, "A", TL_DT_FLOAT32, 1, &shape, &st, TL_SCOPE_GLOBAL);
  tl_ir_var *nd = tl_ir_var_new(M, "n", TL_DT_INT32);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, dev, Ad, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, dev, nd));
  tl_ir_var *bx = tl_ir_var_new(M, "bx", TL_DT_INT32);
  bx->thread_tag = "blockIdx.x";
  tl_ir_var *tx = tl_ir_var_new(M, "tx", TL_DT_INT32);
  tx->thread_tag = "threadIdx.x";
  tl_ir_var *ty = tl_ir_var_new(M, "ty", TL_DT_INT32);
  tl_ir_expr *sshape = i32(64);
  tl_ir_buffer *S = tl_ir_buffer_new(M, "S", TL_DT_FLOAT32, 1, &sshape, NULL, TL_SCOPE_SHARED_DYN);
  tl_ir_buffer *G = tl_ir_buffer_new(M, "G", TL_DT_FLOAT32, 1, &sshape, &st, TL_SCOPE_GLOBAL);
  tl_ir_expr *base = tl_ir_binary(M, TL_BIN_MUL, ref(bx), i32(4));
  tl_ir_expr *ramp = tl_ir_ramp(M, base, 1, 4);
  tl_ir_expr *zero = tl_ir_broadcast(M, tl_ir_float(M, TL_DT_FLOAT32, 0), 4);
  tl_ir_expr *sidx = ref(ty);
  tl_ir_stmt *inner[4] = {
    tl_ir_alloc(M, S),
    tl_ir_alloc(M, G),
    tl_ir_store(M, Ad, 1, &ramp, zero),
    tl_ir_barrier(M),
  };
  tl_ir_stmt *tloop = tl_ir_for(M, TL_FOR_THREAD, 1, &ty, NULL, &block[0],
                                seq1(tl_ir_store(M, S, 1, &sidx, tl_ir_load(M, Ad, 1, &sidx))));
  tloop->u.loop.thread_tag = "threadIdx.y";
  tl_ir_stmt *body[2] = {tl_ir_seq(M, 4, inner), tloop};
  tl_ir_expr *g1 = ref(nd), *t1 = i32(4);
  tl_ir_stmt *k = tl_ir_kernel(M, 1, &g1, 1, &t1, &bx, tl_ir_seq(M, 2, body));
  k->u.kernel.thread_vars[0] = tx;
  dev->body = seq1(k);
  expect_text(tl_ir_print_module(M),
    "# module attribute target = \"{\\\"kind\\\":\\\"c\\\"}\"\n"
    "import tilelang\n"
    "import tilelang.language as T\n"
    "\n"
    "\n"
    "# host entry (packed calling convention): checks arguments, launches kernels\n"
    "@T.prim_func\n"
    "def host(A: T.Tensor((16,), \"float32\"), n: T.int32):\n"
    "    T.func_attr({\"tl.kernel_source_name\": \"dev\", \"tl.num_kernels\": 1})\n"
    "    T.assert_(n > 0, \"n must be \\\"positive\\\"\\n\")\n"
    "    T.launch(\"dev\", A, n, grid=(T.ceildiv(n, 4), 1, 1), block=(4, 1, 1), dyn_shared=64)\n"
    "\n"
    "\n"
    "# device kernel (launched by a host entry)\n"
    "@T.prim_func\n"
    "def dev(A: T.Tensor((16,), \"float32\", strides=(1,)), n: T.int32):\n"
    "    with T.Kernel(n, threads=4) as bx:  # bx = blockIdx.x\n"
    "        tx = T.get_thread_binding(0)  # threadIdx.x\n"
    "        S = T.alloc_shared((64,), \"float32\", scope=\"shared.dyn\")\n"
    "        G = T.alloc_buffer((64,), \"float32\", scope=\"global\", strides=(1,))\n"
    "        A[T.Ramp(bx * 4, 1, 4)] = T.Broadcast(0.0, 4)\n"
    "        T.sync_threads()\n"
    "        for ty in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
    "            S[ty] = A[ty]\n");
  /* Printing is deterministic. */
  char *a = tl_ir_print_module(M), *b = tl_ir_print_module(M);
  assert_string_equal(a, b);
  tl_free(a);
  tl_free(b);
  expect_text(tl_ir_print_func(host),
    "# host entry (packed calling convention): checks arguments, launches kernels\n"
    "@T.prim_func\n"
    "def host(A: T.Tensor((16,), \"float32\"), n: T.int32):\n"
    "    T.func_attr({\"tl.kernel_source_name\": \"dev\", \"tl.num_kernels\": 1})\n"
    "    T.assert_(n > 0, \"n must be \\\"positive\\\"\\n\")\n"
    "    T.launch(\"dev\", A, n, grid=(T.ceildiv(n, 4), 1, 1), block=(4, 1, 1), dyn_shared=64)\n");
  expect_text(tl_ir_print_stmt(hs[0]), "T.assert_(n > 0, \"n must be \\\"positive\\\"\\n\")\n");
  expect_text(tl_ir_print_expr(ramp), "T.Ramp(bx * 4, 1, 4)");
}

static void test_names(void **state) {
  (void)state;
  tl_ir_var *x1 = tl_ir_var_new(M, "x", TL_DT_INT32), *x2 = tl_ir_var_new(M, "x", TL_DT_INT32);
  tl_ir_var *kw = tl_ir_var_new(M, "for", TL_DT_INT32), *dig = tl_ir_var_new(M, "3d", TL_DT_INT32);
  tl_ir_var *empty = tl_ir_var_new(M, "", TL_DT_INT32), *tv = tl_ir_var_new(M, "T", TL_DT_INT32);
  tl_ir_var *dot = tl_ir_var_new(M, "threadIdx.x", TL_DT_INT32), *x3 = tl_ir_var_new(M, "x_1", TL_DT_INT32);
  tl_ir_buffer *buf = tl_ir_buffer_new(M, "x", TL_DT_INT32, 1, (tl_ir_expr *[]){i32(4)}, NULL, TL_SCOPE_LOCAL);
  tl_ir_expr *zero = i32(0);
  /* x = 1; x_1 = x + 1 (another x); for = ...; x_1_1 = ... (a var really named x_1) */
  tl_ir_stmt *innermost = tl_ir_seq(M, 2, (tl_ir_stmt *[]){tl_ir_alloc(M, buf),
    tl_ir_store(M, buf, 1, &zero, tl_ir_binary(M, TL_BIN_ADD, ref(x3), ref(dot)))});
  tl_ir_stmt *s = tl_ir_let(M, x3, ref(x2), innermost);
  s = tl_ir_let(M, tv, ref(empty), seq1(s));
  s = tl_ir_let(M, empty, ref(dig), seq1(s));
  s = tl_ir_let(M, dig, ref(kw), seq1(s));
  s = tl_ir_let(M, kw, ref(x2), seq1(s));
  s = tl_ir_let(M, x2, tl_ir_binary(M, TL_BIN_ADD, ref(x1), i32(1)), seq1(s));
  s = tl_ir_let(M, x1, i32(1), seq1(s));
  /* Sibling scopes reuse a name: two loops over different variables named i. */
  tl_ir_var *i1 = tl_ir_var_new(M, "i", TL_DT_INT32), *i2 = tl_ir_var_new(M, "i", TL_DT_INT32);
  tl_ir_expr *ext = i32(2);
  tl_ir_stmt *loops[3] = {
    tl_ir_for(M, TL_FOR_SERIAL, 1, &i1, NULL, &ext, tl_ir_seq(M, 0, NULL)),
    tl_ir_for(M, TL_FOR_SERIAL, 1, &i2, NULL, &ext, tl_ir_seq(M, 0, NULL)),
    s,
  };
  expect_text(tl_ir_print_stmt(tl_ir_seq(M, 3, loops)),
    "for i in T.serial(2):\n"
    "    pass\n"
    "for i in T.serial(2):\n"
    "    pass\n"
    "x = T.int32(1)\n"
    "x_1 = x + 1\n"
    "for_ = x_1\n"
    "_3d = for_\n"
    "v = _3d\n"
    "T_ = v\n"
    "x_1_1 = x_1\n"
    "x_2 = T.alloc_local((4,), \"int32\")\n"
    "x_2[0] = x_1_1 + threadIdx_x\n");
}

/* Constants where a bare literal would fold or take another dtype. */
static void test_constants(void **state) {
  (void)state;
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(M, "consts", &f));
  tl_ir_expr *four = i32(4);
  tl_ir_buffer *I = tl_ir_buffer_new(M, "I", TL_DT_INT32, 1, &four, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *L = tl_ir_buffer_new(M, "L", TL_DT_INT64, 1, &four, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *H = tl_ir_buffer_new(M, "H", TL_DT_FLOAT16, 1, &four, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *F = tl_ir_buffer_new(M, "F", TL_DT_FLOAT32, 1, &four, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *B = tl_ir_buffer_new(M, "B", TL_DT_BOOL, 1, &four, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *x = tl_ir_var_new(M, "x", TL_DT_INT32);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, f, I, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, f, L, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, f, H, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, f, F, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, f, B, true));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, f, x));
  tl_ir_expr *i0 = i32(0);
  tl_ir_expr *lt_ab = tl_ir_binary(M, TL_BIN_LT, ref(x), i32(2)), *lt_bc = tl_ir_binary(M, TL_BIN_LT, i32(2), ref(x));
  tl_ir_expr *h1 = tl_ir_float(M, TL_DT_FLOAT16, 1), *h2 = tl_ir_float(M, TL_DT_FLOAT16, 2);
  tl_ir_stmt *st[] = {
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_ADD, i32(1), i32(2))),
    tl_ir_store(M, I, 1, &i0, tl_ir_unary(M, TL_UN_NEG, i32(5))),
    tl_ir_store(M, I, 1, &i0, i32(-5)),
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_SUB, ref(x), i32(-5))),
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_MUL, ref(x), tl_ir_unary(M, TL_UN_NEG, ref(x)))),
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_SUB, ref(x), tl_ir_binary(M, TL_BIN_SUB, ref(x), i32(1)))),
    tl_ir_store(M, I, 1, &i0, tl_ir_call(M, TL_OP_CEILDIV, TL_DT_INT32, 2, (tl_ir_expr *[]){i32(8), i32(3)})),
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_MAX, i32(1), i32(2))),
    tl_ir_store(M, I, 1, &i0, tl_ir_binary(M, TL_BIN_DIV, ref(x), i32(2))),
    tl_ir_store(M, L, 1, &i0, tl_ir_int(M, TL_DT_INT64, INT64_MIN)),
    tl_ir_store(M, L, 1, &i0, tl_ir_binary(M, TL_BIN_ADD, tl_ir_int(M, TL_DT_INT64, 5), tl_ir_int(M, TL_DT_INT64, 6))),
    tl_ir_store(M, H, 1, &i0, tl_ir_float(M, TL_DT_FLOAT16, 0.5)),
    tl_ir_store(M, H, 1, &i0, tl_ir_select(M, tl_ir_bool(M, true), h1, h2)),
    tl_ir_store(M, F, 1, &i0, tl_ir_float(M, TL_DT_FLOAT32, NAN)),
    tl_ir_store(M, F, 1, &i0, tl_ir_float(M, TL_DT_FLOAT32, -INFINITY)),
    tl_ir_store(M, F, 1, &i0, tl_ir_float(M, TL_DT_FLOAT32, 0.1)),
    tl_ir_store(M, F, 1, &i0, tl_ir_float(M, TL_DT_FLOAT32, 1e20)),
    tl_ir_store(M, F, 1, &i0, tl_ir_cast(M, TL_DT_FLOAT32, tl_ir_float(M, TL_DT_FLOAT16, 3))),
    tl_ir_store(M, B, 1, &i0, tl_ir_binary(M, TL_BIN_EQ, lt_ab, lt_bc)),
    tl_ir_store(M, B, 1, &i0, tl_ir_unary(M, TL_UN_NOT, tl_ir_binary(M, TL_BIN_AND, lt_ab, lt_bc))),
    tl_ir_store(M, B, 1, &i0, tl_ir_binary(M, TL_BIN_AND, tl_ir_unary(M, TL_UN_NOT, lt_ab), lt_bc)),
    tl_ir_store(M, B, 1, &i0, tl_ir_unary(M, TL_UN_NOT, tl_ir_bool(M, false))),
    tl_ir_let(M, tl_ir_var_new(M, "a", TL_DT_INT64), tl_ir_int(M, TL_DT_INT64, 5), tl_ir_seq(M, 0, NULL)),
  };
  uint32_t n = sizeof st / sizeof st[0];
  tl_ir_expr *g = i32(1), *t = i32(32);
  tl_ir_var *bx = tl_ir_var_new(M, "bx", TL_DT_INT32); /* the front end always makes block variables */
  f->body = seq1(tl_ir_kernel(M, 1, &g, 1, &t, &bx, tl_ir_seq(M, n, st)));
  TL_ASSERT_OK(tl_ir_verify_module(M));
  char *text = tl_ir_print_module(M);
  expect_text(tl_ir_print_stmt(f->body->u.seq.stmts[0]->u.kernel.body),
    "I[0] = T.int32(1) + 2\n"
    "I[0] = -T.int32(5)\n"
    "I[0] = -5\n"
    "I[0] = x - -5\n"
    "I[0] = x * -x\n"
    "I[0] = x - (x - 1)\n"
    "I[0] = T.ceildiv(T.int32(8), 3)\n"
    "I[0] = T.max(1, 2)\n"
    "I[0] = T.truncdiv(x, 2)\n"
    "L[0] = (-9223372036854775807 - 1)\n"
    "L[0] = T.int64(5) + 6\n"
    "H[0] = 0.5\n"
    "H[0] = T.if_then_else(True, T.float16(1.0), 2.0)\n"
    "F[0] = T.float32(float(\"nan\"))\n"
    "F[0] = -T.infinity(\"float32\")\n"
    "F[0] = 0.1\n"
    "F[0] = 1e+20\n"
    "F[0] = T.Cast(\"float32\", T.float16(3.0))\n"
    "B[0] = (x < 2) == (2 < x)\n"
    "B[0] = not (x < 2 and 2 < x)\n"
    "B[0] = not x < 2 and 2 < x\n"
    "B[0] = not T.bool(False)\n"
    "a = T.int64(5)\n");
  /* The whole module reads back as itself. */
  tl_ir_module *m2 = NULL;
  if (tl_ir_parse(text, "printed.py", NULL, &m2) != TL_OK) fail_msg("%s\n%s", tl_last_error(), text);
  assert_true(tl_ir_module_equal(M, m2));
  tl_ir_module_free(m2);
  tl_free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_lowered, setup, teardown),
    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
    cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

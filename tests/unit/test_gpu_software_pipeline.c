/* T.Pipelined software pipelines on CUDA (gpu_software_pipeline, gpu_async_copy):
 * the pipelined kernels against the tile-level interpreter (SIMT mode models
 * cp.async: data lands at the wait), the shape of the lowered loop, and the
 * bugs the model exists to catch: a wait too weak, no wait, no barrier after the
 * wait each make the lowered kernel fail or compute something else. */
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"

#define HDR "import tilelang.language as T\n"

/* A GEMM in upstream's style, partial tiles at every edge (M, N past the last
 * block; K = 72 ends with a tile of 8); K symbolic (KDEF `T.symbolic("K")`: the
 * rows of A are not known to be 16-byte aligned, so its copies stay synchronous)
 * or a constant; dtype and stages bound. */
#define PIPE_GEMM_SRC_K(DT, ACC, STAGES, THREADS, KDEF)                                                 \
  HDR "K = " KDEF "\n"                                                                                  \
      "@T.prim_func\n"                                                                                  \
      "def g(A: T.Tensor((100, K), \"" DT "\"), B: T.Tensor((K, 40), \"" DT "\"), C: T.Tensor((100, 40), \"" ACC "\")):\n" \
      "    with T.Kernel(T.ceildiv(40, 32), T.ceildiv(100, 64), threads=" THREADS ") as (bx, by):\n"  \
      "        a = T.alloc_shared((64, 32), \"" DT "\")\n"                                              \
      "        b = T.alloc_shared((32, 32), \"" DT "\")\n"                                              \
      "        c = T.alloc_fragment((64, 32), \"" ACC "\")\n"                                           \
      "        T.clear(c)\n"                                                                            \
      "        for k in T.Pipelined(T.ceildiv(K, 32), num_stages=" STAGES "):\n"                        \
      "            T.copy(A[by * 64, k * 32], a)\n"                                                     \
      "            T.copy(B[k * 32, bx * 32], b)\n"                                                     \
      "            T.gemm(a, b, c)\n"                                                                   \
      "        T.copy(c, C[by * 64, bx * 32])\n"
#define PIPE_GEMM_SRC(DT, ACC, STAGES, THREADS) PIPE_GEMM_SRC_K(DT, ACC, STAGES, THREADS, "T.symbolic(\"K\")")

/* The pipelined loop inside an outer loop (two products one after another into
 * one output, as a split or persistent kernel runs them): the next prologue
 * overwrites stages the last iteration read, so it needs the barrier before it. */
#define PIPE_NESTED_SRC                                                                                  \
  HDR "@T.prim_func\n"                                                                                   \
      "def g(A: T.Tensor((2, 64, 96), \"float16\"), B: T.Tensor((2, 96, 32), \"float16\"),\n"             \
      "      C: T.Tensor((64, 32), \"float32\")):\n"                                                       \
      "    with T.Kernel(1, threads=128) as bx:\n"                                                       \
      "        a = T.alloc_shared((64, 32), \"float16\")\n"                                              \
      "        b = T.alloc_shared((32, 32), \"float16\")\n"                                              \
      "        c = T.alloc_fragment((64, 32), \"float32\")\n"                                            \
      "        T.clear(c)\n"                                                                            \
      "        for t in T.serial(2):\n"                                                                 \
      "            for k in T.Pipelined(3, num_stages=2):\n"                                            \
      "                T.copy(A[t, 0, k * 32], a)\n"                                                    \
      "                T.copy(B[t, k * 32, 0], b)\n"                                                    \
      "                T.gemm(a, b, c)\n"                                                               \
      "        T.copy(c, C)\n"

typedef struct pipe_case {
  const char *name;
  const char *src;
  int64_t K; /* 0: a constant in the source */
} pipe_case;

static const pipe_case k_cases[] = {
    {"float16, 3 stages, tensor cores", PIPE_GEMM_SRC("float16", "float32", "3", "128"), 72},
    {"bfloat16, 2 stages, tensor cores", PIPE_GEMM_SRC("bfloat16", "float32", "2", "128"), 72},
    {"float16, 4 stages over 2 iterations", PIPE_GEMM_SRC("float16", "float32", "4", "128"), 40},
    {"float16, 3 stages, one iteration", PIPE_GEMM_SRC("float16", "float32", "3", "128"), 8},
    {"float32 (SIMT gemm, 16-byte copies), 3 stages", PIPE_GEMM_SRC("float32", "float32", "3", "64"), 72},
    {"float32 with K = 50 (4-byte copies at the row's end), 2 stages", PIPE_GEMM_SRC("float32", "float32", "2", "64"),
     50},
    {"float16, K = 72 constant, 3 stages", PIPE_GEMM_SRC_K("float16", "float32", "3", "128", "72"), 0},
    {"float32, K = 50 constant, 2 stages", PIPE_GEMM_SRC_K("float32", "float32", "2", "64", "50"), 0},
    {"float16, 2 stages inside an outer loop", PIPE_NESTED_SRC, 0},
};

static tl_ir_module *parse_case(const pipe_case *c) {
  tl_ir_module *m = NULL;
  if (tl_ir_parse(c->src, "k.py", NULL, &m) != TL_OK) fail_msg("%s: %s", c->name, tl_last_error());
  return m;
}

static void test_against_interpreter(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    tl_ir_module *m = parse_case(&k_cases[i]);
    pt_dim dims[1] = {{"K", k_cases[i].K}};
    for (uint64_t seed = 1; seed <= 2; seed++)
      gpu_differential(m, "g", dims, k_cases[i].K ? 1 : 0, seed, &k_gpu_targets[0], 0, k_cases[i].name);
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------ the lowered loop's shape */

typedef struct counts {
  int cp_async[17], commits, waits, barriers_in_loop, loop_depth, stores_to_shared_in_copies;
} counts;

static bool count_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  counts *c = v->ctx;
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_CP_ASYNC && e->u.call.args[2]->kind == TL_EXPR_INT)
    c->cp_async[e->u.call.args[2]->u.int_value & 15 ? e->u.call.args[2]->u.int_value : 16]++;
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_CP_ASYNC_COMMIT) c->commits++;
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_CP_ASYNC_WAIT) c->waits++;
  return true;
}

static bool count_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  counts *c = v->ctx;
  if (s->kind == TL_STMT_FOR && s->u.loop.kind == TL_FOR_SERIAL && strcmp(s->u.loop.vars[0]->name, "k") == 0) {
    c->loop_depth++;
    tl_ir_visit_stmt(v, s->u.loop.body);
    c->loop_depth--;
    return false;
  }
  if (s->kind == TL_STMT_BARRIER && c->loop_depth) c->barriers_in_loop++;
  return true;
}

static counts count_kernel(const tl_ir_module *low) {
  counts c;
  memset(&c, 0, sizeof c);
  for (size_t i = 0; i < tl_ir_module_num_funcs(low); i++) {
    const tl_ir_func *f = tl_ir_module_func(low, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    tl_ir_visitor v = {count_expr, count_stmt, &c};
    tl_ir_visit_stmt(&v, f->body);
  }
  return c;
}

static tl_ir_module *lowered(const pipe_case *pc) {
  tl_ir_module *m = parse_case(pc), *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  if (gpu_lower(low, k_gpu_targets[0].spec) != TL_OK) fail_msg("%s: %s", pc->name, tl_last_error());
  tl_ir_module_free(m);
  return low;
}

static void test_loop_shape(void **state) {
  (void)state;
  /* float16, K = 72, 3 stages, 128 threads: A's 64 x 32 tile is 256 16-byte
   * vectors (2 a thread, one unrolled loop), B's 32 x 32 128 (1 a thread): 2
   * cp.async statements in each of 2 prologue stages and in the loop; one commit
   * each, the loop's wait and the final one, and a single barrier per iteration. */
  tl_ir_module *low = lowered(&k_cases[6]);
  counts c = count_kernel(low);
  assert_int_equal(c.commits, 3);
  assert_int_equal(c.waits, 2);
  assert_int_equal(c.barriers_in_loop, 1);
  assert_int_equal(c.cp_async[16], 6);
  assert_int_equal(c.cp_async[4] + c.cp_async[8], 0);
  tl_ir_module_free(low);
  /* Symbolic K: A's rows are not known to be aligned (its copies stay
   * synchronous), B's are (40 halves): B alone is copied with cp.async. */
  low = lowered(&k_cases[0]);
  c = count_kernel(low);
  assert_int_equal(c.cp_async[16], 3);
  assert_int_equal(c.barriers_in_loop, 1);
  tl_ir_module_free(low);
  /* float32 with K = 50: rows of 50 floats are not 16-byte aligned, so the copies
   * of A are 4-byte cp.async (B's rows of 40 floats stay 16-byte). */
  low = lowered(&k_cases[7]);
  c = count_kernel(low);
  assert_true(c.cp_async[4] > 0);
  assert_int_equal(c.barriers_in_loop, 1);
  tl_ir_module_free(low);
}

/* Loops that are not pipelined: num_stages 1, and targets without cp.async. */
static void test_not_pipelined(void **state) {
  (void)state;
  tl_ir_module *m = NULL, *low = NULL;
  TL_ASSERT_OK(tl_ir_parse(PIPE_GEMM_SRC("float16", "float32", "1", "128"), "k.py", NULL, &m));
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(gpu_lower(low, k_gpu_targets[0].spec));
  counts c = count_kernel(low);
  assert_int_equal(c.commits + c.waits, 0);
  tl_ir_module_free(low);
  low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(gpu_lower(low, "{\"kind\":\"cuda\",\"arch\":\"sm_75\",\"target_device_type\":1}"));
  c = count_kernel(low);
  assert_int_equal(c.commits + c.waits, 0);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

/* ------------------------------------------- the bugs the model must catch */

typedef enum breakage { WEAKER_WAIT, NO_WAITS, NO_BARRIER } breakage;

static tl_ir_stmt *break_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  const breakage *b = mu->ctx;
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_SEQ) return r;
  tl_ir_stmt *items[512];
  uint32_t n = 0;
  bool changed = false;
  for (uint32_t i = 0; i < r->u.seq.n && n < 512; i++) {
    tl_ir_stmt *x = r->u.seq.stmts[i];
    bool wait = x->kind == TL_STMT_EVAL && x->u.eval.expr->kind == TL_EXPR_CALL &&
                x->u.eval.expr->u.call.op == TL_OP_CP_ASYNC_WAIT;
    int64_t wn = wait ? x->u.eval.expr->u.call.args[0]->u.int_value : -1;
    if (wait && *b == NO_WAITS) {
      changed = true;
      continue;
    }
    if (wait && *b == WEAKER_WAIT && wn > 0) {
      tl_ir_expr *arg = tl_ir_i32(mu->mod, wn + 1);
      x = tl_ir_eval(mu->mod, tl_ir_call(mu->mod, TL_OP_CP_ASYNC_WAIT, TL_DT_HANDLE, 1, &arg));
      changed = true;
    }
    if (*b == NO_BARRIER && x->kind == TL_STMT_BARRIER && i > 0 && items[n - 1]->kind == TL_STMT_EVAL &&
        items[n - 1]->u.eval.expr->u.call.op == TL_OP_CP_ASYNC_WAIT) {
      changed = true;
      continue;
    }
    items[n++] = x;
  }
  return changed ? tl_ir_seq(mu->mod, n, items) : r;
}

/* Runs the broken lowering of case c; returns the interpreter's message, or NULL
 * when it ran, with *differs set when the result differs from the tile level. */
static char *run_broken(const pipe_case *pc, breakage b, bool *differs) {
  tl_ir_module *m = parse_case(pc), *low = lowered(pc);
  for (size_t i = 0; i < tl_ir_module_num_funcs(low); i++) {
    tl_ir_func *f = tl_ir_module_func(low, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    tl_ir_mutator mu = {low, NULL, break_stmt, &b, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    assert_non_null(body);
    assert_ptr_not_equal(body, f->body); /* the breakage applied */
    f->body = body;
  }
  pt_dim dims[1] = {{"K", pc->K}};
  const tl_ir_func *f = tl_ir_module_find_func(m, "g");
  pt_args ref = pt_args_make(f, dims, pc->K ? 1 : 0, 7), got = pt_args_copy(&ref);
  TL_ASSERT_OK(tl_ir_interpret(m, "g", ref.values, (int)ref.n));
  char *msg = NULL;
  *differs = false;
  if (tl_ir_interpret(low, "g", got.values, (int)got.n) != TL_OK) msg = strdup(tl_last_error());
  else *differs = pt_first_diff(&ref, &got, 2) >= 0;
  pt_args_free(&ref);
  pt_args_free(&got);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
  return msg;
}

static void test_bugs_are_caught(void **state) {
  (void)state;
  bool differs;
  /* The loop waits for one group too few: stage k is read before it landed. */
  char *msg = run_broken(&k_cases[0], WEAKER_WAIT, &differs);
  assert_true(msg || differs);
  free(msg);
  /* No wait at all: the copies never land. */
  msg = run_broken(&k_cases[0], NO_WAITS, &differs);
  assert_non_null(msg);
  if (!strstr(msg, "never landed")) fail_msg("unexpected error: %s", msg);
  free(msg);
  /* A wait without the barrier after it: other threads' copies are read in the
   * epoch they landed in (the race detector). */
  msg = run_broken(&k_cases[0], NO_BARRIER, &differs);
  assert_non_null(msg);
  if (!strstr(msg, "race") && !strstr(msg, "without a barrier")) fail_msg("unexpected error: %s", msg);
  free(msg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_interpreter),
      cmocka_unit_test(test_loop_shape),
      cmocka_unit_test(test_not_pipelined),
      cmocka_unit_test(test_bugs_are_caught),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

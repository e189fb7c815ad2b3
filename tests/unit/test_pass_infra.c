/* Pass infrastructure: the compilation session (configs, nesting, per thread),
 * tl__run_passes' instrumentation (timings and their table, print-after-all,
 * print-after=NAME, TL_LOWER_TRACE lines, verification after each pass), error
 * context naming the pass and spans of offending nodes, the semantic check's
 * rules, and out-of-memory behaviour of the whole c pipeline. */
#include <pthread.h>
#include <stdlib.h>

#include "backends/cpu/pipeline.h"
#include "tilelang/backend.h"
#include "base/alloc.h"
#include "ir_fixtures.h"
#include "pass_test.h"

/* The contents of a temporary log file (free it). */
static char *slurp(FILE *f) {
  fflush(f);
  long n = ftell(f);
  char *buf = calloc((size_t)n + 1, 1);
  rewind(f);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  return buf;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static tl_target *target_c(void) {
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("c", &t));
  return t;
}

/* ----------------------------------------------------------------- session */

static void test_session_configs(void **state) {
  (void)state;
  assert_null(tl__session_current());
  assert_null(tl__session_config("tl.x"));
  const char *cfg[] = {"tl.a=1", "tl.b=two", "tl.a=3", "tl.ab=9", "bad", NULL};
  tl__session s, inner;
  tl__session_init(&s);
  s.pass_configs = cfg;
  tl__session *prev = tl__session_enter(&s);
  assert_null(prev);
  assert_ptr_equal(tl__session_current(), &s);
  assert_string_equal(tl__session_config("tl.a"), "3"); /* the last setting wins */
  assert_string_equal(tl__session_config("tl.b"), "two");
  assert_null(tl__session_config("tl.c"));
  assert_null(tl__session_config("bad"));
  tl__session_init(&inner);
  tl__session *p2 = tl__session_enter(&inner);
  assert_ptr_equal(p2, &s);
  assert_null(tl__session_config("tl.a"));
  tl__session_exit(p2);
  assert_ptr_equal(tl__session_current(), &s);
  tl__session_exit(prev);
  assert_null(tl__session_current());
  tl__session_free(&inner);
  tl__session_free(&s);
}

static void *other_thread(void *arg) {
  *(bool *)arg = tl__session_current() == NULL;
  return NULL;
}

static void test_session_is_per_thread(void **state) {
  (void)state;
  tl__session s;
  tl__session_init(&s);
  tl__session *prev = tl__session_enter(&s);
  bool none = false;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, other_thread, &none), 0);
  pthread_join(t, NULL);
  assert_true(none);
  tl__session_exit(prev);
  tl__session_free(&s);
}

static void test_trace_from_env(void **state) {
  (void)state;
  static const struct {
    const char *value;
    bool on;
  } cases[] = {{"1", true}, {"html", true}, {"both", true}, {"0", false}, {"off", false}, {"", false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("TL_LOWER_TRACE", cases[i].value, 1);
    tl__session s;
    tl__session_init(&s);
    assert_int_equal(s.trace, cases[i].on);
    tl__session_free(&s);
  }
  unsetenv("TL_LOWER_TRACE");
  tl__session s;
  tl__session_init(&s);
  assert_false(s.trace);
  tl__session_free(&s);
}

/* ---------------------------------------------------------- instrumentation */

/* Lowers the builder vadd with the c pipeline in session s; returns the status. */
static tl_status lower_vadd(tl__session *s, tl_ir_module **out) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_vadd(m, "vadd"));
  tl_target *t = target_c();
  tl__session *prev = tl__session_enter(s);
  tl_status st = tl_pass_pipeline_lower(&tl__cpu_pipeline, m, t);
  tl__session_exit(prev);
  tl_target_release(t);
  *out = m;
  return st;
}

static void test_timings(void **state) {
  (void)state;
  tl__session s;
  tl__session_init(&s);
  s.time_passes = true;
  s.kernel_name = "vadd";
  s.backend_name = "cpu";
  s.log = tmpfile();
  tl_ir_module *m;
  TL_ASSERT_OK(lower_vadd(&s, &m));
  assert_int_equal(s.timings.len, 11);
  static const char *const names[] = {"cpu_tile_budget", "simplify",         "lower_gemm_cpu", "lower_tile_ops",
                                      "lower_views",     "lower_kernel_cpu", "flatten",        "simplify",
                                      "split_host_device", "widen_index_cpu", "make_packed_api"};
  for (size_t i = 0; i < 11; i++) {
    const tl__pass_timing *t = &TL__VEC_AT(&s.timings, tl__pass_timing, i);
    assert_string_equal(t->name, names[i]);
    assert_true(t->ms >= 0 && t->ms < 10000);
  }
  tl__session_report_timings(&s);
  char *log = slurp(s.log);
  assert_non_null(strstr(log, "pass timings for 'vadd' (backend cpu):\n"));
  assert_non_null(strstr(log, "  lower_tile_ops "));
  assert_non_null(strstr(log, "  total "));
  assert_int_equal(count(log, " ms "), 11);
  assert_int_equal(count(log, "%\n"), 11);
  /* The module records its launch convention. */
  const tl_ir_attr *a = tl_ir_module_attr(m, "tl.launch_convention");
  assert_non_null(a);
  assert_string_equal(a->s, "call");
  free(log);
  fclose(s.log);
  tl__session_free(&s);
  tl_ir_module_free(m);
}

static void test_print_after(void **state) {
  (void)state;
  tl__session s;
  tl__session_init(&s);
  s.log = tmpfile();
  s.print_after = "flatten";
  tl_ir_module *m;
  TL_ASSERT_OK(lower_vadd(&s, &m));
  char *log = slurp(s.log);
  assert_int_equal(count(log, "# IR after pass "), 1);
  assert_non_null(strstr(log, "# IR after pass 'flatten'\n"));
  /* After flatten, before split_host_device: still one function with its kernel. */
  assert_non_null(strstr(log, "    with T.Kernel(1, threads=1)"));
  assert_null(strstr(log, "T.launch"));
  free(log);
  fclose(s.log);
  tl_ir_module_free(m);

  s.log = tmpfile();
  s.print_after = NULL;
  s.print_after_all = true;
  TL_ASSERT_OK(lower_vadd(&s, &m));
  log = slurp(s.log);
  assert_int_equal(count(log, "# IR after pass "), 11);
  assert_int_equal(count(log, "# IR after pass 'simplify'\n"), 2);
  const char *last = strstr(log, "# IR after pass 'make_packed_api'\n");
  assert_non_null(last);
  assert_non_null(strstr(last, "T.assert_(T.arg_num() == 3"));
  assert_non_null(strstr(last, "def vadd_kernel("));
  free(log);
  fclose(s.log);
  tl__session_free(&s);
  tl_ir_module_free(m);
}

static void test_trace_lines(void **state) {
  (void)state;
  setenv("TL_LOWER_TRACE", "1", 1);
  tl__session s;
  tl__session_init(&s);
  unsetenv("TL_LOWER_TRACE");
  s.kernel_name = "vadd";
  s.backend_name = "cpu";
  s.log = tmpfile();
  tl_ir_module *m;
  TL_ASSERT_OK(lower_vadd(&s, &m));
  char *log = slurp(s.log);
  assert_int_equal(count(log, "[TL_LOWER_TRACE] kernel=vadd backend=cpu pass "), 11);
  assert_non_null(strstr(log, "pass 1/11 cpu_tile_budget: "));
  assert_non_null(strstr(log, "pass 2/11 simplify: "));
  assert_non_null(strstr(log, "pass 11/11 make_packed_api: "));
  assert_null(strstr(log, "FAILED"));
  free(log);
  fclose(s.log);
  tl__session_free(&s);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------ errors and checks */

static tl_status breaks_ir(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  tl_ir_func *f = tl_ir_module_func(mod, 0);
  tl_ir_var *ghost = tl_ir_var_new(mod, "ghost", TL_DT_INT32);
  tl_ir_expr *z = tl_ir_i32(mod, 0);
  f->body = tl_ir_store(mod, f->params[0].buffer, 1, &z, tl_ir_cast(mod, TL_DT_FLOAT32, tl_ir_var_ref(mod, ghost)));
  return f->body ? TL_OK : TL_ENOMEM;
}

static tl_status fails_at_node(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  return tl__pass_error(TL_EINVAL, tl_ir_module_func(mod, 0)->body->span, "this node is wrong");
}

static void test_pass_errors(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_vadd(m, "vadd"));
  tl__session s;
  tl__session_init(&s);
  s.log = tmpfile();
  s.trace = true;
  tl__session *prev = tl__session_enter(&s);
  /* The pass's own error with the node's location, behind the pass's name. */
  tl__pass bad[] = {{"simplify", tl__pass_simplify}, {"fails_at_node", fails_at_node}};
  TL_ASSERT_ERR(tl__run_passes(m, NULL, bad, 2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("pass 'fails_at_node': k.py:2:5: this node is wrong");
  char *log = slurp(s.log);
  assert_non_null(strstr(log, "pass 2/2 fails_at_node: "));
  assert_non_null(strstr(log, " FAILED: pass 'fails_at_node': k.py:2:5: this node is wrong\n"));
  free(log);
  /* Verification after each pass catches a pass that leaves invalid IR. */
  const char *cfg[] = {"tl.verify_after_each_pass=1", NULL};
  s.pass_configs = cfg;
  tl__pass breaking[] = {{"breaks_ir", breaks_ir}};
  TL_ASSERT_ERR(tl__run_passes(m, NULL, breaking, 1), TL_EINTERNAL, "pass 'breaks_ir' left invalid IR: ");
  assert_non_null(strstr(tl_last_error(), "use of undefined variable 'ghost'"));
  tl__session_exit(prev);
  fclose(s.log);
  tl__session_free(&s);
  tl_ir_module_free(m);
}

/* A real pass error through the c pipeline carries file:line:col. */
static void test_pipeline_error_span(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "N = T.symbolic(\"N\")\n"
                             "@T.prim_func\n"
                             "def f(A: T.Tensor((N, 8), \"float32\")):\n"
                             "    with T.Kernel(1, threads=32) as bx:\n"
                             "        s = T.alloc_fragment((N, 8), \"float32\")\n"
                             "        T.copy(A, s)\n"
                             "        T.copy(s, A)\n");
  tl_target *t = target_c();
  TL_ASSERT_ERR(tl_pass_pipeline_lower(&tl__cpu_pipeline, m, t), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("pass 'flatten': k.py:6:13: buffer 's' (local.fragment) has a shape that is not constant; the c target "
                "allocates it as a local array of constant size");
  tl_target_release(t);
  tl_ir_module_free(m);
}

static void expect_check_error(const char *src, const char *msg) {
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(src, "k.py", NULL, &m));
  TL_ASSERT_ERR(tl__pass_semantic_check(m, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG(msg);
  tl_ir_module_free(m);
}

#define HEAD "import tilelang.language as T\n@T.prim_func\n"

static void test_semantic_check(void **state) {
  (void)state;
  expect_check_error(HEAD "def f(A: T.Tensor((4,), \"float32\")):\n"
                          "    A[0] = 1.0\n",
                     "k.py:2:1: function 'f' has no T.Kernel: device code must be inside `with T.Kernel(...)`");
  expect_check_error(HEAD "def f(A: T.Tensor((4, 4), \"float32\"), B: T.Tensor((4, 4), \"float32\")):\n"
                          "    with T.Kernel(1, threads=32) as bx:\n"
                          "        c = T.alloc_fragment((4, 4), \"float32\")\n"
                          "        T.gemm(A, B, c)\n",
                     "k.py:6:9: T.gemm: A (buffer 'A') is in global memory; it must be staged in shared memory or a "
                     "fragment (T.copy it there)");
  expect_check_error(HEAD "def f(A: T.Tensor((4, 4), \"float32\")):\n"
                          "    with T.Kernel(1, threads=32) as bx:\n"
                          "        a = T.alloc_shared((4, 4), \"float32\")\n"
                          "        c = T.alloc_shared((4, 4), \"float32\")\n"
                          "        T.gemm(a, a, c)\n",
                     "k.py:7:9: T.gemm: C (buffer 'c') is in shared memory; it must be a fragment (T.alloc_fragment) "
                     "or local buffer");
  expect_check_error(HEAD "def f(A: T.Tensor((4, 4), \"float32\")):\n"
                          "    with T.Kernel(1, threads=32) as bx:\n"
                          "        a = T.alloc_shared((4, 4), \"float64\")\n"
                          "        c = T.alloc_fragment((4, 4), \"int32\")\n"
                          "        T.gemm(a, a, c)\n",
                     "k.py:7:9: T.gemm: cannot multiply float64 (A, buffer 'a') by float64 (B, buffer 'a') into int32 "
                     "(C, buffer 'c'); integer C needs integer A and B of at most 32 bits, float C float A and B");
  expect_check_error(HEAD "def f(A: T.Tensor((4, 4), \"float32\"), S: T.Tensor((4,), \"float32\")):\n"
                          "    with T.Kernel(1, threads=32) as bx:\n"
                          "        T.reduce_sum(A, S, dim=1)\n",
                     "k.py:5:9: T.reduce_sum: the source (buffer 'A') is in global memory; it must be a fragment, "
                     "shared or local buffer");
  expect_check_error(HEAD "def f(A: T.Tensor((64,), \"float32\")):\n"
                          "    with T.Kernel(1, threads=32) as bx:\n"
                          "        s = T.alloc_shared((32,), \"float32\")\n"
                          "        T.copy(A[0:16], s[20:36])\n",
                     "k.py:6:25: T.copy: the region [20:36] of dimension 0 of buffer 's' (shared, extent 32) runs past "
                     "its end; only global buffers are clipped");
  expect_check_error("import tilelang.language as T\nN = T.symbolic(\"N\")\n@T.prim_func\n"
                     "def f(A: T.Tensor((N * 2,), \"float32\")):\n"
                     "    with T.Kernel(1, threads=32) as bx:\n"
                     "        A[0] = 1.0\n",
                     "k.py:4:7: symbolic dim 'N' in the shape of parameter 'A' is not a whole dimension of any "
                     "parameter, so a call cannot bind it");
  /* The verifier runs first. */
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f = fx_vadd(m, "vadd");
  f->body = f->body->u.kernel.body; /* a parallel loop outside T.Kernel is fine, but bx is now undefined */
  TL_ASSERT_ERR(tl__pass_semantic_check(m, NULL), TL_EINVAL, "use of undefined variable 'bx'");
  tl_ir_module_free(m);
  /* And a good module passes, unchanged. */
  m = pt_parse(HEAD "def f(A: T.Tensor((4, 4), \"float16\"), C: T.Tensor((4, 4), \"float32\")):\n"
                    "    with T.Kernel(1, threads=32) as bx:\n"
                    "        a = T.alloc_shared((4, 4), \"float16\")\n"
                    "        c = T.alloc_fragment((4, 4), \"float32\")\n"
                    "        T.copy(A, a)\n"
                    "        T.gemm(a, a, c, clear_accum=True)\n"
                    "        T.copy(c, C)\n");
  uint64_t h = tl_ir_module_hash(m);
  TL_ASSERT_OK(tl__pass_semantic_check(m, NULL));
  assert_true(h == tl_ir_module_hash(m));
  tl_ir_module_free(m);
}

/* --------------------------------------------------------- out of memory */

typedef struct oom_ctx {
  const tl_ir_module *src;
  tl_target *t;
} oom_ctx;

static tl_status lower_clone(void *arg) {
  oom_ctx *c = arg;
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_module_clone(c->src, &m);
  if (s == TL_OK) s = tl_pass_pipeline_lower(&tl__cpu_pipeline, m, c->t);
  if (s == TL_OK) s = tl_ir_verify_module(m);
  tl_ir_module_free(m);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  char path[1024];
  const char *files[] = {"vector_add.py", "gemm.py", "row_max.py", "cumsum.py"};
  oom_ctx c = {NULL, target_c()};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, files[i]);
    tl_ir_module *m = NULL;
    TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
    c.src = m;
    long sites = tl_oom_sweep(lower_clone, NULL, &c);
    assert_true(sites > 10);
    tl_ir_module_free(m);
  }
  tl_target_release(c.t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_session_configs), cmocka_unit_test(test_session_is_per_thread),
      cmocka_unit_test(test_trace_from_env),  cmocka_unit_test(test_timings),
      cmocka_unit_test(test_print_after),     cmocka_unit_test(test_trace_lines),
      cmocka_unit_test(test_pass_errors),     cmocka_unit_test(test_pipeline_error_span),
      cmocka_unit_test(test_semantic_check),  cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Out-of-memory behaviour of the front end and the printer: with the Nth
 * allocation failing, for every N, parsing and printing fail cleanly with
 * TL_ENOMEM ("out of memory"), never with another error, a crash or a leak
 * (the sanitizer build checks leaks). */
#include "frontend_test.h"

typedef struct ctx {
  const char *src;
  const char *const *kv;
  tl_status expect; /* the status without injected failures */
  tl_ir_module *mod;
} ctx;

static tl_status op_parse(void *p) {
  ctx *c = p;
  tl_ir_module *m = NULL;
  tl_status s = ft_parse(c->src, c->kv, &m);
  tl_ir_module_free(m);
  if (s == c->expect && s != TL_OK && s != TL_ENOMEM) return TL_OK; /* the expected parse error */
  return s;
}

static tl_status op_print(void *p) {
  ctx *c = p;
  char *s = tl_ir_print_module(c->mod);
  if (!s) return TL_ENOMEM;
  tl_free(s);
  return TL_OK;
}

static void sweep_file(const char *name, const char *const *kv) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", EXAMPLES_DIR, name);
  char *src = ft_read(path);
  assert_non_null(src);
  ctx c = {src, kv, TL_OK, NULL};
  long sites = tl_oom_sweep(op_parse, NULL, &c);
  assert_true(sites > 10);
  TL_ASSERT_OK(ft_parse(src, kv, &c.mod));
  sites = tl_oom_sweep(op_print, NULL, &c);
  assert_true(sites > 1);
  tl_ir_module_free(c.mod);
  free(src);
}

static void test_examples(void **state) {
  (void)state;
  const char *kv[] = {"block_K=16", NULL};
  sweep_file("gemm.py", kv);
  sweep_file("transpose.py", NULL);
  sweep_file("vector_add.py", NULL);
  sweep_file("rms_norm.py", NULL);
}

static void test_errors(void **state) {
  (void)state;
  /* Error paths allocate too (the message with its source line). */
  const char *cases[] = {
    "import tilelang.language as T\n\n\n@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(1, threads=32) as bx:\n        T.foo(A)\n",
    "x = (1,\n",
    "import tilelang.language as T\n\n\ndef f(n):\n    @T.prim_func\n    def g(A: T.Tensor((n,), \"float32\")):\n"
    "        pass\n\n    return g\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ctx c = {cases[i], NULL, TL_EINVAL, NULL};
    tl_oom_sweep(op_parse, NULL, &c);
  }
  const char *kv[] = {"nope=1", NULL};
  ctx c = {"x = 1\n", kv, TL_EINVAL, NULL};
  tl_oom_sweep(op_parse, NULL, &c);
}

/* The files of tests/frontend (upstream-style kernels: unread script code, factories' Python,
 * hints) with the --param values of their `# tlc-args:` line. */
static void test_upstream_style(void **state) {
  (void)state;
  const char *dir = TL_SOURCE_DIR "/tests/frontend";
  size_t n = 0;
  char **names = ft_list(dir, ".py", &n);
  assert_true(n >= 5);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    char *src = ft_read(path);
    assert_non_null(src);
    static char params[8][128];
    const char *kv[9] = {0};
    size_t nkv = 0;
    const char *line = strstr(src, "# tlc-args:");
    for (const char *p = line; p && *p && *p != '\n' && nkv < 8;) {
      const char *q = strstr(p, "--param ");
      const char *eol = strchr(p, '\n');
      if (!q || (eol && q > eol)) break;
      q += 8;
      size_t len = strcspn(q, " \n");
      snprintf(params[nkv], sizeof params[nkv], "%.*s", (int)len, q);
      kv[nkv] = params[nkv];
      nkv++;
      p = q + len;
    }
    ctx c = {src, kv, TL_OK, NULL};
    tl_ir_module *m = NULL;
    c.expect = ft_parse(src, kv, &m); /* select_factory.py needs --func: an error here */
    tl_ir_module_free(m);
    assert_true(tl_oom_sweep(op_parse, NULL, &c) > 10);
    free(src);
  }
  ft_free_list(names, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_examples),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_upstream_style),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

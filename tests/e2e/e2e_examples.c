/* Every example kernel, compiled with tl_compile for target c through each CPU
 * execution backend that can run (native, tcc), run on seeded random inputs of
 * several sizes (sizes that tiles do not divide, size 1, symbolic dims bound to
 * different values by one compiled kernel) and compared element by element with
 * the reference interpreter. A new example without an entry here fails the test. */
#include <dirent.h>

#include "base/alloc.h"
#include "e2e_util.h"

typedef struct size_case {
  const char *params[6]; /* compile-time constants, "K=V" */
  tlc_dim_binding dims[3]; /* symbolic dims (one kernel, several sizes) */
} size_case;

typedef struct example_case {
  const char *example;
  size_case sizes[5];
} example_case;

static const example_case k_examples[] = {
    {"vector_add",
     {{{NULL}, {{"N", "1000"}}}, {{NULL}, {{"N", "1"}}}, {{NULL}, {{"N", "4096"}}}, {{NULL}, {{"N", "257"}}}}},
    {"elementwise_add",
     {{{NULL}}, {{"M=1", "N=1", NULL}}, {{"M=64", "N=64", NULL}}, {{"M=31", "N=97", "block_M=16", NULL}},
      {{"M=33", "N=40", "in_dtype=\"float16\"", "out_dtype=\"float16\"", NULL}}}},
    {"gemm",
     {{{NULL}}, {{"M=64", "N=64", "K=64", NULL}}, {{"M=1", "N=33", "K=17", NULL}},
      {{"M=40", "N=24", "K=50", "dtype=\"float32\"", NULL}}}},
    {"cumsum", {{{NULL}}, {{"M=7", "N=33", NULL}}, {{"M=9", "N=20", "reverse=True", NULL}}}},
    {"rms_norm", {{{NULL}}, {{"M=1", "N=3", NULL}}, {{"M=64", "N=128", NULL}}}},
    {"row_sum", {{{NULL}}, {{"M=3", "N=129", NULL}}}},
    {"softmax", {{{NULL}}, {{"M=5", "N=7", NULL}}, {{"M=33", "N=128", "block_M=8", NULL}}}},
    {"row_max",
     {{{NULL}, {{"M", "13"}, {"N", "100"}}}, {{NULL}, {{"M", "1"}, {"N", "1"}}}, {{NULL}, {{"M", "64"}, {"N", "64"}}},
      {{"block_M=4", "block_N=16", NULL}, {{"M", "9"}, {"N", "33"}}}}},
    {"transpose",
     {{{NULL}, {{"M", "100"}, {"N", "37"}}}, {{NULL}, {{"M", "1"}, {"N", "7"}}}, {{NULL}, {{"M", "64"}, {"N", "64"}}},
      {{"block_M=16", "block_N=8", NULL}, {{"M", "50"}, {"N", "3"}}}}},
};
#define NEXAMPLES (sizeof k_examples / sizeof *k_examples)

static size_t ndims_of(const size_case *s) {
  size_t n = 0;
  while (n < 3 && s->dims[n].name) n++;
  return n;
}

/* Runs every size of every example through one execution backend. */
static void run_all(const char *exec) {
  if (!e2e_exec_available(exec)) {
    skip();
    return;
  }
  char *cache = e2e_cache_begin();
  tl_compile_options o = e2e_options(exec);
  size_t runs = 0;
  for (size_t e = 0; e < NEXAMPLES; e++) {
    const example_case *ex = &k_examples[e];
    for (size_t s = 0; s < 5 && (s == 0 || ex->sizes[s].params[0] || ex->sizes[s].dims[0].name); s++) {
      const size_case *sc = &ex->sizes[s];
      tl_ir_module *m = e2e_parse_file(e2e_example(ex->example), sc->params);
      assert_int_equal(tl_ir_module_num_funcs(m), 1);
      const tl_ir_func *f = tl_ir_module_func(m, 0);
      tl_kernel *k = NULL;
      tl_status st = tl_compile(m, NULL, &o, &k);
      if (st != TL_OK) fail_msg("%s (size %zu) through %s: %s", ex->example, s, exec, tl_last_error());
      assert_string_equal(tl_kernel_execution_backend(k), exec);
      assert_string_equal(tl_kernel_name(k), f->name);
      /* Two seeds: the inputs matter, not only the shapes. */
      uint64_t n = e2e_run_and_compare(m, f, k, sc->dims, ndims_of(sc), 1);
      n += e2e_run_and_compare(m, f, k, sc->dims, ndims_of(sc), 2);
      printf("  %-16s %-40s %-20s %s: %llu elements match\n", ex->example, sc->params[0] ? sc->params[0] : "(defaults)",
             sc->dims[0].name ? sc->dims[0].value : "", exec, (unsigned long long)n);
      tl_kernel_release(k);
      tl_ir_module_free(m);
      runs++;
    }
  }
  assert_true(runs >= NEXAMPLES * 2);
  e2e_cache_done(cache);
}

static void test_native(void **state) {
  (void)state;
  run_all("native");
}

static void test_tcc(void **state) {
  (void)state;
  run_all("tcc");
}

/* Every file in examples/ has an entry above. */
static void test_every_example_listed(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  int seen = 0;
  while ((de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len < 4 || strcmp(de->d_name + len - 3, ".py") != 0) continue;
    bool listed = false;
    for (size_t e = 0; e < NEXAMPLES && !listed; e++)
      listed = strlen(k_examples[e].example) == len - 3 && strncmp(k_examples[e].example, de->d_name, len - 3) == 0;
    if (!listed) fail_msg("examples/%s has no entry in tests/e2e/e2e_examples.c", de->d_name);
    seen++;
  }
  closedir(d);
  assert_int_equal(seen, (int)NEXAMPLES);
}

/* One kernel serves every value of a symbolic dim: compiled once, called with
 * several sizes, through the kernel cache's memory level. */
static void test_symbolic_one_kernel(void **state) {
  (void)state;
  char *cache = e2e_cache_begin();
  tl_compile_options o = e2e_options("native");
  tl_ir_module *m = e2e_parse_file(e2e_example("vector_add"), NULL);
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  static const char *const sizes[] = {"0", "1", "2", "255", "256", "257", "100000"};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    tlc_dim_binding d = {"N", sizes[i]};
    if (strcmp(sizes[i], "0") == 0) {
      /* An empty vector: nothing to compare, but the call must succeed. */
      tlc_kernel_io *io = NULL;
      TL_ASSERT_OK(tlc_kernel_io_create(m, f, &d, 1, TLC_DEFAULT_DIM, 1, &io));
      TL_ASSERT_OK(tl_kernel_call(k, io->args, (int)io->n, NULL));
      tlc_kernel_io_free(io);
      continue;
    }
    e2e_run_and_compare(m, f, k, &d, 1, i);
  }
  tl_kernel_release(k);
  tl_ir_module_free(m);
  e2e_cache_done(cache);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_example_listed),
      cmocka_unit_test(test_native),
      cmocka_unit_test(test_tcc),
      cmocka_unit_test(test_symbolic_one_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

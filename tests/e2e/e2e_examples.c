/* Every example kernel, compiled with tl_compile for target c through each CPU
 * execution backend that can run (native, tcc), run on seeded random inputs of
 * several sizes (sizes that tiles do not divide, size 1, symbolic dims bound to
 * different values by one compiled kernel) and compared element by element with
 * the reference interpreter. A new example without an entry here fails the test. */
#include <dirent.h>

#include "base/alloc.h"
#include "e2e_util.h"

/* One compilation and run: an example, its compile-time constants and the values of
 * its symbolic dims, each a space-separated list of K=V. */
typedef struct size_case {
  const char *example;
  const char *params;
  const char *dims;
} size_case;

static const size_case k_cases[] = {
    {"vector_add", "", "N=1000"},
    {"vector_add", "", "N=1"},
    {"vector_add", "", "N=4096"},
    {"vector_add", "", "N=257"},
    {"elementwise_add", "", ""},
    {"elementwise_add", "M=1 N=1", ""},
    {"elementwise_add", "M=64 N=64", ""},
    {"elementwise_add", "M=31 N=97 block_M=16", ""},
    {"elementwise_add", "M=33 N=40 in_dtype=\"float16\" out_dtype=\"float16\"", ""},
    {"gemm", "", ""},
    {"gemm", "M=64 N=64 K=64", ""},
    {"gemm", "M=1 N=33 K=17", ""},
    {"gemm", "M=40 N=24 K=50 dtype=\"float32\"", ""},
    {"cumsum", "", ""},
    {"cumsum", "M=7 N=33", ""},
    {"cumsum", "M=9 N=20 reverse=True", ""},
    {"rms_norm", "", ""},
    {"rms_norm", "M=1 N=3", ""},
    {"rms_norm", "M=64 N=128", ""},
    {"row_sum", "", ""},
    {"row_sum", "M=3 N=129", ""},
    {"softmax", "", ""},
    {"softmax", "M=5 N=7", ""},
    {"softmax", "M=33 N=128 block_M=8", ""},
    {"row_max", "", "M=13 N=100"},
    {"row_max", "", "M=1 N=1"},
    {"row_max", "", "M=64 N=64"},
    {"row_xor", "", "M=13 N=100"},
    {"row_xor", "", "M=1 N=1"},
    {"row_xor", "", "M=64 N=64"},
    {"row_max", "block_M=4 block_N=16", "M=9 N=33"},
    {"col_extrema", "", ""},
    {"col_extrema", "M=1 N=16 block_N=16", ""},
    {"col_extrema", "M=70 N=64 block_M=32 block_N=64", ""},
    {"transpose", "", "M=100 N=37"},
    {"transpose", "", "M=1 N=7"},
    {"transpose", "", "M=64 N=64"},
    {"transpose", "block_M=16 block_N=8", "M=50 N=3"},
    {"flash_attention", "", ""},
    {"flash_attention", "is_causal=True seq_q=33 seq_kv=50", ""},
    {"flash_attention_gqa", "is_causal=True seq_q=40", ""},
    {"flash_decoding", "", ""},
    {"flash_decoding", "num_split=4 seqlen_kv=77 block_N=16", ""},
};
#define NCASES (sizeof k_cases / sizeof *k_cases)

/* Splits a space-separated K=V list into `out` (NULL-terminated; strings in buf). */
static size_t split_list(const char *list, char *buf, size_t cap, const char **out, size_t max) {
  snprintf(buf, cap, "%s", list);
  size_t n = 0;
  for (char *tok = strtok(buf, " "); tok && n + 1 < max; tok = strtok(NULL, " ")) out[n++] = tok;
  out[n] = NULL;
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
  for (size_t c = 0; c < NCASES; c++) {
    const size_case *sc = &k_cases[c];
    char pbuf[256], dbuf[256];
    const char *params[8], *dimv[8];
    split_list(sc->params, pbuf, sizeof pbuf, params, 8);
    size_t nd = split_list(sc->dims, dbuf, sizeof dbuf, dimv, 8);
    tlc_dim_binding dims[8];
    char dnames[8][32];
    for (size_t i = 0; i < nd; i++) {
      const char *eq = strchr(dimv[i], '=');
      snprintf(dnames[i], sizeof dnames[i], "%.*s", (int)(eq - dimv[i]), dimv[i]);
      dims[i] = (tlc_dim_binding){dnames[i], eq + 1};
    }
    /* A file with several kernels (flash_decoding.py's split and combine): each one, compiled alone. */
    tl_ir_module *all = e2e_parse_file(e2e_example(sc->example), params);
    for (size_t fi = 0; fi < tl_ir_module_num_funcs(all); fi++) {
      tl_ir_module *m = e2e_parse_file_func(e2e_example(sc->example), tl_ir_module_func(all, fi)->name, params);
      assert_int_equal(tl_ir_module_num_funcs(m), 1);
      const tl_ir_func *f = tl_ir_module_func(m, 0);
      tl_kernel *k = NULL;
      if (tl_compile(m, NULL, &o, &k) != TL_OK)
        fail_msg("%s [%s] through %s: %s", sc->example, sc->params, exec, tl_last_error());
      assert_string_equal(tl_kernel_execution_backend(k), exec);
      assert_string_equal(tl_kernel_name(k), f->name);
      /* Two seeds: the inputs matter, not only the shapes. */
      uint64_t n = e2e_run_and_compare(m, f, k, dims, nd, 1);
      n += e2e_run_and_compare(m, f, k, dims, nd, 2);
      printf("  %-7s %-16s %-52s %-12s %8llu elements match\n", exec, f->name, sc->params, sc->dims,
             (unsigned long long)n);
      tl_kernel_release(k);
      tl_ir_module_free(m);
    }
    tl_ir_module_free(all);
  }
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
    for (size_t c = 0; c < NCASES && !listed; c++)
      listed = strlen(k_cases[c].example) == len - 3 && strncmp(k_cases[c].example, de->d_name, len - 3) == 0;
    if (!listed) fail_msg("examples/%s has no entry in tests/e2e/e2e_examples.c", de->d_name);
    seen++;
  }
  closedir(d);
  assert_true(seen >= 9);
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

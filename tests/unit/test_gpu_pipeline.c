/* The shared GPU lowering end to end, checked against the interpreter: every
 * example at several sizes (tiles that do not divide, symbolic dims), lowered for
 * cuda (warp 32), hip (warp 64) and opencl (warp 1), the lowered module run by
 * the interpreter in SIMT mode (one OS thread per GPU thread, real barriers and
 * warp shuffles, shared-memory race detection) and compared with the tile-level
 * interpretation on the same seeded inputs: exactly, except float sums reduced
 * across threads (a tolerance). */
#include <dirent.h>

#include "base/str.h"
#include "gpu_test.h"

typedef struct example_size {
  const char *file;
  tl_ir_const_binding consts[4];
  size_t nconsts;
  pt_dim dims[2];
  size_t ndims;
} example_size;

/* Float sums across threads: compared within a tolerance. */
static double example_tol(const char *file) {
  if (strcmp(file, "softmax.py") == 0 || strcmp(file, "rms_norm.py") == 0 || strcmp(file, "row_sum.py") == 0)
    return 1e-5;
  return 0;
}

static void run_example(const char *file, const tl_ir_const_binding *consts, size_t nconsts, const pt_dim *dims,
                        size_t ndims, const gpu_target *tg) {
  char path[1024], what[1200];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options opts = {sizeof opts, consts, nconsts};
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse_file(path, &opts, &m);
  if (s != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  pt_dim deflt[4] = {{"N", 300}, {"M", 70}, {"K", 40}};
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
    const char *fn = tl_ir_module_func(m, i)->name;
    snprintf(what, sizeof what, "%s (%s, %zu consts, %zu dims)", file, fn, nconsts, ndims);
    gpu_differential(m, fn, ndims ? dims : deflt, ndims ? ndims : 3, 7, tg, example_tol(file), what);
  }
  tl_ir_module_free(m);
}

static void test_examples_defaults(void **state) {
  (void)state;
  const char *only = getenv("TL_GPU_EXAMPLE");
  for (size_t t = 0; t < GPU_NTARGETS; t++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!tl__str_ends_with(e->d_name, ".py")) continue;
      n++;
      if (only && strcmp(only, e->d_name) != 0) continue;
      run_example(e->d_name, NULL, 0, NULL, 0, &k_gpu_targets[t]);
    }
    closedir(d);
    assert_true(n >= 9);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

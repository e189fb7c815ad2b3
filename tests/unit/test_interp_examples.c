/* Every example (examples/NAME.py), parsed and interpreted on seeded inputs (tlc's kernel_io,
 * compiled into this test), checked against plain C written here: GEMM against a
 * triple loop (bit for bit), softmax and RMS norm against their formulas, cumsum
 * both ways, transpose, row sums and maxima, element-wise and vector adds. An
 * example without a reference here must still interpret cleanly. */
#include <dirent.h>
#include <stdlib.h>

#include "../../tools/tlc/kernel_io.c"
#include "interp_util.h"

/* One run: the module, the function, its tensors (after interpretation). */
typedef struct run {
  tl_ir_module *m;
  tl_ir_func *f;
  tlc_kernel_io *io;
} run;

/* `func` picks one function of a file that defines several (NULL: the file's only one). */
static void run_example_func(const char *file, const char *func, const tl_ir_const_binding *consts, size_t nconsts,
                             const tlc_dim_binding *dims, size_t ndims, run *r) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  /* one function of several may not read every binding (flashattn_combine has no seqlen_kv) */
  tl_ir_parse_options opts = {sizeof opts, consts, nconsts, func, func != NULL};
  TL_ASSERT_OK(tl_ir_parse_file(path, &opts, &r->m));
  TL_ASSERT_OK(tl_ir_verify_module(r->m));
  assert_int_equal(tl_ir_module_num_funcs(r->m), 1);
  r->f = tl_ir_module_func(r->m, 0);
  TL_ASSERT_OK(tlc_kernel_io_create(r->m, r->f, dims, ndims, 100, 1234, &r->io));
  tlc_kernel_io_fill(r->io, 1234);
  TL_ASSERT_OK(tl_ir_interpret(r->m, r->f->name, r->io->args, (int)r->io->n));
}

static void run_example(const char *file, const tl_ir_const_binding *consts, size_t nconsts,
                        const tlc_dim_binding *dims, size_t ndims, run *r) {
  run_example_func(file, NULL, consts, nconsts, dims, ndims, r);
}

static void run_free(run *r) {
  tlc_kernel_io_free(r->io);
  tl_ir_module_free(r->m);
}

/* Data of parameter i as T*, with its shape checked. */
static void *data_of(const run *r, uint32_t i, int64_t d0, int64_t d1) {
  const DLTensor *t = &r->io->tensors[i];
  assert_int_equal(t->shape[0], d0);
  if (t->ndim > 1) assert_int_equal(t->shape[1], d1);
  return t->data;
}

static void expect_close(const char *what, int64_t i, int64_t j, double got, double want, double rtol) {
  if (!(fabs(got - want) <= rtol * fabs(want) + 1e-7))
    fail_msg("%s[%" PRId64 ", %" PRId64 "] = %.9g, expected %.9g", what, i, j, got, want);
}

static void test_gemm(void **state) {
  (void)state;
  enum { M = 96, N = 80, K = 72 };
  run r;
  run_example("gemm.py", NULL, 0, NULL, 0, &r);
  const uint16_t *a = data_of(&r, 0, M, K), *b = data_of(&r, 1, K, N), *c = data_of(&r, 2, M, N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++) {
        float prod = tl__f16_to_f32(a[i * K + k]) * tl__f16_to_f32(b[k * N + j]);
        acc = acc + prod;
      }
      if (c[i * N + j] != tl__f32_to_f16(acc))
        fail_msg("C[%d, %d] = 0x%04x, expected 0x%04x", i, j, c[i * N + j], tl__f32_to_f16(acc));
    }
  run_free(&r);
}

static void test_softmax(void **state) {
  (void)state;
  enum { M = 48, N = 80 };
  run r;
  run_example("softmax.py", NULL, 0, NULL, 0, &r);
  const float *x = data_of(&r, 0, M, N), *y = data_of(&r, 1, M, N);
  for (int i = 0; i < M; i++) {
    double mx = -INFINITY, s = 0;
    for (int j = 0; j < N; j++) mx = fmax(mx, x[i * N + j]);
    for (int j = 0; j < N; j++) s += exp(x[i * N + j] - mx);
    for (int j = 0; j < N; j++) expect_close("Y", i, j, y[i * N + j], exp(x[i * N + j] - mx) / s, 1e-5);
  }
  run_free(&r);
}

static void test_rms_norm(void **state) {
  (void)state;
  enum { M = 45, N = 96 };
  run r;
  run_example("rms_norm.py", NULL, 0, NULL, 0, &r);
  const float *a = data_of(&r, 0, M, N), *w = data_of(&r, 1, N, 0), *b = data_of(&r, 2, M, N);
  for (int i = 0; i < M; i++) {
    double ss = 0;
    for (int j = 0; j < N; j++) ss += (double)a[i * N + j] * a[i * N + j];
    double scale = 1.0 / sqrt(ss / N + 1e-6);
    for (int j = 0; j < N; j++) expect_close("B", i, j, b[i * N + j], a[i * N + j] * scale * w[j], 1e-5);
  }
  run_free(&r);
}

static void check_cumsum(bool reverse) {
  enum { M = 24, N = 64 };
  run r;
  tl_ir_const_binding rev = {"reverse", "True"};
  run_example("cumsum.py", reverse ? &rev : NULL, reverse ? 1 : 0, NULL, 0, &r);
  const float *a = data_of(&r, 0, M, N), *b = data_of(&r, 1, M, N);
  for (int i = 0; i < M; i++) {
    float acc = 0;
    for (int s = 0; s < N; s++) {
      int j = reverse ? N - 1 - s : s;
      acc += a[i * N + j];
      if (b[i * N + j] != acc) fail_msg("B[%d, %d] = %.9g, expected %.9g (reverse=%d)", i, j, (double)b[i * N + j], (double)acc, reverse);
    }
  }
  run_free(&r);
}

static void test_cumsum(void **state) {
  (void)state;
  check_cumsum(false);
  check_cumsum(true);
}

static void test_transpose(void **state) {
  (void)state;
  enum { M = 70, N = 45 };
  run r;
  tlc_dim_binding dims[] = {{"M", "70"}, {"N", "45"}};
  run_example("transpose.py", NULL, 0, dims, 2, &r);
  const float *a = data_of(&r, 0, M, N), *b = data_of(&r, 1, N, M);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) assert_true(b[j * M + i] == a[i * N + j]);
  run_free(&r);
}

static void test_row_sum_and_max(void **state) {
  (void)state;
  run r;
  run_example("row_sum.py", NULL, 0, NULL, 0, &r);
  const float *a = data_of(&r, 0, 70, 64), *s = data_of(&r, 1, 70, 0);
  for (int i = 0; i < 70; i++) {
    float acc = 0;
    for (int j = 0; j < 64; j++) acc += a[i * 64 + j];
    assert_true(s[i] == acc);
  }
  run_free(&r);
  /* row_max: rows of 50 in tiles of 32, so the second tile hangs over the edge. */
  tlc_dim_binding dims[] = {{"M", "20"}, {"N", "50"}};
  run_example("row_max.py", NULL, 0, dims, 2, &r);
  const float *x = data_of(&r, 0, 20, 50), *mx = data_of(&r, 1, 20, 0);
  for (int i = 0; i < 20; i++) {
    float m = -INFINITY;
    for (int j = 0; j < 50; j++) m = x[i * 50 + j] > m ? x[i * 50 + j] : m;
    assert_true(mx[i] == m);
  }
  run_free(&r);
}

static void test_adds(void **state) {
  (void)state;
  run r;
  run_example("elementwise_add.py", NULL, 0, NULL, 0, &r);
  const float *a = data_of(&r, 0, 100, 120), *b = data_of(&r, 1, 100, 120), *c = data_of(&r, 2, 100, 120);
  for (int k = 0; k < 100 * 120; k++) assert_true(c[k] == a[k] + b[k]);
  run_free(&r);
  tlc_dim_binding dims[] = {{"N", "1000"}};
  run_example("vector_add.py", NULL, 0, dims, 1, &r);
  a = data_of(&r, 0, 1000, 0);
  b = data_of(&r, 1, 1000, 0);
  c = data_of(&r, 2, 1000, 0);
  for (int k = 0; k < 1000; k++) assert_true(c[k] == a[k] + b[k]);
  run_free(&r);
}

/* Flash decoding (flash_decoding.py): the split kernel's partial outputs and
 * log-sum-exps fed to the combine kernel give softmax(q K^T / sqrt(dim)) V of
 * each head against its kv head (h / (heads / kv_heads)), computed here in double. */
static void check_flash_decoding(const tl_ir_const_binding *consts, size_t nconsts, int heads, int kv_heads,
                                 int seqlen, int dim) {
  run sp, cb;
  run_example_func("flash_decoding.py", "flashattn_split", consts, nconsts, NULL, 0, &sp);
  run_example_func("flash_decoding.py", "flashattn_combine", consts, nconsts, NULL, 0, &cb);
  /* combine(Output_partial, Lse, Output) reads split(Q, K, V, Output_partial, Lse)'s outputs */
  for (uint32_t i = 0; i < 2; i++) {
    const DLTensor *from = &sp.io->tensors[3 + i];
    memcpy(cb.io->tensors[i].data, from->data, numel(from) * sizeof(float));
  }
  TL_ASSERT_OK(tl_ir_interpret(cb.m, cb.f->name, cb.io->args, (int)cb.io->n));
  const DLTensor *q = &sp.io->tensors[0], *k = &sp.io->tensors[1], *v = &sp.io->tensors[2];
  const DLTensor *o = &cb.io->tensors[2];
  tl_dtype f16 = dt_of(q->dtype);
  assert_int_equal(numel(o), (uint64_t)heads * dim);
  double *p = calloc((size_t)seqlen, sizeof *p);
  assert_non_null(p);
  for (int h = 0; h < heads; h++) {
    int g = h / (heads / kv_heads);
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < seqlen; j++) {
      double dot = 0;
      for (int d = 0; d < dim; d++)
        dot += elem_read(f16, (const uint16_t *)q->data + h * dim + d) *
               elem_read(f16, (const uint16_t *)k->data + ((size_t)g * seqlen + j) * dim + d);
      p[j] = dot / sqrt((double)dim);
      mx = fmax(mx, p[j]);
    }
    for (int j = 0; j < seqlen; j++) sum += p[j] = exp(p[j] - mx);
    for (int d = 0; d < dim; d++) {
      double want = 0;
      for (int j = 0; j < seqlen; j++)
        want += p[j] / sum * elem_read(f16, (const uint16_t *)v->data + ((size_t)g * seqlen + j) * dim + d);
      double got = elem_read(f16, (const uint16_t *)o->data + h * dim + d);
      /* P is rounded to float16 before P V, and O to float16 at the end */
      if (!(fabs(got - want) <= 1e-2 * fabs(want) + 2e-3))
        fail_msg("flash_decoding Output[0, %d, %d] = %.6g, expected %.6g", h, d, got, want);
    }
  }
  free(p);
  run_free(&cb);
  run_free(&sp);
}

static void test_flash_decoding(void **state) {
  (void)state;
  check_flash_decoding(NULL, 0, 4, 2, 100, 32);
  /* four splits of 20 keys (the last 17), tiles of 16 that cross into the next split */
  tl_ir_const_binding c[] = {{"num_split", "4"}, {"seqlen_kv", "77"}, {"block_N", "16"}};
  check_flash_decoding(c, 3, 4, 2, 77, 32);
}

/* Every example interprets; those above are also checked against references. */
static void test_every_example_runs(void **state) {
  (void)state;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0) continue;
    /* A file with several kernels (flash_decoding.py's split and combine) runs each one. */
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, e->d_name);
    tl_ir_module *all = NULL;
    TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &all));
    for (size_t fi = 0; fi < tl_ir_module_num_funcs(all); fi++) {
      run r;
      run_example_func(e->d_name, tl_ir_module_func(all, fi)->name, NULL, 0, NULL, 0, &r);
      /* Every output was written: no poison (NaN) is left in it. */
      for (uint32_t i = 0; i < r.io->n; i++) {
        if (!r.io->is_output[i]) continue;
        const DLTensor *t = &r.io->tensors[i];
        tl_dtype dt = dt_of(t->dtype);
        uint64_t cnt = numel(t);
        for (uint64_t k = 0; k < cnt; k++)
          if (tl_dtype_is_float(dt) && isnan(elem_read(dt, (const char *)t->data + k * tl_dtype_bytes(dt))))
            fail_msg("%s: output '%s' element %" PRIu64 " is NaN", e->d_name, r.f->params[i].name, k);
      }
      run_free(&r);
    }
    tl_ir_module_free(all);
    n++;
  }
  closedir(d);
  assert_true(n >= 9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_rms_norm),
      cmocka_unit_test(test_cumsum),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_row_sum_and_max),
      cmocka_unit_test(test_adds),
      cmocka_unit_test(test_flash_decoding),
      cmocka_unit_test(test_every_example_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tlc's kernel input/output helpers (tools/tlc/kernel_io.c, compiled into this
 * test): shapes from symbolic dimension values, which parameters are outputs,
 * deterministic seeded inputs, poisoned write-only outputs, checksums, and the
 * comparison that reports the worst element. */
#include <stdio.h>
#include <stdlib.h>

#include "../../tools/tlc/kernel_io.c"
#include "interp_util.h"

#define GLOBAL TL_SCOPE_GLOBAL

typedef struct fixture {
  tl_ir_module *m;
  tl_ir_func *f;
} fixture;

/* f(A: float16[N, 8], B: int32[N], C: float32[N], D: float32[N] (jit output),
 *   scale: float32, k: int32): C[i] = A[i, 0] * scale + B[i]; D never written. */
static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  tl_ir_module *m;
  if (!fx || tl_ir_module_create(&m) != TL_OK) return -1;
  fx->m = m;
  tl_ir_var *N = tl_ir_var_new(m, "N", TL_DT_INT32), *scale = tl_ir_var_new(m, "scale", TL_DT_FLOAT32),
            *k = tl_ir_var_new(m, "k", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32),
            *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_buffer *A = buf2(m, "A", TL_DT_FLOAT16, VAR(N), I32(8), GLOBAL), *B = buf1(m, "B", TL_DT_INT32, VAR(N), GLOBAL),
               *C = buf1(m, "C", TL_DT_FLOAT32, VAR(N), GLOBAL), *D = buf1(m, "D", TL_DT_FLOAT32, VAR(N), GLOBAL);
  tl_ir_expr *val = ADD(MUL(tl_ir_cast(m, TL_DT_FLOAT32, LOAD(A, VAR(i), I32(0))), VAR(scale)),
                        tl_ir_cast(m, TL_DT_FLOAT32, LOAD(B, VAR(i))));
  tl_ir_stmt *body = kernel2(m, I32(1), NULL, bx, NULL, single_var_loop(m, TL_FOR_SERIAL, i, VAR(N), STORE(C, val, VAR(i))));
  tl_ir_func *f;
  if (!body || tl_ir_func_new(m, "f", &f) != TL_OK || tl_ir_func_add_buffer_param(m, f, A, false) != TL_OK ||
      tl_ir_func_add_buffer_param(m, f, B, false) != TL_OK || tl_ir_func_add_buffer_param(m, f, C, false) != TL_OK ||
      tl_ir_func_add_buffer_param(m, f, D, true) != TL_OK || tl_ir_func_add_scalar_param(m, f, scale) != TL_OK ||
      tl_ir_func_add_scalar_param(m, f, k) != TL_OK)
    return -1;
  f->body = body;
  fx->f = f;
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  tl_ir_module_free(fx->m);
  free(fx);
  return 0;
}

static void test_shapes_outputs_and_fill(void **state) {
  fixture *fx = *state;
  TL_ASSERT_OK(tl_ir_verify_module(fx->m));
  tlc_dim_binding dims[] = {{"N", "13"}, {"scale", "0.5"}};
  tlc_kernel_io *io, *io2, *io3;
  TL_ASSERT_OK(tlc_kernel_io_create(fx->m, fx->f, dims, 2, TLC_DEFAULT_DIM, 1, &io));
  assert_int_equal(io->n, 6);
  assert_int_equal(io->tensors[0].ndim, 2);
  assert_int_equal(io->tensors[0].shape[0], 13);
  assert_int_equal(io->tensors[0].shape[1], 8);
  assert_int_equal(io->tensors[2].shape[0], 13);
  assert_true(io->args[4].kind == TL_VALUE_FLOAT && io->args[4].v.f == 0.5);
  assert_true(io->args[5].kind == TL_VALUE_INT && io->args[5].v.i == TLC_DEFAULT_DIM);
  bool outs[] = {false, false, true, true, false, false}, reads[] = {true, true, false, false, false, false};
  for (int p = 0; p < 6; p++) {
    assert_int_equal(io->is_output[p], outs[p]);
    assert_int_equal(io->is_read[p], reads[p]);
  }
  tlc_kernel_io_fill(io, 7);
  const uint16_t *a = io->tensors[0].data;
  const int32_t *b = io->tensors[1].data;
  const float *c = io->tensors[2].data;
  bool varied = false;
  for (int k = 0; k < 13 * 8; k++) {
    double x = tl__f16_to_f64(a[k]);
    assert_true(x >= -1.0 && x <= 1.0);
    varied |= a[k] != a[0];
  }
  assert_true(varied);
  for (int k = 0; k < 13; k++) {
    assert_true(b[k] >= -8 && b[k] <= 8);
    assert_true(isnan(c[k])); /* write-only: poisoned */
  }
  /* The same seed gives the same inputs; another seed others. */
  TL_ASSERT_OK(tlc_kernel_io_create(fx->m, fx->f, dims, 2, TLC_DEFAULT_DIM, 1, &io2));
  tlc_kernel_io_fill(io2, 7);
  assert_memory_equal(io2->tensors[0].data, a, 13 * 8 * 2);
  assert_memory_equal(io2->tensors[1].data, b, 13 * 4);
  tlc_kernel_io_fill(io2, 8);
  assert_memory_not_equal(io2->tensors[0].data, a, 13 * 8 * 2);
  /* A clone copies the contents. */
  TL_ASSERT_OK(tlc_kernel_io_clone(io, &io3));
  assert_memory_equal(io3->tensors[0].data, a, 13 * 8 * 2);
  assert_ptr_not_equal(io3->tensors[0].data, a);
  assert_ptr_equal(io3->args[0].v.tensor, (void *)&io3->tensors[0]);
  tlc_kernel_io_free(io3);
  tlc_kernel_io_free(io2);

  /* Run it and print the checksums of C and D. */
  TL_ASSERT_OK(tl_ir_interpret(fx->m, "f", io->args, (int)io->n));
  double sum = 0, abssum = 0;
  for (int k = 0; k < 13; k++) {
    float want = (float)tl__f16_to_f64(a[k * 8]) * 0.5f + (float)b[k];
    assert_true(c[k] == want);
    sum += want;
    abssum += fabs(want);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  tlc_kernel_io_print_checksums(io, f);
  fclose(f);
  char want_c[128];
  snprintf(want_c, sizeof want_c, "C float32[13] sum=%.9g abssum=%.9g hash=%016" PRIx64 "\n", sum, abssum,
           tl__hash_bytes(c, 13 * 4, 0));
  assert_true(strncmp(text, want_c, strlen(want_c)) == 0);
  assert_non_null(strstr(text, "\nD float32[13] sum=nan abssum=nan hash="));
  free(text);
  tlc_kernel_io_free(io);
}

static void test_bindings(void **state) {
  fixture *fx = *state;
  tlc_kernel_io *io;
  TL_ASSERT_ERR(tlc_kernel_io_create(fx->m, fx->f, (tlc_dim_binding[]){{"M", "3"}}, 1, 10, 0, &io), TL_EINVAL,
                "--dim M: 'f' has no symbolic dimension or scalar parameter named so");
  TL_ASSERT_ERR(tlc_kernel_io_create(fx->m, fx->f, (tlc_dim_binding[]){{"N", "x3"}}, 1, 10, 0, &io), TL_EINVAL,
                "--dim N=x3: expected an integer");
  TL_ASSERT_ERR(tlc_kernel_io_create(fx->m, fx->f, (tlc_dim_binding[]){{"scale", "fast"}}, 1, 10, 0, &io), TL_EINVAL,
                "--dim scale=fast: expected a number");
  TL_ASSERT_ERR(tlc_kernel_io_create(fx->m, fx->f, (tlc_dim_binding[]){{"N", "-2"}}, 1, 10, 0, &io), TL_EINVAL,
                "parameter 'A': dimension 0 is negative (-2)");
  /* Defaults: N and k take the default; the float scalar is drawn from the seed. */
  TL_ASSERT_OK(tlc_kernel_io_create(fx->m, fx->f, (tlc_dim_binding[]){{"k", "5"}}, 1, 10, 3, &io));
  assert_int_equal(io->tensors[0].shape[0], 10);
  assert_int_equal(io->args[5].v.i, 5);
  assert_true(io->args[4].v.f >= -1 && io->args[4].v.f <= 1);
  tlc_kernel_io_free(io);
}

static void test_compare(void **state) {
  (void)state;
  float g[6] = {1, 2, 3, 4, 5, NAN}, e[6] = {1, 2, 3, 4, 5, NAN};
  host_tensor hg, he;
  ht_wrap(&hg, TL_DT_FLOAT32, g, 2, 2, 3);
  ht_wrap(&he, TL_DT_FLOAT32, e, 2, 2, 3);
  double rtol, atol;
  tlc_default_tolerance(TL_DT_FLOAT32, &rtol, &atol);
  assert_true(rtol == 1e-4 && atol == 1e-5);
  tlc_compare_result r;
  TL_ASSERT_OK(tlc_compare_tensors(&hg.t, &he.t, rtol, atol, &r));
  assert_int_equal(r.mismatches, 0);
  assert_int_equal(r.checked, 6);
  g[4] = 5.0001f; /* within tolerance */
  g[2] = 3.1f;    /* not */
  TL_ASSERT_OK(tlc_compare_tensors(&hg.t, &he.t, rtol, atol, &r));
  assert_int_equal(r.mismatches, 1);
  assert_int_equal(r.worst_index, 2);
  char msg[256];
  tlc_compare_describe(&hg.t, &r, msg, sizeof msg);
  assert_string_equal(msg, "worst element [0, 2]: got 3.0999999, expected 3 (1 of 6 elements differ)");
  g[5] = 0; /* NaN expected, a number got */
  TL_ASSERT_OK(tlc_compare_tensors(&hg.t, &he.t, rtol, atol, &r));
  assert_int_equal(r.mismatches, 2);
  assert_int_equal(r.worst_index, 5);
  /* Integers must match exactly; shapes must agree. */
  int32_t gi[2] = {1, 2}, ei[2] = {1, 3};
  host_tensor hgi, hei;
  ht_wrap(&hgi, TL_DT_INT32, gi, 1, 2, 0);
  ht_wrap(&hei, TL_DT_INT32, ei, 1, 2, 0);
  tlc_default_tolerance(TL_DT_INT32, &rtol, &atol);
  TL_ASSERT_OK(tlc_compare_tensors(&hgi.t, &hei.t, rtol, atol, &r));
  assert_int_equal(r.mismatches, 1);
  hei.shape[0] = 1;
  TL_ASSERT_ERR(tlc_compare_tensors(&hgi.t, &hei.t, rtol, atol, &r), TL_EINVAL, "differ in dimension 0 (2 and 1)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shapes_outputs_and_fill, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bindings, setup, teardown),
      cmocka_unit_test(test_compare),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

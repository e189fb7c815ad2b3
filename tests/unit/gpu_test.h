/* Helpers for the GPU pipeline tests: lowering with the shared GPU pass list for
 * a target (cuda sm_90 with warp 32, hip gfx90a with warp 64, opencl with warp
 * 1), and the differential check: the SIMT-interpreted lowered module against
 * the tile-level interpretation on the same seeded inputs, exact or within a
 * tolerance (cross-thread float reductions change the summation order). */
#ifndef TL_GPU_TEST_H
#define TL_GPU_TEST_H

#include "backends/cuda/pipeline.h"
#include "backends/gpu_pipeline.h"
#include "pass_test.h"

typedef struct gpu_target {
  const char *name; /* for messages */
  const char *spec; /* target JSON */
  int64_t warp;     /* expected warp size */
} gpu_target;

/* target_device_type 1: the host entries check for CPU tensors, the memory the
 * interpreter runs kernels on (test_gpu_pipeline checks the real device types). */
static const gpu_target k_gpu_targets[] = {
    {"cuda", "{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"target_device_type\":1}", 32},
    {"hip", "{\"kind\":\"hip\",\"mcpu\":\"gfx90a\",\"target_device_type\":1}", 64},
    {"opencl", "{\"kind\":\"opencl\",\"target_device_type\":1}", 1},
};
#define GPU_NTARGETS (sizeof k_gpu_targets / sizeof k_gpu_targets[0])

/* The parameters the tests lower with: cuda's own pipeline parameters; hip with a
 * wavefront of 64 (gfx9) unless the target says otherwise; opencl from its
 * target (warp 1, 256 threads, 16 KB of shared memory). */
static inline void gpu_test_params(const tl_target *t, tl__gpu_params *p) {
  const char *kind = tl_target_kind(t);
  if (strcmp(kind, "cuda") == 0) {
    tl__cuda_gpu_params(t, p);
  } else if (strcmp(kind, "hip") == 0) {
    tl__gpu_params d = {64, 1024, 64 * 1024, 64 * 1024, 16, NULL, 0, false};
    tl__gpu_params_from_target(t, &d, p);
  } else {
    tl__gpu_params d = {1, 256, 16 * 1024, 16 * 1024, 16, NULL, 0, false};
    tl__gpu_params_from_target(t, &d, p);
  }
}

/* Lowers m in place for target spec (semantic check first) inside a session that
 * verifies after every pass; TL_LOWER_PRINT=1 prints the result. */
static inline tl_status gpu_lower(tl_ir_module *m, const char *spec) {
  static const char *const cfg[] = {"tl.verify_after_each_pass=1", NULL};
  tl_target *t = NULL;
  tl_status s = tl_target_parse(spec, &t);
  if (s != TL_OK) return s;
  tl__session ses;
  tl__session_init(&ses);
  ses.pass_configs = cfg;
  ses.trace = false;
  tl__session *prev = tl__session_enter(&ses);
  s = tl__pass_semantic_check(m, t);
  if (s == TL_OK) {
    if (strcmp(tl_target_kind(t), "cuda") == 0) {
      s = tl__cuda_pipeline.lower(m, t, tl__cuda_pipeline.user_data);
    } else {
      tl__gpu_params p;
      gpu_test_params(t, &p);
      s = tl__gpu_lower(m, t, &p);
    }
  }
  tl__session_exit(prev);
  tl__session_free(&ses);
  tl_target_release(t);
  if (s == TL_OK && getenv("TL_LOWER_PRINT")) {
    char *text = tl_ir_print_module(m);
    fprintf(stderr, "%s\n", text ? text : "(print failed)");
    tl_free(text);
  }
  return s;
}

/* Values of tensor i as doubles (element k). */
static inline double gpu_elem(const pt_args *a, uint32_t i, size_t k) {
  const DLTensor *t = &a->tensors[i];
  tl_dtype dt = {t->dtype.code, t->dtype.bits, t->dtype.lanes};
  const char *p = (const char *)t->data + k * tl_dtype_bytes(dt);
  if (dt.code == TL_DTYPE_FLOAT && dt.bits == 32) return *(const float *)p;
  if (dt.code == TL_DTYPE_FLOAT && dt.bits == 64) return *(const double *)p;
  if (dt.code == TL_DTYPE_FLOAT && dt.bits == 16) return tl__f16_to_f64(*(const uint16_t *)p);
  if (dt.code == TL_DTYPE_BFLOAT) return tl__bf16_to_f64(*(const uint16_t *)p);
  int64_t v = 0;
  memcpy(&v, p, dt.bits / 8);
  return (double)v;
}

/* Compares tensor i of got with ref: bytes equal, or (tol > 0, float) every
 * element within tol * (1 + |ref|), NaN where ref has NaN. */
static inline void gpu_compare(const pt_args *ref, const pt_args *got, uint32_t i, double tol, const char *param,
                               const char *what) {
  long d = pt_first_diff(ref, got, i);
  if (d < 0) return;
  const DLTensor *t = &ref->tensors[i];
  tl_dtype dt = {t->dtype.code, t->dtype.bits, t->dtype.lanes};
  size_t esz = tl_dtype_bytes(dt);
  if (tol <= 0 || !tl_dtype_is_float(dt))
    fail_msg("%s: parameter '%s' differs at element %ld (%.9g vs %.9g)", what, param, d / (long)esz,
             gpu_elem(got, i, (size_t)d / esz), gpu_elem(ref, i, (size_t)d / esz));
  size_t n = ref->nbytes[i] / esz;
  for (size_t k = 0; k < n; k++) {
    double a = gpu_elem(ref, i, k), b = gpu_elem(got, i, k);
    if (isnan(a) || isnan(b)) {
      if (isnan(a) != isnan(b)) fail_msg("%s: parameter '%s' element %zu: %.9g vs %.9g", what, param, k, b, a);
      continue;
    }
    if (fabs(a - b) > tol * (1.0 + fabs(a)))
      fail_msg("%s: parameter '%s' element %zu: %.9g vs %.9g (beyond %g)", what, param, k, b, a, tol);
  }
}

/* When set, lowered modules run every kernel with threads in SIMT mode (module
 * attribute tl.interp.simt = 1), also those the interpreter would run thread
 * after thread (no barriers, shuffles, shared memory or atomics). */
static bool g_gpu_force_simt;

/* Lowers a clone of m for the target and runs `func` both ways on seeded inputs. */
static inline void gpu_differential(const tl_ir_module *m, const char *func, const pt_dim *dims, size_t ndims,
                                    uint64_t seed, const gpu_target *tg, double tol, const char *what) {
  char label[1400];
  snprintf(label, sizeof label, "%s [%s]", what, tg->name);
  tl_ir_module *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  tl_status s = gpu_lower(low, tg->spec);
  if (s != TL_OK) fail_msg("%s: lowering failed: %s", label, tl_last_error());
  if (g_gpu_force_simt) TL_ASSERT_OK(tl_ir_module_set_attr_int(low, "tl.interp.simt", 1));
  const tl_ir_func *hf = tl_ir_module_find_func(low, func);
  assert_non_null(hf);
  assert_int_equal(hf->callconv, TL_CALLCONV_PACKED);
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args ref = pt_args_make(f, dims, ndims, seed);
  pt_args got = pt_args_copy(&ref);
  s = tl_ir_interpret(m, func, ref.values, (int)ref.n);
  if (s != TL_OK) fail_msg("%s: interpreting the tile-level function failed: %s", label, tl_last_error());
  s = tl_ir_interpret(low, func, got.values, (int)got.n);
  if (s != TL_OK) fail_msg("%s: interpreting the lowered module failed: %s", label, tl_last_error());
  for (uint32_t i = 0; i < ref.n; i++)
    if (ref.values[i].kind == TL_VALUE_TENSOR) gpu_compare(&ref, &got, i, tol, f->params[i].name, label);
  pt_args_free(&ref);
  pt_args_free(&got);
  tl_ir_module_free(low);
}

#endif

/* Running a kernel through a backend context as the engine does (semantic check,
 * the backend's pipeline, device and host codegen through the context, build and
 * load by the execution backend the context resolved, in a scratch directory), and
 * checking it against the interpreter on the tile-level function with seeded random
 * inputs. Shared by the backend tests and the conformance suite. */
#ifndef TL_BACKEND_RUN_H
#define TL_BACKEND_RUN_H

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "pass_test.h"
#include "runtime/exec_backend.h"
#include "runtime/kernel.h"
#include "tilelang/backend.h"

/* A fresh scratch directory (free() the path; br_rmdir removes it). */
static inline char *br_mkdtemp(void) {
  const char *tmp = getenv("TMPDIR");
  char buf[512];
  snprintf(buf, sizeof buf, "%s/tl-backend-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  char *dir = strdup(buf);
  assert_non_null(dir);
  assert_non_null(mkdtemp(dir));
  return dir;
}

/* Removes a scratch directory and the files in it. */
static inline void br_rmdir(char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
  free(dir);
}

/* Lowered module and artifacts of one compilation (what the engine hands the
 * execution backend). */
typedef struct br_build {
  tl_ir_module *work;
  tl_artifact *device, *host;
} br_build;

static inline void br_build_free(br_build *b) {
  tl_artifact_release(b->device);
  tl_artifact_release(b->host);
  tl_ir_module_free(b->work);
  memset(b, 0, sizeof *b);
}

/* Semantic check, lowering and code generation through the context. */
static inline tl_status br_codegen(const tl_ir_module *m, tl_backend_context *ctx, br_build *out) {
  memset(out, 0, sizeof *out);
  const tl_target *target = tl_backend_context_target(ctx);
  const tl_execution_backend_spec *spec = tl_backend_context_execution_backend(ctx);
  tl_status s = tl_ir_module_clone(m, &out->work);
  if (s == TL_OK) s = tl__pass_semantic_check(out->work, target);
  if (s == TL_OK) s = tl_backend_context_lower(ctx, out->work);
  if (s == TL_OK) s = tl_backend_context_codegen_device(ctx, out->work, -1, &out->device);
  if (s == TL_OK && spec->enable_host_codegen) s = tl_backend_context_preprocess_host_codegen(ctx, out->work);
  if (s == TL_OK && spec->enable_host_codegen) s = tl_backend_context_codegen_host(ctx, out->work, &out->host);
  return s;
}

/* What tl_compile does for one context: codegen, then build and load by the
 * resolved execution backend's implementation in `dir` (a fresh scratch directory
 * when NULL, removed afterwards). */
static inline tl_status br_compile_in(const tl_ir_module *m, const char *func, tl_backend_context *ctx,
                                      const char *dir, tl_kernel **out) {
  *out = NULL;
  const tl_execution_backend_spec *spec = tl_backend_context_execution_backend(ctx);
  const tl__exec_impl *impl = tl__find_exec_impl(spec->name);
  if (!impl) return tl__error(TL_ENOTFOUND, "no execution backend implementation '%s'", spec->name);
  br_build b;
  tl_status s = br_codegen(m, ctx, &b);
  char *scratch = NULL;
  if (s == TL_OK && !dir) dir = scratch = br_mkdtemp();
  const tl_kernel_table *table = b.device ? tl_artifact_kernel_table(b.device) : NULL;
  tl__build_request req = {func, tl_backend_context_target(ctx), b.device, b.host, table, NULL};
  tl__loaded loaded = {0};
  if (s == TL_OK) s = impl->build(&req, dir);
  if (s == TL_OK) s = impl->load(&req, dir, &loaded);
  if (s == TL_OK) {
    tl__kernel_desc d = {func,  req.target, spec->name, table, tl_artifact_source(b.device),
                         b.host ? tl_artifact_source(b.host) : NULL, false, impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  if (scratch) br_rmdir(scratch);
  br_build_free(&b);
  return s;
}

static inline tl_status br_compile(const tl_ir_module *m, const char *func, tl_backend_context *ctx, tl_kernel **out) {
  return br_compile_in(m, func, ctx, NULL, out);
}

static inline double br_elem(tl_dtype t, const void *p, size_t i) {
  const char *c = (const char *)p + i * tl_dtype_bytes(t);
  if (t.code == TL_DTYPE_FLOAT && t.bits == 32) return *(const float *)(const void *)c;
  if (t.code == TL_DTYPE_FLOAT && t.bits == 64) return *(const double *)(const void *)c;
  if (t.code == TL_DTYPE_FLOAT && t.bits == 16) return tl__f16_to_f64(*(const uint16_t *)(const void *)c);
  if (t.code == TL_DTYPE_BFLOAT) return tl__bf16_to_f64(*(const uint16_t *)(const void *)c);
  int64_t v = 0;
  memcpy(&v, c, t.bits / 8);
  if (t.code == TL_DTYPE_INT && t.bits < 64 && (v >> (t.bits - 1)) & 1) v |= ~((1ll << t.bits) - 1);
  return (double)v;
}

/* Every tensor of `got` against `want`: bytes equal when tol is 0, else floats
 * within tol * (1 + |want|) (NaN where want has NaN) and integers exactly. */
static inline void br_compare(const tl_ir_func *f, const pt_args *want, const pt_args *got, double tol,
                              const char *what) {
  for (uint32_t i = 0; i < want->n; i++) {
    if (want->values[i].kind != TL_VALUE_TENSOR) continue;
    tl_dtype t = f->params[i].buffer->dtype;
    size_t count = want->nbytes[i] / tl_dtype_bytes(t);
    for (size_t k = 0; k < count; k++) {
      double x = br_elem(t, want->tensors[i].data, k), y = br_elem(t, got->tensors[i].data, k);
      bool ok = tl_dtype_is_float(t) && tol > 0 ? (fabs(x - y) <= tol * (1.0 + fabs(x)) || (isnan(x) && isnan(y)))
                                                : (x == y || (isnan(x) && isnan(y)));
      if (!ok)
        fail_msg("%s: '%s'[%zu] is %.9g, the interpreter says %.9g", what, f->params[i].name, k, y, x);
    }
  }
}

/* The tolerance for an example on a device: float sums across threads change the
 * order of additions, and device math (exp, exp2, rsqrt) is not the host's libm. */
static inline double br_tolerance(const tl_ir_func *f) {
  double tol = 0;
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (f->params[i].kind != TL_PARAM_BUFFER) continue;
    tl_dtype t = f->params[i].buffer->dtype;
    if (!tl_dtype_is_float(t)) continue;
    double d = t.bits == 16 ? 1e-2 : t.bits == 32 ? 2e-5 : 1e-12;
    if (d > tol) tol = d;
  }
  return tol;
}

/* Compiles `func` of m for ctx, runs it on seeded inputs (dims name the symbolic
 * dims and scalars) and compares with the interpreter. */
static inline void br_check(tl_backend_context *ctx, const tl_ir_module *m, const char *func, const pt_dim *dims,
                            size_t ndims, uint64_t seed, const char *what) {
  tl_kernel *k = NULL;
  tl_status s = br_compile(m, func, ctx, &k);
  if (s != TL_OK) fail_msg("%s: compiling failed: %s", what, tl_last_error());
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args want = pt_args_make(f, dims, ndims, seed);
  pt_args got = pt_args_copy(&want);
  TL_ASSERT_OK(tl_ir_interpret(m, func, want.values, (int)want.n));
  s = tl_kernel_call(k, got.values, (int)got.n, NULL);
  if (s != TL_OK) fail_msg("%s: the call failed: %s", what, tl_last_error());
  br_compare(f, &want, &got, br_tolerance(f), what);
  pt_args_free(&want);
  pt_args_free(&got);
  tl_kernel_release(k);
}

#endif

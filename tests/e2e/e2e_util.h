/* Helpers of the end-to-end tests: parse an example with bindings, compile it with
 * tl_compile, run it and the reference interpreter on the same seeded inputs, and
 * compare every output (tools/tlc/kernel_io.c's tolerances). */
#ifndef TL_E2E_UTIL_H
#define TL_E2E_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/files.h"
#include "kernel_io.h"
#include "tilelang/backend.h"
#include "tilelang/engine.h"
#include "tl_test.h"

/* A tensor argument (dlpack's DLTensor is an anonymous struct; tl_value names the
 * tag). */
static inline tl_value e2e_tensor(DLTensor *t) { return tl_value_tensor((struct DLTensor *)(void *)t); }

/* An example file's path under the source tree (static buffer). */
static inline const char *e2e_example(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s.py", TL_SOURCE_DIR, name);
  return path;
}

/* Parses function `func` of `path` (NULL: all of them) with the bindings ("K=V" strings, NULL-terminated). */
static inline tl_ir_module *e2e_parse_file_func(const char *path, const char *func, const char *const *params) {
  tl_ir_const_binding b[16];
  char names[16][64];
  size_t n = 0;
  for (; params && params[n]; n++) {
    const char *eq = strchr(params[n], '=');
    assert_non_null(eq);
    assert_true(n < 16 && (size_t)(eq - params[n]) < sizeof names[n]);
    memcpy(names[n], params[n], (size_t)(eq - params[n]));
    names[n][eq - params[n]] = '\0';
    b[n].name = names[n];
    b[n].value = eq + 1;
  }
  /* One function of several may not read every binding; the whole file's parse checks them all. */
  tl_ir_parse_options o = {sizeof o, b, n, func, func != NULL};
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, &o, &m));
  return m;
}

/* Parses `path` with the bindings ("K=V" strings, NULL-terminated). */
static inline tl_ir_module *e2e_parse_file(const char *path, const char *const *params) {
  return e2e_parse_file_func(path, NULL, params);
}

/* True if the execution backend `exec` can be used for target c here; prints why not. */
static inline bool e2e_exec_available(const char *exec) {
  tl_backend_context *ctx = NULL;
  tl_status s = tl_create_backend_context("c", NULL, exec, &ctx);
  tl_backend_context_release(ctx);
  if (s != TL_OK) printf("[ SKIPPED  ] execution backend '%s': %s\n", exec, tl_last_error());
  return s == TL_OK;
}

/* Options for target c with execution backend `exec`. */
static inline tl_compile_options e2e_options(const char *exec) {
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = "c";
  o.execution_backend = exec;
  return o;
}

/* Runs kernel k and the interpreter on the same inputs (dims "N=V" bindings) and
 * asserts every output matches; returns the number of elements compared. */
static inline uint64_t e2e_run_and_compare(const tl_ir_module *m, const tl_ir_func *f, tl_kernel *k,
                                           const tlc_dim_binding *dims, size_t ndims, uint64_t seed) {
  tlc_kernel_io *io = NULL, *ref = NULL;
  TL_ASSERT_OK(tlc_kernel_io_create(m, f, dims, ndims, TLC_DEFAULT_DIM, seed, &io));
  tlc_kernel_io_fill(io, seed);
  TL_ASSERT_OK(tlc_kernel_io_clone(io, &ref));
  TL_ASSERT_OK(tl_kernel_call(k, io->args, (int)io->n, NULL));
  TL_ASSERT_OK(tl_ir_interpret(m, f->name, ref->args, (int)ref->n));
  uint64_t compared = 0;
  int outputs = 0;
  for (uint32_t i = 0; i < io->n; i++) {
    if (!io->is_output[i]) continue;
    outputs++;
    const DLTensor *g = &io->tensors[i], *e = &ref->tensors[i];
    tl_dtype dt = {g->dtype.code, g->dtype.bits, g->dtype.lanes};
    double rtol, atol;
    tlc_default_tolerance(dt, &rtol, &atol);
    tlc_compare_result r;
    TL_ASSERT_OK(tlc_compare_tensors(g, e, rtol, atol, &r));
    if (r.mismatches) {
      char desc[512];
      tlc_compare_describe(g, &r, desc, sizeof desc);
      fail_msg("%s: output %s: %s", f->name, f->params[i].name, desc);
    }
    compared += r.checked;
  }
  assert_true(outputs > 0);
  tlc_kernel_io_free(ref);
  tlc_kernel_io_free(io);
  return compared;
}

/* A fresh private cache root for this test program, exported as TILELANG_CACHE_DIR
 * (removed by e2e_cache_done). */
static inline char *e2e_cache_begin(void) {
  char *dir = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-cache-", &dir));
  setenv("TILELANG_CACHE_DIR", dir, 1);
  return dir;
}

static inline void e2e_cache_done(char *dir) {
  tl_kernel_cache_clear_memory();
  TL_ASSERT_OK(tl__remove_tree(dir));
  tl__free(dir);
}

#endif

/* The conformance suite: every registered backend (tl_list_backends: built-ins and
 * lazily registered plugins), with each of its execution backends, on every example
 * in examples/. One cmocka test per (backend, execution backend):
 *
 *   runnable (the spec is available): each example's functions compiled through
 *     the backend's context and run on seeded random inputs, checked against the
 *     interpreter on the tile-level function;
 *   source-only (`source`): code generated for every example (a non-empty device
 *     artifact with a kernel table, written by the execution backend), and a call
 *     that says it cannot run;
 *   unavailable: skipped, printing the spec's reason; so is a runnable spec whose
 *     device memory the suite cannot provide here (a CUDA target without a CUDA
 *     device: its runtime is missing).
 *
 * Tensors live where the target's device type says: host memory for kDLCPU (and
 * for kDLOpenCL, whose backend wraps host memory), device memory through the CUDA
 * driver for kDLCUDA.
 *
 * Anything else failing fails: a backend that cannot lower or generate code for an
 * example, a wrong result, an unavailable spec without a reason. */
#include "backend_run.h"
#include "runtime/cuda_driver.h"

/* A target for a kind: the bare kind, except where the kind needs more to compile
 * (an explicit CUDA arch: without a device nothing may guess one). */
static const char *target_for_kind(const char *kind) {
  if (strcmp(kind, "cuda") == 0) return "{\"kind\":\"cuda\",\"arch\":\"sm_90\"}";
  return kind;
}

typedef struct case_state {
  const tl_backend_module *backend;
  const char *kind;
  const tl_execution_backend_spec *spec;
} case_state;

static const char *k_examples[] = {"cumsum.py", "elementwise_add.py", "gemm.py", "rms_norm.py", "row_max.py",
                                   "row_sum.py", "softmax.py", "transpose.py", "vector_add.py"};
#define NEXAMPLES (sizeof k_examples / sizeof k_examples[0])

static tl_ir_module *parse_example(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, NULL, &m) != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  return m;
}

/* Code for every example, written by the source execution backend. */
static void check_source_only(tl_backend_context *ctx, const case_state *c) {
  for (size_t e = 0; e < NEXAMPLES; e++) {
    tl_ir_module *m = parse_example(k_examples[e]);
    for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
      const char *fn = tl_ir_module_func(m, i)->name;
      char *dir = br_mkdtemp();
      tl_kernel *k = NULL;
      tl_status s = br_compile_in(m, fn, ctx, dir, &k);
      if (s != TL_OK) fail_msg("%s/%s: %s (%s): %s", c->backend->name, c->spec->name, k_examples[e], fn, tl_last_error());
      if (!*tl_kernel_device_source(k)) fail_msg("%s: %s: no device source", c->backend->name, k_examples[e]);
      if (!tl_kernel_get_table(k)) fail_msg("%s: %s: the device artifact carries no kernel table", c->backend->name,
                                             k_examples[e]);
      char list[1024];
      snprintf(list, sizeof list, "%s/sources.txt", dir);
      assert_int_equal(access(list, R_OK), 0);
      pt_dim deflt[3] = {{"N", 3}, {"M", 3}, {"K", 3}};
      pt_args a = pt_args_make(tl_ir_module_func(m, i), deflt, 3, 1);
      TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EUNSUPPORTED, "only writes code and cannot run it");
      pt_args_free(&a);
      tl_kernel_release(k);
      br_rmdir(dir);
    }
    tl_ir_module_free(m);
  }
  print_message("%s/%s: code generated for %zu examples\n", c->backend->name, c->spec->name, NEXAMPLES);
}

/* ------------------------------------------------------------ device memory */

static char g_why[1024];

/* NULL when the suite can give kernels tensors of `device_type` here, else why not. */
static const char *device_memory_missing(int32_t device_type) {
  switch (device_type) {
  case kDLCPU:
  case kDLOpenCL: /* the opencl backend takes host memory (docs/writing-a-backend.md) */
    return NULL;
  case kDLCUDA: {
    const tl__cuda_driver *d;
    if (tl__cuda_driver_get(&d) == TL_OK) return NULL;
    snprintf(g_why, sizeof g_why, "no CUDA device to run on: %s", tl_last_error());
    return g_why;
  }
  default:
    snprintf(g_why, sizeof g_why, "the suite has no memory of device type %d", (int)device_type);
    return g_why;
  }
}

/* Moves the tensors of `a` to device memory (CUDA: the primary context of device
 * 0); the host buffers stay in host[] for the results. */
static void to_device(pt_args *a, int32_t device_type, void **host) {
  for (uint32_t i = 0; i < a->n; i++) {
    host[i] = NULL;
    if (a->values[i].kind != TL_VALUE_TENSOR || device_type == kDLCPU || device_type == kDLOpenCL) continue;
    const tl__cuda_driver *d;
    TL_ASSERT_OK(tl__cuda_driver_get(&d));
    tl__CUdevice dev;
    tl__CUcontext cu;
    assert_int_equal(d->cuDeviceGet(&dev, 0), 0);
    assert_int_equal(d->cuDevicePrimaryCtxRetain(&cu, dev), 0);
    assert_int_equal(d->cuCtxSetCurrent(cu), 0);
    tl__CUdeviceptr p = 0;
    assert_int_equal(d->cuMemAlloc(&p, a->nbytes[i] ? a->nbytes[i] : 1), 0);
    if (a->nbytes[i]) assert_int_equal(d->cuMemcpyHtoD(p, a->tensors[i].data, a->nbytes[i]), 0);
    host[i] = a->tensors[i].data;
    a->tensors[i].data = (void *)(uintptr_t)p;
    a->tensors[i].device = (DLDevice){(DLDeviceType)device_type, 0};
  }
}

/* Copies the results back into the host buffers and frees the device memory. */
static void to_host(pt_args *a, void **host) {
  for (uint32_t i = 0; i < a->n; i++) {
    if (!host[i]) continue;
    const tl__cuda_driver *d;
    TL_ASSERT_OK(tl__cuda_driver_get(&d));
    tl__CUdeviceptr p = (tl__CUdeviceptr)(uintptr_t)a->tensors[i].data;
    assert_int_equal(d->cuCtxSynchronize(), 0);
    if (a->nbytes[i]) assert_int_equal(d->cuMemcpyDtoH(host[i], p, a->nbytes[i]), 0);
    d->cuMemFree(p);
    a->tensors[i].data = host[i];
    a->tensors[i].device = (DLDevice){kDLCPU, 0};
  }
}

/* br_check with tensors where the target's device type says. */
static void check_on_device(tl_backend_context *ctx, const tl_ir_module *m, const char *func, const pt_dim *dims,
                            size_t ndims, const char *what) {
  int32_t device_type = tl_target_device_type(tl_backend_context_target(ctx));
  tl_kernel *k = NULL;
  tl_status s = br_compile(m, func, ctx, &k);
  if (s != TL_OK) fail_msg("%s: compiling failed: %s", what, tl_last_error());
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args want = pt_args_make(f, dims, ndims, 23);
  pt_args got = pt_args_copy(&want);
  TL_ASSERT_OK(tl_ir_interpret(m, func, want.values, (int)want.n));
  void **host = calloc(got.n + 1, sizeof *host);
  to_device(&got, device_type, host);
  s = tl_kernel_call(k, got.values, (int)got.n, NULL);
  to_host(&got, host);
  free(host);
  if (s != TL_OK) fail_msg("%s: the call failed: %s", what, tl_last_error());
  br_compare(f, &want, &got, br_tolerance(f), what);
  pt_args_free(&want);
  pt_args_free(&got);
  tl_kernel_release(k);
}

/* Every example run and compared with the interpreter. */
static void check_runnable(tl_backend_context *ctx, const case_state *c) {
  for (size_t e = 0; e < NEXAMPLES; e++) {
    tl_ir_module *m = parse_example(k_examples[e]);
    pt_dim deflt[3] = {{"N", 300}, {"M", 70}, {"K", 40}};
    for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
      char what[512];
      const char *fn = tl_ir_module_func(m, i)->name;
      snprintf(what, sizeof what, "%s/%s: %s (%s)", c->backend->name, c->spec->name, k_examples[e], fn);
      check_on_device(ctx, m, fn, deflt, 3, what);
    }
    tl_ir_module_free(m);
  }
  print_message("%s/%s: %zu examples agree with the interpreter\n", c->backend->name, c->spec->name, NEXAMPLES);
}

static void run_case(void **state) {
  const case_state *c = *state;
  if (!tl_execution_backend_spec_is_available(c->spec)) {
    const char *why = tl_execution_backend_spec_unavailable_reason(c->spec);
    if (!why) fail_msg("%s/%s is unavailable and gives no reason", c->backend->name, c->spec->name);
    print_message("skipped: %s/%s: %s\n", c->backend->name, c->spec->name, why);
    skip();
    return;
  }
  tl_backend_context *ctx = NULL;
  tl_status s = tl_create_backend_context(target_for_kind(c->kind), NULL, c->spec->name, &ctx);
  if (s != TL_OK) fail_msg("%s/%s: no context for target '%s': %s", c->backend->name, c->spec->name, c->kind,
                           tl_last_error());
  if (tl_backend_context_module(ctx) != c->backend)
    fail_msg("target '%s' resolves to backend '%s', not '%s'", c->kind, tl_backend_context_name(ctx), c->backend->name);
  bool source_only = strcmp(c->spec->name, "source") == 0;
  const char *missing = source_only ? NULL : device_memory_missing(tl_target_device_type(tl_backend_context_target(ctx)));
  if (missing) {
    tl_backend_context_release(ctx);
    print_message("skipped: %s/%s: %s\n", c->backend->name, c->spec->name, missing);
    skip();
    return;
  }
  if (source_only) check_source_only(ctx, c);
  else check_runnable(ctx, c);
  tl_backend_context_release(ctx);
}

int main(void) {
  size_t n = tl_list_backends(NULL, 0);
  const tl_backend_module **ms = calloc(n + 1, sizeof *ms);
  n = tl_list_backends(ms, n);
  size_t ncases = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; ms[i]->target_kinds[k]; k++)
      for (size_t e = 0; ms[i]->execution_backends[e]; e++) ncases++;
  struct CMUnitTest *tests = calloc(ncases + 1, sizeof *tests);
  case_state *states = calloc(ncases + 1, sizeof *states);
  char **names = calloc(ncases + 1, sizeof *names);
  size_t t = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; ms[i]->target_kinds[k]; k++)
      for (size_t e = 0; ms[i]->execution_backends[e]; e++, t++) {
        states[t] = (case_state){ms[i], ms[i]->target_kinds[k], ms[i]->execution_backends[e]};
        char buf[256];
        snprintf(buf, sizeof buf, "%s[%s]/%s", ms[i]->name, ms[i]->target_kinds[k], ms[i]->execution_backends[e]->name);
        names[t] = strdup(buf);
        tests[t] = (struct CMUnitTest){names[t], run_case, NULL, NULL, &states[t]};
      }
  printf("conformance: %zu backends, %zu cases\n", n, ncases);
  int rc = _cmocka_run_group_tests("conformance", tests, ncases, NULL, NULL);
  for (size_t i = 0; i < ncases; i++) free(names[i]);
  free(names);
  free(states);
  free(tests);
  free(ms);
  return rc;
}

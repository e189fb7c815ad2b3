/* The cpu backend end to end through its manifest, as the engine drives it: a
 * context for target `c` and each execution backend, the pipeline, device and host
 * code generation through the context, build and load by the execution backend
 * the context resolved, and a call checked against the interpreter on the
 * tile-level function, for every example (defaults and other sizes) and a
 * symbolic-size kernel at several sizes. Also the manifest's declaration. */
#include <dirent.h>
#include <unistd.h>

#include "backends/cpu/pipeline.h"
#include "base/str.h"
#include "codegen/codegen.h"
#include "more_ops_src.h"
#include "simt_src.h"
#include "pass_test.h"
#include "runtime/exec_impls.h"
#include "runtime/kernel.h"
#include "tilelang/backend.h"

/* ---------------------------------------------------------------- manifest */

static void test_manifest(void **state) {
  (void)state;
  const tl_backend_module *m = NULL;
  TL_ASSERT_OK(tl_get_backend("cpu", &m));
  assert_string_equal(m->target_kinds[0], "c");
  assert_null(m->target_kinds[1]);
  assert_ptr_equal(m->pipelines[0].pipeline, &tl__cpu_pipeline);
  const tl_device_codegen *dc = m->device_codegens[0].codegen;
  assert_string_equal(dc->name, "c");
  assert_null(dc->build.fn);
  assert_ptr_equal(dc->build_without_compile.fn, tl_device_codegen_via_global_func);
  assert_string_equal(dc->build_without_compile.user_data, "target.build.tilelang_c");
  assert_ptr_equal(m->host_codegens[0].codegen, &tl__c_host_codegen_desc);
  const char *names[8];
  tl_target *c;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  assert_int_equal(tl_backend_module_allowed_execution_backends(m, c, true, names, 8), 3);
  assert_string_equal(names[0], "native");
  assert_string_equal(names[1], "tcc");
  assert_string_equal(names[2], "source");
  for (size_t i = 0; m->execution_backends[i]; i++) {
    const tl_execution_backend_spec *s = m->execution_backends[i];
    assert_true(s->enable_host_codegen);
    assert_false(s->enable_device_compile);
    if (tl_execution_backend_spec_is_available(s)) assert_null(tl_execution_backend_spec_unavailable_reason(s));
    else assert_non_null(tl_execution_backend_spec_unavailable_reason(s));
  }
  /* Resolution as upstream words it. */
  tl_backend_context *ctx = NULL;
  TL_ASSERT_ERR(tl_create_backend_context("c", NULL, "nvrtc", &ctx), TL_EINVAL,
                "Invalid execution backend 'nvrtc' for target 'c'. Allowed: native, tcc, source. "
                "Tip: use execution_backend='auto'.");
  TL_ASSERT_OK(tl_create_backend_context("c", NULL, "SOURCE", &ctx));
  assert_string_equal(tl_backend_context_execution_backend(ctx)->name, "source");
  assert_string_equal(tl_backend_context_name(ctx), "cpu");
  tl_backend_context_release(ctx);
  TL_ASSERT_OK(tl_create_backend_context(NULL, NULL, NULL, &ctx)); /* auto: no GPU here gives c */
  if (!strcmp(tl_target_kind(tl_backend_context_target(ctx)), "c")) {
    const char *first = tl__native_available() ? "native" : tl__tcc_available() ? "tcc" : "source";
    assert_string_equal(tl_backend_context_execution_backend(ctx)->name, first);
  }
  tl_backend_context_release(ctx);
  /* The device codegen only writes source. */
  TL_ASSERT_OK(tl_create_backend_context("c", NULL, "source", &ctx));
  tl_ir_module *mod;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  tl_artifact *a = NULL;
  TL_ASSERT_ERR(tl_backend_context_codegen_device(ctx, mod, 1, &a), TL_EUNSUPPORTED,
                "Device codegen 'c' for target 'c' does not support lowering with compilation");
  tl_ir_module_free(mod);
  tl_backend_context_release(ctx);
  tl_target_release(c);
}

/* ------------------------------------------------------------- end to end */

/* What tl_compile does, for one context. */
static tl_status compile(const tl_ir_module *m, const char *func, tl_backend_context *ctx, tl_kernel **out) {
  *out = NULL;
  const tl_target *target = tl_backend_context_target(ctx);
  const tl_execution_backend_spec *spec = tl_backend_context_execution_backend(ctx);
  tl_ir_module *work = NULL;
  tl_artifact *device = NULL, *host = NULL;
  tl_status s = tl_ir_module_clone(m, &work);
  if (s == TL_OK) s = tl__pass_semantic_check(work, target);
  if (s == TL_OK) s = tl_backend_context_lower(ctx, work);
  if (s == TL_OK) s = tl_backend_context_codegen_device(ctx, work, -1, &device);
  if (s == TL_OK && spec->enable_host_codegen) s = tl_backend_context_preprocess_host_codegen(ctx, work);
  if (s == TL_OK && spec->enable_host_codegen) s = tl_backend_context_codegen_host(ctx, work, &host);
  const tl__exec_impl *impl = s == TL_OK ? tl__find_exec_impl(spec->name) : NULL;
  if (s == TL_OK && !impl) s = TL_ENOTFOUND;
  char dir[] = "/tmp/tl-cpu-test-XXXXXX";
  bool made = s == TL_OK && mkdtemp(dir);
  const tl_kernel_table *table = device ? tl_artifact_kernel_table(device) : NULL;
  tl__build_request req = {func, target, device, host, table, NULL};
  tl__loaded loaded = {0};
  if (s == TL_OK) s = made ? impl->build(&req, dir) : TL_EIO;
  if (s == TL_OK) s = impl->load(&req, dir, &loaded);
  if (s == TL_OK) {
    tl__kernel_desc d = {func, target, spec->name, table, tl_artifact_source(device), tl_artifact_source(host), false,
                         impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  if (made) {
    for (size_t i = 0; impl->files[i]; i++) {
      char path[256];
      snprintf(path, sizeof path, "%s/%s", dir, impl->files[i]);
      unlink(path);
    }
    static const char *const others[] = {"device.c", "host.c", NULL};
    for (size_t i = 0; others[i]; i++) {
      char path[256];
      snprintf(path, sizeof path, "%s/%s", dir, others[i]);
      unlink(path);
    }
    rmdir(dir);
  }
  tl_artifact_release(device);
  tl_artifact_release(host);
  tl_ir_module_free(work);
  return s;
}

static double elem(tl_dtype t, const void *p, size_t i) {
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

/* Compiled results against the interpreter's: integers exactly, floats within the
 * dtype's tolerance (exp and FMA contraction may differ in the last bits). */
static void compare(const tl_ir_func *f, const pt_args *want, const pt_args *got, const char *what) {
  for (uint32_t i = 0; i < want->n; i++) {
    if (want->values[i].kind != TL_VALUE_TENSOR) continue;
    tl_dtype t = f->params[i].buffer->dtype;
    size_t count = want->nbytes[i] / tl_dtype_bytes(t);
    double tol = t.bits == 16 ? 1e-2 : t.bits == 32 ? 1e-5 : 1e-12;
    for (size_t k = 0; k < count; k++) {
      double x = elem(t, want->tensors[i].data, k), y = elem(t, got->tensors[i].data, k);
      bool ok = tl_dtype_is_float(t) ? (fabs(x - y) <= tol * (1.0 + fabs(x)) || (isnan(x) && isnan(y))) : x == y;
      if (!ok) fail_msg("%s: '%s'[%zu] is %.9g, the interpreter says %.9g", what, f->params[i].name, k, y, x);
    }
  }
}

static void run_through(const char *runner, const tl_ir_module *m, const char *func, const pt_dim *dims, size_t ndims,
                        const char *what) {
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("c", NULL, runner, &ctx));
  tl_kernel *k = NULL;
  tl_status s = compile(m, func, ctx, &k);
  if (s != TL_OK) fail_msg("%s with %s: %s", what, runner, tl_last_error());
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args want = pt_args_make(f, dims, ndims, 11);
  pt_args got = pt_args_copy(&want);
  TL_ASSERT_OK(tl_ir_interpret(m, func, want.values, (int)want.n));
  s = tl_kernel_call(k, got.values, (int)got.n, NULL);
  if (s != TL_OK) fail_msg("%s with %s: call failed: %s", what, runner, tl_last_error());
  char label[512];
  snprintf(label, sizeof label, "%s with %s", what, runner);
  compare(f, &want, &got, label);
  pt_args_free(&want);
  pt_args_free(&got);
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
}

static size_t runners(const char **names) {
  size_t n = 0;
  if (tl__native_available()) names[n++] = "native";
  if (tl__tcc_available()) names[n++] = "tcc";
  return n;
}

typedef struct example_size {
  const char *file;
  tl_ir_const_binding consts[4];
  size_t nconsts;
  pt_dim dims[2];
  size_t ndims;
} example_size;

static const example_size k_sizes[] = {
  {"vector_add.py", {{0}}, 0, {{"N", 1}}, 1},
  {"vector_add.py", {{0}}, 0, {{"N", 1000}}, 1},
  {"gemm.py", {{"M", "64"}, {"N", "64"}, {"K", "64"}}, 3, {{0}}, 0},
  {"gemm.py", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4, {{0}}, 0},
  {"softmax.py", {{"M", "5"}, {"N", "7"}}, 2, {{0}}, 0},
  {"row_max.py", {{0}}, 0, {{"M", 33}, {"N", 64}}, 2},
  {"transpose.py", {{0}}, 0, {{"M", 70}, {"N", 45}}, 2},
};

static void run_example(const char *file, const tl_ir_const_binding *consts, size_t nconsts, const pt_dim *dims,
                        size_t ndims) {
  char path[1024], what[1200];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options opts = {sizeof opts, consts, nconsts, NULL, false};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &opts, &m) != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  pt_dim deflt[3] = {{"N", 300}, {"M", 70}, {"K", 40}};
  const char *names[2];
  size_t nr = runners(names);
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
    const char *fn = tl_ir_module_func(m, i)->name;
    snprintf(what, sizeof what, "%s (%s, %zu consts, %zu dims)", file, fn, nconsts, ndims);
    for (size_t r = 0; r < nr; r++) run_through(names[r], m, fn, ndims ? dims : deflt, ndims ? ndims : 3, what);
  }
  tl_ir_module_free(m);
}

static void test_examples(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!tl__str_ends_with(e->d_name, ".py")) continue;
    run_example(e->d_name, NULL, 0, NULL, 0);
    n++;
  }
  closedir(d);
  assert_true(n >= 9);
  for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++)
    run_example(k_sizes[i].file, k_sizes[i].consts, k_sizes[i].nconsts, k_sizes[i].dims, k_sizes[i].ndims);
}

/* A kernel with a symbolic size, a scalar and float16 through every runner at
 * several sizes, and the source backend's refusal through the same path. */
static const char *k_scale_src =
  "import tilelang.language as T\n"
  "N = T.symbolic(\"N\")\n"
  "@T.prim_func\n"
  "def scale(A: T.Tensor((N, 3), \"float16\"), B: T.Tensor((N, 3), \"float16\"), s: T.float32):\n"
  "    with T.Kernel(T.ceildiv(N, 16), threads=16) as bx:\n"
  "        for i, j in T.Parallel(16, 3):\n"
  "            if bx * 16 + i < N:\n"
  "                B[bx * 16 + i, j] = A[bx * 16 + i, j] * T.Cast(\"float16\", s) + T.float16(0.1)\n";

static void test_symbolic_and_source(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_scale_src);
  const char *names[2];
  size_t nr = runners(names);
  static const int64_t sizes[] = {1, 15, 16, 17, 333};
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < 5; i++) {
      pt_dim dims[2] = {{"N", sizes[i]}, {"s", 3}};
      char what[64];
      snprintf(what, sizeof what, "scale N=%lld", (long long)sizes[i]);
      run_through(names[r], m, "scale", dims, 2, what);
    }
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("c", NULL, "source", &ctx));
  tl_kernel *k = NULL;
  TL_ASSERT_OK(compile(m, "scale", ctx, &k));
  assert_non_null(strstr(tl_kernel_device_source(k), "static void scale_kernel("));
  assert_non_null(strstr(tl_kernel_host_source(k), "int32_t scale(const TLValue *args"));
  assert_string_equal(tl_kernel_get_table(k)->entry, "scale");
  pt_dim dims[2] = {{"N", 4}, {"s", 1}};
  pt_args a = pt_args_make(tl_ir_module_find_func(m, "scale"), dims, 2, 3);
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EUNSUPPORTED,
                "Kernel 'scale' was built with execution backend 'source', which only writes code and cannot run it");
  pt_args_free(&a);
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* T.reduce_bitxor compiled and run by every runner at several sizes. */
static const char *k_bitxor_src =
    "import tilelang.language as T\n"
     "N = T.symbolic(\"N\")\n"
     "@T.prim_func\n"
     "def x(A: T.Tensor((N, 40), \"int32\"), R: T.Tensor((N,), \"int32\"), B: T.Tensor((N, 12), \"uint8\"),\n"
     "      C: T.Tensor((N, 12), \"uint8\")):\n"
     "    with T.Kernel(T.ceildiv(N, 8), threads=32) as bx:\n"
     "        a = T.alloc_fragment((8, 40), \"int32\")\n"
     "        r = T.alloc_fragment((8,), \"int32\")\n"
     "        b = T.alloc_shared((8, 12), \"uint8\")\n"
     "        c = T.alloc_fragment((12,), \"uint8\")\n"
     "        T.copy(A[bx * 8, 0], a)\n"
     "        T.copy(R[bx * 8], r)\n"
     "        T.reduce_bitxor(a, r, clear=False)\n"
     "        T.copy(r, R[bx * 8])\n"
     "        T.copy(B[bx * 8, 0], b)\n"
     "        T.reduce_bitxor(b, c, dim=0)\n"
     "        T.copy(c, C[bx, 0])\n";

static void test_reduce_bitxor(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_bitxor_src);
  const char *names[2];
  size_t nr = runners(names);
  static const int64_t sizes[] = {1, 8, 13, 64};
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < 4; i++) {
      pt_dim dims[1] = {{"N", sizes[i]}};
      char what[64];
      snprintf(what, sizeof what, "reduce_bitxor N=%lld", (long long)sizes[i]);
      run_through(names[r], m, "x", dims, 1, what);
    }
  tl_ir_module_free(m);
}

/* T.reduce_bitand / T.reduce_bitor compiled and run by every runner at several sizes. */
static const char *k_bitandor_src =
    "import tilelang.language as T\n"
    "N = T.symbolic(\"N\")\n"
    "@T.prim_func\n"
    "def x(E: T.Tensor((N, 3), \"int32\"), F: T.Tensor((N,), \"int32\"), G: T.Tensor((N,), \"int32\"),\n"
    "      B: T.Tensor((N, 12), \"uint8\"), C: T.Tensor((N, 12), \"uint8\"), D: T.Tensor((N, 12), \"uint8\")):\n"
    "    with T.Kernel(T.ceildiv(N, 8), threads=32) as bx:\n"
    "        e = T.alloc_fragment((8, 3), \"int32\")\n"
    "        f = T.alloc_fragment((8,), \"int32\")\n"
    "        g = T.alloc_fragment((8,), \"int32\")\n"
    "        b = T.alloc_shared((2, 12), \"uint8\")\n"
    "        c = T.alloc_fragment((12,), \"uint8\")\n"
    "        d = T.alloc_fragment((12,), \"uint8\")\n"
    "        T.copy(E[bx * 8, 0], e)\n"
    "        T.copy(F[bx * 8], f)\n"
    "        T.reduce_bitand(e, f, dim=1, clear=False)\n"
    "        T.reduce_bitor(e, g)\n"
    "        T.copy(f, F[bx * 8])\n"
    "        T.copy(g, G[bx * 8])\n"
    "        T.copy(B[bx * 2, 0], b)\n"
    "        T.reduce_bitand(b, c, dim=0)\n"
    "        T.reduce_bitor(b, d, dim=0)\n"
    "        T.copy(c, C[bx, 0])\n"
    "        T.copy(d, D[bx, 0])\n";

static void test_reduce_bitand_bitor(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_bitandor_src);
  const char *names[2];
  size_t nr = runners(names);
  static const int64_t sizes[] = {1, 8, 13, 64};
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < 4; i++) {
      pt_dim dims[1] = {{"N", sizes[i]}};
      char what[64];
      snprintf(what, sizeof what, "reduce_bitand/bitor N=%lld", (long long)sizes[i]);
      run_through(names[r], m, "x", dims, 1, what);
    }
  tl_ir_module_free(m);
}

/* tvm.tir's operators by name and the math added with them (tir_ops_src.h),
 * compiled and run by every runner against the interpreter. */
static void test_tir_ops(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(TIR_OPS_SRC);
  const char *names[2];
  size_t nr = runners(names);
  static const int64_t sizes[] = {1, 31, 70};
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < 3; i++) {
      pt_dim dims[1] = {{"N", sizes[i]}};
      char what[64];
      snprintf(what, sizeof what, "tir ops N=%lld", (long long)sizes[i]);
      run_through(names[r], m, "ops", dims, 1, what);
    }
  tl_ir_module_free(m);
}

/* T.cummax (cummax_src.h) compiled and run by every runner against the interpreter. */
static void test_cummax(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(CUMMAX_SRC);
  const char *names[2];
  size_t nr = runners(names);
  for (size_t r = 0; r < nr; r++) run_through(names[r], m, "cm", NULL, 0, "cummax");
  tl_ir_module_free(m);
}

/* T.atomic_max / T.atomic_min (more_ops_src.h) by every runner against the
 * interpreter: blocks race for the same elements. */
static void test_atomic_minmax(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(ATOMIC_MINMAX_SRC);
  const char *names[2];
  size_t nr = runners(names);
  for (size_t r = 0; r < nr; r++) run_through(names[r], m, "amm", NULL, 0, "atomic max/min");
  tl_ir_module_free(m);
  m = pt_parse(ANYALL_ADDX_SRC);
  for (size_t r = 0; r < nr; r++) run_through(names[r], m, "aax", NULL, 0, "any_of, all_of, atomic_addx2/x4");
  tl_ir_module_free(m);
  /* per-thread code (simt_src.h): the threads as loops between the barriers */
  m = pt_parse(SIMT_KERNEL_SRC);
  for (size_t r = 0; r < nr; r++) run_through(names[r], m, "st", NULL, 0, "per-thread code with barriers");
  tl_ir_module_free(m);
}

/* ------------------------------------------------- the same words everywhere */

/* A bad call of `scale` made by editing good arguments. */
typedef void (*arg_edit)(tl_value *v, DLTensor *t, int *nargs);

static void e_count(tl_value *v, DLTensor *t, int *n) { (void)v, (void)t, *n = 2; }
static void e_kind(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[0] = tl_value_float(1.0); }
static void e_null_tensor(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[1] = tl_value_tensor(NULL); }
static void e_dtype(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].dtype = (DLDataType){kDLFloat, 32, 1}; }
static void e_lanes(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].dtype = (DLDataType){kDLFloat, 16, 2}; }
static void e_odd_dtype(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].dtype = (DLDataType){kDLInt, 4, 1}; }
static void e_complex(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].dtype = (DLDataType){5, 64, 1}; }
static void e_ndim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].ndim = 1; }
static void e_device(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].device.device_type = kDLCUDA; }
static void e_null(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].data = NULL; }
static void e_const_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].shape[1] = 4; }
static void e_big_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].shape[0] = 3000000000LL; }
static void e_sym_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].shape[0] = 9; }
static void e_scalar_kind(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[2] = tl_value_str("s"); }
static int64_t g_strides[2] = {6, 1};
static void e_strides(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].strides = g_strides; }

/* Every bad argument gets one message from the compiled host entry (native, tcc),
 * from tl_kernel_table_bind_args on the kernel's table, and from the interpreter
 * running the lowered host entry. */
static void test_messages_agree(void **state) {
  (void)state;
  static const struct {
    arg_edit edit;
    const char *message;
  } cases[] = {
    {e_count, "function 'scale' takes 3 arguments but got 2"},
    {e_kind, "argument 'A': expected a tensor but got a float"},
    {e_null_tensor, "argument 'B': expected a tensor but got none"},
    {e_dtype, "argument 'B': expected float16 but got float32"},
    {e_lanes, "argument 'B': expected float16 but got float16x2"},
    {e_odd_dtype, "argument 'A': expected float16 but got int4"},
    {e_complex, "argument 'A': expected float16 but got dtype(code=5, bits=64, lanes=1)"},
    {e_ndim, "argument 'A': expected 2 dimensions but got 1"},
    {e_device, "argument 'B': expected a CPU tensor (kDLCPU) but got device type 2"},
    {e_null, "argument 'A': the tensor's data is NULL"},
    {e_const_dim, "argument 'B': dimension 1 must be 3 but is 4"},
    {e_big_dim, "argument 'A': dimension 0 (N = 3000000000) does not fit int32"},
    {e_sym_dim, "argument 'B': dimension 0 must equal N (=5 from argument 'A') but is 9"},
    {e_scalar_kind, "argument 's': expected a scalar float32 but got a string"},
    {e_strides, "argument 'B': the tensor must be compact (row-major contiguous)"},
  };
  tl_ir_module *m = pt_parse(k_scale_src);
  tl_ir_module *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(pt_lower_c(low, &tl__cpu_pipeline));
  const char *names[2];
  size_t nr = runners(names);
  tl_kernel *k[2] = {NULL, NULL};
  for (size_t r = 0; r < nr; r++) {
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context("c", NULL, names[r], &ctx));
    TL_ASSERT_OK(compile(m, "scale", ctx, &k[r]));
    tl_backend_context_release(ctx);
  }
  const tl_kernel_table *table = nr ? tl_kernel_get_table(k[0]) : NULL;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint16_t a[15] = {0}, b[15] = {0};
    int64_t sa[2] = {5, 3}, sb[2] = {5, 3};
    DLTensor t[2] = {{a, {kDLCPU, 0}, 2, {kDLFloat, 16, 1}, sa, NULL, 0}, {b, {kDLCPU, 0}, 2, {kDLFloat, 16, 1}, sb, NULL, 0}};
    tl_value v[3] = {tl_value_tensor((struct DLTensor *)&t[0]), tl_value_tensor((struct DLTensor *)&t[1]),
                     tl_value_float(2.0)};
    int nargs = 3;
    cases[c].edit(v, t, &nargs);
    for (size_t r = 0; r < nr; r++) {
      TL_ASSERT_ERR(tl_kernel_call(k[r], v, nargs, NULL), TL_EINVAL, NULL);
      if (strcmp(tl_last_error(), cases[c].message))
        fail_msg("%s: \"%s\", want \"%s\"", names[r], tl_last_error(), cases[c].message);
    }
    int64_t syms[1];
    if (table) {
      TL_ASSERT_ERR(tl_kernel_table_bind_args(table, v, nargs, kDLCPU, syms), TL_EINVAL, NULL);
      if (strcmp(tl_last_error(), cases[c].message))
        fail_msg("bind_args: \"%s\", want \"%s\"", tl_last_error(), cases[c].message);
    }
    if (cases[c].edit == e_null_tensor) continue; /* the interpreter stops at the NULL tensor differently */
    tl_status s = tl_ir_interpret(low, "scale", v, nargs);
    if (s != TL_EINVAL || strcmp(tl_last_error(), cases[c].message))
      fail_msg("interpreter: %s \"%s\", want \"%s\"", tl_status_name(s), tl_last_error(), cases[c].message);
  }
  for (size_t r = 0; r < nr; r++) tl_kernel_release(k[r]);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_manifest),
    cmocka_unit_test(test_examples),
    cmocka_unit_test(test_symbolic_and_source),
    cmocka_unit_test(test_reduce_bitxor),
    cmocka_unit_test(test_reduce_bitand_bitor),
    cmocka_unit_test(test_tir_ops),
    cmocka_unit_test(test_cummax),
    cmocka_unit_test(test_atomic_minmax),
    cmocka_unit_test(test_messages_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

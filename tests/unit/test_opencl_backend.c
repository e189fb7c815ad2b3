/* The opencl backend: a plugin (libtilelang-opencl.so) registered lazily, loaded by
 * the first context for kind `opencl`, running every example on the OpenCL device
 * it finds (PoCL's CPU device in CI) against the interpreter; the program binary
 * cached next to the source; build errors with the build log; argument checks with
 * the device type of the call; kDLOpenCL tensors (cl_mem) as well as host memory.
 * Without an OpenCL platform the runtime tests are skipped, saying why; anything
 * else failing fails. */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>

#include "backend_run.h"
#include "tilelang/engine.h"

/* ---------------------------------------------------------------- helpers */

static tl_backend_context *opencl_context(const char *exec) {
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("opencl", NULL, exec, &ctx));
  return ctx;
}

/* The opencl spec of the manifest (the plugin's). */
static const tl_execution_backend_spec *opencl_spec(void) {
  tl_backend_context *ctx = opencl_context("source");
  const tl_backend_module *m = tl_backend_context_module(ctx);
  tl_backend_context_release(ctx);
  assert_string_equal(m->execution_backends[0]->name, "opencl");
  return m->execution_backends[0];
}

/* Skips the test (printing why) when no OpenCL device can run kernels here. */
static bool require_opencl(void) {
  const tl_execution_backend_spec *spec = opencl_spec();
  if (tl_execution_backend_spec_is_available(spec)) return true;
  const char *why = tl_execution_backend_spec_unavailable_reason(spec);
  print_message("skipped: the opencl execution backend is not available: %s\n", why ? why : "(no reason)");
  skip();
  return false;
}

static bool file_size(const char *dir, const char *name, off_t *size) {
  char path[1024];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (stat(path, &st) != 0) return false;
  *size = st.st_size;
  return true;
}

/* --------------------------------------------------------------- manifest */

static void test_manifest_and_lazy_load(void **state) {
  (void)state;
  /* The library recorded where the plugin is; the first context loads it. */
  tl_backend_context *ctx = opencl_context("source");
  const tl_backend_module *m = tl_backend_context_module(ctx);
  assert_string_equal(tl_backend_context_name(ctx), "opencl");
  assert_string_equal(m->target_kinds[0], "opencl");
  assert_null(m->target_kinds[1]);
  assert_string_equal(m->pipelines[0].pipeline->name, "opencl");
  assert_string_equal(m->device_codegens[0].codegen->name, "opencl");
  assert_null(m->device_codegens[0].codegen->build.fn);
  assert_non_null(m->device_codegens[0].codegen->build_without_compile.fn);
  const char *names[4];
  assert_int_equal(tl_backend_module_allowed_execution_backends(m, tl_backend_context_target(ctx), true, names, 4), 2);
  assert_string_equal(names[0], "opencl");
  assert_string_equal(names[1], "source");
  for (size_t i = 0; m->execution_backends[i]; i++) {
    assert_false(m->execution_backends[i]->enable_host_codegen); /* launched from the kernel table */
    assert_false(m->execution_backends[i]->enable_device_compile);
  }
  const tl_backend_module *by_name = NULL;
  TL_ASSERT_OK(tl_get_backend("opencl", &by_name));
  assert_ptr_equal(by_name, m);
  /* The implementation the plugin registered, found by name. */
  const tl__exec_impl *impl = tl__find_exec_impl("opencl");
  assert_non_null(impl);
  assert_string_equal(impl->files[0], "kernel.cl");
  assert_string_equal(impl->files[1], "kernel.bin");
  assert_null(impl->files[2]);
  /* Listed with the others. */
  const tl_backend_module *all[32];
  size_t n = tl_list_backends(all, 32);
  bool listed = false;
  for (size_t i = 0; i < n && i < 32; i++) listed |= all[i] == m;
  assert_true(listed);
  /* 'auto' takes opencl when it is available, else source. */
  tl_backend_context_release(ctx);
  ctx = opencl_context(NULL);
  const tl_execution_backend_spec *spec = m->execution_backends[0];
  assert_string_equal(tl_backend_context_execution_backend(ctx)->name,
                      tl_execution_backend_spec_is_available(spec) ? "opencl" : "source");
  if (!tl_execution_backend_spec_is_available(spec)) {
    assert_non_null(tl_execution_backend_spec_unavailable_reason(spec));
    TL_ASSERT_ERR(tl_create_backend_context("opencl", NULL, "opencl", &ctx), TL_EUNAVAILABLE,
                  "Execution backend 'opencl' requires extra dependencies");
  }
  tl_backend_context_release(ctx);
}

/* The source backend writes the OpenCL C and calls say nothing can run it. */
static void test_source(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/vector_add.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  tl_backend_context *ctx = opencl_context("source");
  char *dir = br_mkdtemp();
  tl_kernel *k = NULL;
  TL_ASSERT_OK(br_compile_in(m, "vector_add", ctx, dir, &k));
  off_t size = 0;
  assert_true(file_size(dir, "device.cl", &size) && size > 0);
  assert_false(file_size(dir, "host.c", &size)); /* no host code: launched from the table */
  const char *src = tl_kernel_device_source(k);
  assert_non_null(strstr(src, "__kernel void vector_add_kernel(__global const float *restrict A"));
  assert_non_null(strstr(src, "const int bx = (int)get_group_id(0);"));
  assert_non_null(strstr(src, "const int idx = bx * 256 + tx;"));
  pt_dim dims[1] = {{"N", 5}};
  pt_args a = pt_args_make(tl_ir_module_find_func(m, "vector_add"), dims, 1, 1);
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EUNSUPPORTED,
                "Kernel 'vector_add' was built with execution backend 'source'");
  pt_args_free(&a);
  tl_kernel_release(k);
  br_rmdir(dir);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* --------------------------------------------------------------- examples */

typedef struct example_size {
  const char *file;
  tl_ir_const_binding consts[4];
  size_t nconsts;
  pt_dim dims[2];
  size_t ndims;
} example_size;

/* Sizes beyond the defaults: tiles that do not divide, tiny and odd symbolic dims,
 * float32 GEMM, reductions over other widths. */
static const example_size k_sizes[] = {
  {"vector_add.py", {{0}}, 0, {{"N", 1}}, 1},
  {"vector_add.py", {{0}}, 0, {{"N", 1000}}, 1},
  {"gemm.py", {{"M", "64"}, {"N", "64"}, {"K", "64"}}, 3, {{0}}, 0},
  {"gemm.py", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4, {{0}}, 0},
  {"softmax.py", {{"M", "5"}, {"N", "7"}}, 2, {{0}}, 0},
  {"row_max.py", {{0}}, 0, {{"M", 33}, {"N", 64}}, 2},
  {"row_sum.py", {{"M", "3"}, {"N", "200"}}, 2, {{0}}, 0},
  {"transpose.py", {{0}}, 0, {{"M", 70}, {"N", 45}}, 2},
  {"rms_norm.py", {{"M", "9"}, {"N", "40"}}, 2, {{0}}, 0},
  {"cumsum.py", {{"M", "13"}, {"N", "24"}}, 2, {{0}}, 0},
};

static void run_example(tl_backend_context *ctx, const char *file, const tl_ir_const_binding *consts, size_t nconsts,
                        const pt_dim *dims, size_t ndims) {
  char path[1024], what[1200];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options opts = {sizeof opts, consts, nconsts, NULL, false};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &opts, &m) != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  pt_dim deflt[3] = {{"N", 300}, {"M", 70}, {"K", 40}};
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
    const char *fn = tl_ir_module_func(m, i)->name;
    snprintf(what, sizeof what, "%s (%s, %zu consts, %zu dims) on opencl", file, fn, nconsts, ndims);
    /* Each function parsed alone, as tl_compile keeps only the one it compiles: the device
     * artifact of a module with several host entries (flash_decoding.py) has no kernel table. */
    tl_ir_parse_options one = {sizeof one, consts, nconsts, fn, true};
    tl_ir_module *mf = NULL;
    if (tl_ir_parse_file(path, &one, &mf) != TL_OK) fail_msg("%s: %s", what, tl_last_error());
    br_check(ctx, mf, fn, ndims ? dims : deflt, ndims ? ndims : 3, 17, what);
    tl_ir_module_free(mf);
  }
  tl_ir_module_free(m);
}

static void test_examples(void **state) {
  (void)state;
  if (!require_opencl()) return;
  tl_backend_context *ctx = opencl_context("opencl");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!tl__str_ends_with(e->d_name, ".py")) continue;
    run_example(ctx, e->d_name, NULL, 0, NULL, 0);
    n++;
  }
  closedir(d);
  assert_true(n >= 9);
  for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++)
    run_example(ctx, k_sizes[i].file, k_sizes[i].consts, k_sizes[i].nconsts, k_sizes[i].dims, k_sizes[i].ndims);
  tl_backend_context_release(ctx);
}

/* Scalars of every kind the dialect passes (int, float, float16 rounded, bool as
 * int), an atomic float add on global memory, int64 data, and a symbolic size. */
static const char *k_scalars_src =
  "import tilelang.language as T\n"
  "N = T.symbolic(\"N\")\n"
  "@T.prim_func\n"
  "def scal(A: T.Tensor((N,), \"float16\"), B: T.Tensor((N,), \"float32\"), C: T.Tensor((N,), \"int64\"),\n"
  "         S: T.Tensor((1,), \"float32\"), s: T.float16, k: T.int32, f: T.bool):\n"
  "    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:\n"
  "        for i in T.Parallel(64):\n"
  "            if bx * 64 + i < N:\n"
  "                A[bx * 64 + i] = A[bx * 64 + i] * s + T.float16(0.1)\n"
  "                B[bx * 64 + i] = T.if_then_else(f, B[bx * 64 + i] * T.Cast(\"float32\", k), B[bx * 64 + i])\n"
  "                C[bx * 64 + i] = C[bx * 64 + i] * 3000000000 + k\n"
  "                T.atomic_add(S[0], B[bx * 64 + i])\n";

static void test_scalars_and_atomics(void **state) {
  (void)state;
  if (!require_opencl()) return;
  tl_ir_module *m = pt_parse(k_scalars_src);
  tl_backend_context *ctx = opencl_context("opencl");
  tl_kernel *k = NULL;
  TL_ASSERT_OK(br_compile(m, "scal", ctx, &k));
  assert_non_null(strstr(tl_kernel_device_source(k), "tl_atomic_add_f32_global(&S[0], "));
  assert_non_null(strstr(tl_kernel_device_source(k), "int f"));
  static const int64_t sizes[] = {1, 63, 64, 200};
  for (size_t i = 0; i < 4; i++) {
    pt_dim dims[4] = {{"N", sizes[i]}, {"s", 3}, {"k", -7}, {"f", i % 2}};
    const tl_ir_func *f = tl_ir_module_find_func(m, "scal");
    pt_args want = pt_args_make(f, dims, 4, 5 + i), got;
    want.values[4] = tl_value_float(1.2345678); /* rounded to float16 on the way in */
    got = pt_args_copy(&want);
    TL_ASSERT_OK(tl_ir_interpret(m, "scal", want.values, (int)want.n));
    TL_ASSERT_OK(tl_kernel_call(k, got.values, (int)got.n, NULL));
    /* A, C exactly; B and the atomic sum (whose order of additions differs) closely */
    assert_int_equal(pt_first_diff(&want, &got, 0), -1);
    assert_int_equal(pt_first_diff(&want, &got, 2), -1);
    br_compare(f, &want, &got, 1e-5, "scal");
    pt_args_free(&want);
    pt_args_free(&got);
  }
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* ---------------------------------------------------- binaries and errors */

static void test_program_binary_cache(void **state) {
  (void)state;
  if (!require_opencl()) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/softmax.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  tl_backend_context *ctx = opencl_context("opencl");
  const tl__exec_impl *impl = tl__find_exec_impl("opencl");
  br_build b;
  TL_ASSERT_OK(br_codegen(m, ctx, &b));
  char *dir = br_mkdtemp();
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  tl__build_request req = {f->name, tl_backend_context_target(ctx), b.device, NULL,
                           tl_artifact_kernel_table(b.device), NULL};
  const char *identity = impl->identity(&req);
  assert_non_null(identity);
  assert_true(tl__str_starts_with(identity, "opencl|"));
  TL_ASSERT_OK(impl->build(&req, dir));
  off_t cl_size = 0, bin_size = 0;
  assert_true(file_size(dir, "kernel.cl", &cl_size) && cl_size > 0);
  assert_true(file_size(dir, "kernel.bin", &bin_size));
  if (bin_size == 0) print_message("note: the OpenCL platform gives no program binary; loads build the source\n");
  /* A warm load (the binary) and one whose binary is damaged (the source) both run. */
  for (int round = 0; round < 2; round++) {
    if (round == 1) {
      char bin[1024];
      snprintf(bin, sizeof bin, "%s/kernel.bin", dir);
      FILE *fp = fopen(bin, "wb");
      assert_non_null(fp);
      fputs("not a program binary", fp);
      fclose(fp);
    }
    tl__loaded loaded = {0};
    TL_ASSERT_OK(impl->load(&req, dir, &loaded));
    pt_dim none[1] = {{"N", 1}};
    pt_args want = pt_args_make(f, none, 0, 3 + round), got = pt_args_copy(&want);
    TL_ASSERT_OK(tl_ir_interpret(m, f->name, want.values, (int)want.n));
    TL_ASSERT_OK(loaded.call(loaded.state, got.values, (int)got.n, NULL));
    br_compare(f, &want, &got, 2e-5, "softmax from the cache directory");
    pt_args_free(&want);
    pt_args_free(&got);
    loaded.destroy(loaded.state);
  }
  /* Neither a usable binary nor the source: the load says which file. */
  char cl[1024];
  snprintf(cl, sizeof cl, "%s/kernel.cl", dir);
  unlink(cl);
  tl__loaded loaded = {0};
  TL_ASSERT_ERR(impl->load(&req, dir, &loaded), TL_EIO, "kernel.cl");
  br_rmdir(dir);
  br_build_free(&b);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

static void test_build_error(void **state) {
  (void)state;
  if (!require_opencl()) return;
  const tl__exec_impl *impl = tl__find_exec_impl("opencl");
  tl_artifact *bad = NULL;
  TL_ASSERT_OK(tl_artifact_create("opencl", "__kernel void f(__global float *A) { A[0] = undefined_name; }\n", &bad));
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("opencl", &t));
  tl__build_request req = {"f", t, bad, NULL, NULL, NULL};
  char *dir = br_mkdtemp();
  TL_ASSERT_ERR(impl->build(&req, dir), TL_ECOMPILE, "OpenCL could not build ");
  assert_non_null(strstr(tl_last_error(), "/kernel.cl"));
  assert_non_null(strstr(tl_last_error(), "undefined_name")); /* the build log */
  /* Other formats are refused, and loading needs a kernel table. */
  tl_artifact *c = NULL;
  TL_ASSERT_OK(tl_artifact_create("c", "int x;", &c));
  req.device = c;
  TL_ASSERT_ERR(impl->build(&req, dir), TL_EINVAL, "device code of format 'opencl'");
  tl__loaded loaded = {0};
  TL_ASSERT_ERR(impl->load(&req, dir, &loaded), TL_EUNSUPPORTED, "launches from the kernel table");
  br_rmdir(dir);
  tl_artifact_release(c);
  tl_artifact_release(bad);
  tl_target_release(t);
}

/* ------------------------------------------------------------- arguments */

typedef int32_t (*cl_fn_write)(void *, void *, uint32_t, size_t, size_t, const void *, uint32_t, const void *, void *);
typedef void *(*cl_fn_create)(void *, uint64_t, size_t, void *, int32_t *);
typedef int32_t (*cl_fn_release)(void *);

/* The same kernel on kDLOpenCL tensors (cl_mem of the backend's context), and the
 * argument checks with the call's device type. */
static void test_device_memory_and_checks(void **state) {
  (void)state;
  if (!require_opencl()) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/vector_add.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  tl_backend_context *ctx = opencl_context("opencl");
  tl_kernel *k = NULL;
  TL_ASSERT_OK(br_compile(m, "vector_add", ctx, &k));
  const tl_ir_func *f = tl_ir_module_find_func(m, "vector_add");
  pt_dim dims[1] = {{"N", 777}};
  pt_args want = pt_args_make(f, dims, 1, 9), got = pt_args_copy(&want);
  TL_ASSERT_OK(tl_ir_interpret(m, "vector_add", want.values, (int)want.n));

  /* Argument checks: the table's messages, with the call's device type. */
  got.tensors[1].device.device_type = kDLOpenCL;
  TL_ASSERT_ERR(tl_kernel_call(k, got.values, (int)got.n, NULL), TL_EINVAL,
                "argument 'B': expected a CPU tensor (kDLCPU) but got device type 4");
  got.tensors[1].device.device_type = kDLCPU;
  got.tensors[2].dtype.bits = 64;
  TL_ASSERT_ERR(tl_kernel_call(k, got.values, (int)got.n, NULL), TL_EINVAL,
                "argument 'C': expected float32 but got float64");
  got.tensors[2].dtype.bits = 32;
  TL_ASSERT_ERR(tl_kernel_call(k, got.values, 2, NULL), TL_EINVAL, "function 'vector_add' takes 3 arguments but got 2");

  /* cl_mem tensors */
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  assert_non_null(lib);
  cl_fn_create create = (cl_fn_create)dlsym(lib, "clCreateBuffer");
  cl_fn_write write = (cl_fn_write)dlsym(lib, "clEnqueueWriteBuffer");
  cl_fn_write read = (cl_fn_write)dlsym(lib, "clEnqueueReadBuffer");
  cl_fn_release release = (cl_fn_release)dlsym(lib, "clReleaseMemObject");
  assert_true(create && write && read && release);
  tl_value cv = {TL_VALUE_NONE, 0, {.i = 0}}, qv = cv;
  TL_ASSERT_OK(tl_call_global_func("opencl.context", NULL, 0, &cv));
  TL_ASSERT_OK(tl_call_global_func("opencl.queue", NULL, 0, &qv));
  assert_int_equal(cv.kind, TL_VALUE_PTR);
  void *mems[3];
  void *host[3];
  for (int i = 0; i < 3; i++) {
    int32_t err = 0;
    mems[i] = create(cv.v.ptr, 1 /* CL_MEM_READ_WRITE */, got.nbytes[i], NULL, &err);
    assert_int_equal(err, 0);
    assert_int_equal(write(qv.v.ptr, mems[i], 1, 0, got.nbytes[i], got.tensors[i].data, 0, NULL, NULL), 0);
    host[i] = got.tensors[i].data;
    got.tensors[i].data = mems[i];
    got.tensors[i].device.device_type = kDLOpenCL;
  }
  TL_ASSERT_OK(tl_kernel_call(k, got.values, (int)got.n, NULL));
  /* A host tensor among OpenCL ones is refused by the checks. */
  got.tensors[1].device.device_type = kDLCPU;
  TL_ASSERT_ERR(tl_kernel_call(k, got.values, (int)got.n, NULL), TL_EINVAL,
                "argument 'B': expected an OpenCL tensor (kDLOpenCL) but got device type 1");
  got.tensors[1].device.device_type = kDLOpenCL;
  assert_int_equal(read(qv.v.ptr, mems[2], 1, 0, got.nbytes[2], host[2], 0, NULL, NULL), 0);
  for (int i = 0; i < 3; i++) {
    got.tensors[i].data = host[i];
    got.tensors[i].device.device_type = kDLCPU;
    release(mems[i]);
  }
  assert_int_equal(pt_first_diff(&want, &got, 2), -1);
  pt_args_free(&want);
  pt_args_free(&got);
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* Through the engine: tl_compile with the kernel cache; a memory hit, then a disk
 * hit after the memory level is dropped, loaded from the cached program binary. */
static void test_engine_and_cache(void **state) {
  (void)state;
  if (!require_opencl()) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/rms_norm.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  char *cache = br_mkdtemp();
  tl_compile_options o = {.struct_size = sizeof o, .target = "opencl", .cache_dir = cache};
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  for (int round = 0; round < 3; round++) {
    if (round == 2) tl_kernel_cache_clear_memory();
    tl_kernel *k = NULL;
    TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
    assert_string_equal(tl_kernel_execution_backend(k), "opencl");
    assert_int_equal(tl_kernel_from_cache(k), round > 0);
    pt_dim none[1] = {{"N", 1}};
    pt_args want = pt_args_make(f, none, 0, 40 + round), got = pt_args_copy(&want);
    TL_ASSERT_OK(tl_ir_interpret(m, f->name, want.values, (int)want.n));
    TL_ASSERT_OK(tl_kernel_call(k, got.values, (int)got.n, NULL));
    br_compare(f, &want, &got, 2e-5, "rms_norm through tl_compile");
    pt_args_free(&want);
    pt_args_free(&got);
    tl_kernel_release(k);
  }
  tl_kernel_cache_clear_memory();
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
  assert_int_equal(system(cmd), 0);
  free(cache);
  tl_ir_module_free(m);
}

/* One kernel called from several threads at once, each with its own tensors. */
typedef struct thread_job {
  tl_kernel *k;
  const tl_ir_module *m;
  const tl_ir_func *f;
  int seed;
  int failures;
} thread_job;

static void *call_repeatedly(void *p) {
  thread_job *j = p;
  for (int r = 0; r < 8; r++) {
    pt_dim dims[1] = {{"N", 500 + 37 * j->seed + r}};
    pt_args want = pt_args_make(j->f, dims, 1, (uint64_t)(j->seed * 100 + r)), got = pt_args_copy(&want);
    if (tl_ir_interpret(j->m, j->f->name, want.values, (int)want.n) != TL_OK ||
        tl_kernel_call(j->k, got.values, (int)got.n, NULL) != TL_OK || pt_first_diff(&want, &got, 2) != -1)
      j->failures++;
    pt_args_free(&want);
    pt_args_free(&got);
  }
  return NULL;
}

static void test_concurrent_calls(void **state) {
  (void)state;
  if (!require_opencl()) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/vector_add.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  tl_backend_context *ctx = opencl_context("opencl");
  tl_kernel *k = NULL;
  TL_ASSERT_OK(br_compile(m, "vector_add", ctx, &k));
  thread_job jobs[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (thread_job){k, m, tl_ir_module_find_func(m, "vector_add"), i, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, call_repeatedly, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(jobs[i].failures, 0);
  }
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* Out of memory at every allocation of load and call: a clean TL_ENOMEM, nothing
 * leaked (the ASan build), and the state usable afterwards. */
typedef struct oom_load {
  const tl__exec_impl *impl;
  tl__build_request req;
  const char *dir;
  pt_args *args;
} oom_load;

static tl_status load_and_call(void *p) {
  oom_load *o = p;
  tl__loaded loaded = {0};
  tl_status s = o->impl->load(&o->req, o->dir, &loaded);
  if (s == TL_OK) {
    s = loaded.call(loaded.state, o->args->values, (int)o->args->n, NULL);
    loaded.destroy(loaded.state);
  }
  return s;
}

static void test_oom(void **state) {
  (void)state;
  if (!require_opencl()) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/row_sum.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &m));
  tl_backend_context *ctx = opencl_context("opencl");
  br_build b;
  TL_ASSERT_OK(br_codegen(m, ctx, &b));
  char *dir = br_mkdtemp();
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  oom_load o = {tl__find_exec_impl("opencl"),
                {f->name, tl_backend_context_target(ctx), b.device, NULL, tl_artifact_kernel_table(b.device), NULL},
                dir, NULL};
  TL_ASSERT_OK(o.impl->build(&o.req, dir));
  pt_dim none[1] = {{"N", 1}};
  pt_args a = pt_args_make(f, none, 0, 3);
  o.args = &a;
  assert_true(tl_oom_sweep(load_and_call, NULL, &o) >= 5);
  pt_args_free(&a);
  br_rmdir(dir);
  br_build_free(&b);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_manifest_and_lazy_load),
    cmocka_unit_test(test_source),
    cmocka_unit_test(test_examples),
    cmocka_unit_test(test_scalars_and_atomics),
    cmocka_unit_test(test_program_binary_cache),
    cmocka_unit_test(test_build_error),
    cmocka_unit_test(test_device_memory_and_checks),
    cmocka_unit_test(test_engine_and_cache),
    cmocka_unit_test(test_concurrent_calls),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

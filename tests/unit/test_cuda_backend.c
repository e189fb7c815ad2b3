/* The cuda backend without a GPU: its manifest and context resolution (nvrtc first
 * where NVRTC loads, the cutedsl key refused, an arch-less target refused at
 * compile time with how to pin it), the compile callbacks (validation messages,
 * the binary cache: miss, hit, corrupt entry, unsafe directory, bypass), device
 * codegen in both modes, the NVRTC table (unavailable and incomplete libraries),
 * and the nvrtc, nvcc and source execution backends built and loaded here, their
 * calls checking arguments and then saying there is no GPU. */
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/cuda/compile.h"
#include "base/files.h"
#include "cuda_test.h"
#include "runtime/cuda_arch.h"
#include "runtime/cuda_driver.h"
#include "runtime/exec_impls.h"
#include "runtime/kernel.h"
#include "runtime/nvcc_tool.h"
#include "runtime/spawn.h"
#include "tilelang/backend.h"
#include "tilelang/engine.h"

#define SM90A "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}"

/* A scratch directory under TMPDIR (tl__free the path). */
static char *scratch(void) {
  const char *tmp = getenv("TMPDIR");
  char *dir = tl__format("%s/tl-cuda-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(dir);
  assert_non_null(mkdtemp(dir));
  return dir;
}

/* Removes dir and what is in it (two levels: the binary cache's layout). */
static void remove_tree(const char *dir) {
  char *cmd[] = {"rm", "-rf", (char *)dir, NULL};
  char *out = NULL;
  int status = -1;
  TL_ASSERT_OK(tl__spawn_capture(cmd, &out, &status));
  tl__free(out);
  assert_int_equal(status, 0);
}

/* ---------------------------------------------------------------- manifest */

static void test_manifest(void **state) {
  (void)state;
  const tl_backend_module *m = NULL;
  TL_ASSERT_OK(tl_get_backend("cuda", &m));
  assert_string_equal(m->target_kinds[0], "cuda");
  assert_null(m->target_kinds[1]);
  assert_ptr_equal(m->pipelines[0].pipeline, &tl__cuda_pipeline);
  const tl_device_codegen *dc = m->device_codegens[0].codegen;
  assert_string_equal(dc->name, "cuda");
  assert_ptr_equal(dc->build.fn, tl_device_codegen_via_global_func);
  assert_string_equal(dc->build.user_data, "target.build.tilelang_cuda");
  assert_string_equal(dc->build_without_compile.user_data, "target.build.tilelang_cuda_without_compile");
  assert_ptr_equal(m->host_codegens[0].codegen, &tl__c_host_codegen_desc);
  assert_string_equal(m->callbacks[0].name, "tilelang_callback_cuda_compile");
  assert_string_equal(m->callbacks[1].name, "tilelang_callback_cuda_validate");
  tl_packed_fn fn;
  void *ud;
  TL_ASSERT_OK(tl_get_global_func("tilelang_callback_cuda_compile", &fn, &ud));
  TL_ASSERT_OK(tl_get_global_func("tilelang_callback_cuda_validate", &fn, &ud));
  TL_ASSERT_OK(tl_get_global_func("target.build.tilelang_cuda", &fn, &ud));
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse(SM90A, &t));
  const char *names[8];
  assert_int_equal(tl_backend_module_allowed_execution_backends(m, t, true, names, 8), 3);
  assert_string_equal(names[0], "nvrtc");
  assert_string_equal(names[1], "nvcc");
  assert_string_equal(names[2], "source");
  static const bool host[3] = {false, true, true}, device[3] = {false, true, false};
  for (size_t i = 0; m->execution_backends[i]; i++) {
    const tl_execution_backend_spec *s = m->execution_backends[i];
    assert_int_equal(s->enable_host_codegen, host[i]);
    assert_int_equal(s->enable_device_compile, device[i]);
    if (tl_execution_backend_spec_is_available(s)) assert_null(tl_execution_backend_spec_unavailable_reason(s));
    else assert_non_null(tl_execution_backend_spec_unavailable_reason(s));
  }
  assert_int_equal(tl_execution_backend_spec_is_available(m->execution_backends[0]), tl__nvrtc_available());
  tl_target_release(t);
}

static void test_context_resolution(void **state) {
  (void)state;
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context(SM90A, NULL, NULL, &ctx));
  assert_string_equal(tl_backend_context_name(ctx), "cuda");
  const char *first = tl__nvrtc_available() ? "nvrtc" : tl__nvcc_available() ? "nvcc" : "source";
  assert_string_equal(tl_backend_context_execution_backend(ctx)->name, first);
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(ctx)), "c");
  tl_backend_context_release(ctx);
  TL_ASSERT_OK(tl_create_backend_context(SM90A, NULL, "SOURCE", &ctx));
  assert_string_equal(tl_backend_context_execution_backend(ctx)->name, "source");
  tl_backend_context_release(ctx);
  TL_ASSERT_ERR(tl_create_backend_context(SM90A, NULL, "native", &ctx), TL_EINVAL,
                "Invalid execution backend 'native' for target 'cuda'. Allowed: nvrtc, nvcc, source. "
                "Tip: use execution_backend='auto'.");
  /* CuTeDSL targets are not the cuda backend's (as upstream) */
  TL_ASSERT_ERR(tl_create_backend_context("{\"kind\":\"cuda\",\"arch\":\"sm_90a\",\"keys\":[\"cuda\",\"gpu\",\"cutedsl\"]}",
                                          NULL, NULL, &ctx),
                TL_EINVAL, "No backend matches target {\"kind\":\"cuda\"");
  const tl_backend_module *m;
  TL_ASSERT_OK(tl_get_backend("cuda", &m));
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"cuda\",\"arch\":\"sm_90a\",\"keys\":[\"cuda\",\"gpu\",\"cutedsl\"]}", &t));
  assert_false(tl_backend_module_matches(m, t));
  tl_target_release(t);
}

/* A target without an arch, with no GPU here: refused when compiling, saying how
 * to pin it; never a guess. */
static void test_archless_target(void **state) {
  (void)state;
  const tl__cuda_driver *d;
  if (tl__cuda_driver_get(&d) == TL_OK) {
    print_message("a GPU is present: the arch-less refusal is not reachable here\n");
    skip();
  }
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"cuda\"}", &t));
  char arch[32];
  TL_ASSERT_ERR(tl__cuda_resolve_arch(t, arch, sizeof arch), TL_EINVAL, "has no arch");
  assert_non_null(strstr(tl_last_error(), "pin the arch in the target, e.g. {\"kind\":\"cuda\",\"arch\":\"sm_90a\"}"));
  tl__build_request req = {"f", t, NULL, NULL, NULL, NULL};
  assert_null(tl__exec_nvrtc.identity(&req));
  assert_non_null(strstr(tl_last_error(), "pin the arch"));
  tl_value args[2] = {tl_value_str("extern \"C\" __global__ void k() {}"), tl_value_target(t)}, ret = {0};
  if (tl__nvcc_available()) {
    assert_null(tl__exec_nvcc.identity(&req));
    TL_ASSERT_ERR(tl_call_global_func("tilelang_callback_cuda_compile", args, 2, &ret), TL_EINVAL, "pin the arch");
  }
  tl_target_release(t);
}

/* --------------------------------------------------------------- callbacks */

static void test_validate(void **state) {
  (void)state;
  static const struct {
    const char *target, *message; /* NULL: valid */
  } cases[] = {
    {SM90A, NULL},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_100f\"}", NULL},
    {"{\"kind\":\"cuda\"}", NULL},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_80\",\"code\":[\"sm_80\",\"sm_86\"]}", NULL},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_\"}", "CUDA target arch must be an exact SM token such as 'sm_90' or 'sm_100f'."},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_90ab\"}", "CUDA target arch must be an exact SM token such as 'sm_90' or 'sm_100f'."},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_9-0\"}", "CUDA target arch must be an exact SM token such as 'sm_90' or 'sm_100f'."},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"code\":[]}", "CUDA target code must be a non-empty list of SM code tokens"},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"code\":[\"sm_90\",\"compute_90\"]}",
     "CUDA target code entries must be exact SM code tokens such as 'sm_100a' or 'sm_103a'."},
    {"{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"code\":[\"sm_9.0\"]}",
     "CUDA target code entries must be exact SM code tokens such as 'sm_100a' or 'sm_103a'."},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_target *t;
    TL_ASSERT_OK(tl_target_parse(cases[i].target, &t));
    tl_value arg = tl_value_target(t), ret = {0};
    tl_status s = tl_call_global_func("tilelang_callback_cuda_validate", &arg, 1, &ret);
    if (cases[i].message) {
      if (s != TL_EINVAL || strcmp(tl_last_error(), cases[i].message) != 0)
        fail_msg("%s: %s '%s'", cases[i].target, tl_status_name(s), tl_last_error());
    } else if (s != TL_OK) {
      fail_msg("%s: %s", cases[i].target, tl_last_error());
    }
    tl_target_release(t);
  }
  tl_value ret = {0}, bad = tl_value_int(3);
  TL_ASSERT_ERR(tl_call_global_func("tilelang_callback_cuda_validate", &bad, 1, &ret), TL_EINVAL, "takes (target)");
  TL_ASSERT_ERR(tl_call_global_func("tilelang_callback_cuda_compile", &bad, 1, &ret), TL_EINVAL,
                "takes (source, target)");
  /* nvcc's options per TARGETS.md 8.4 */
  tl__nvcc_options o;
  char text[512];
  TL_ASSERT_OK(tl__nvcc_make_options("sm_90a", NULL, 0, &o));
  tl__nvcc_options_text(&o, text, sizeof text);
  assert_string_equal(text, "-O3 --fmad=false -std=c++17 -cubin -arch=sm_90a");
  const char *one[] = {"sm_100a"}, *two[] = {"sm_100a", "sm_103a"};
  TL_ASSERT_OK(tl__nvcc_make_options("sm_100a", one, 1, &o));
  tl__nvcc_options_text(&o, text, sizeof text);
  assert_string_equal(text, "-O3 --fmad=false -std=c++17 -cubin -gencode arch=compute_100a,code=sm_100a");
  TL_ASSERT_OK(tl__nvcc_make_options("sm_100a", two, 2, &o));
  tl__nvcc_options_text(&o, text, sizeof text);
  assert_string_equal(text, "-O3 --fmad=false -std=c++17 -fatbin -gencode arch=compute_100a,code=[sm_100a,sm_103a]");
  assert_string_equal(o.format, "fatbin");
  /* A line that does not fit is an error, never a truncated line. */
  char small[24];
  TL_ASSERT_ERR(tl__nvcc_options_text(&o, small, sizeof small), TL_EINVAL, "do not fit in 24 bytes");
}

static const char k_tiny[] = "extern \"C\" __global__ void tiny(float *x) { x[threadIdx.x] *= 2.0f; }\n";

/* The binary cache: a miss compiles and stores, a hit does not compile, a corrupt
 * entry is compiled again and replaced, another source or arch is another entry,
 * an unsafe directory is refused, TILELANG_DISABLE_CACHE bypasses it. */
static void test_binary_cache(void **state) {
  (void)state;
  if (!tl__nvcc_available()) {
    print_message("nvcc is not available, binary cache test skipped: %s\n", tl__nvcc_unavailable_reason());
    skip();
  }
  char *root = scratch();
  const char *old = getenv("TILELANG_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("TILELANG_CACHE_DIR", root, 1);
  unsetenv("TILELANG_DISABLE_CACHE");
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse(SM90A, &t));
  tl__cuda_cache_stats s0, s1;
  tl__cuda_binary_cache_stats(&s0);
  char *bin = NULL, *bin2 = NULL;
  size_t size = 0, size2 = 0;
  const char *format = NULL;
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin, &size, &format));
  assert_string_equal(format, "cubin");
  assert_true(size > 4 && memcmp(bin, "\x7f" "ELF", 4) == 0);
  tl__cuda_binary_cache_stats(&s1);
  assert_int_equal(s1.misses - s0.misses, 1);
  assert_int_equal(s1.compiles - s0.compiles, 1);
  /* the entry: private, under <root>/<version>/cuda-binaries */
  char *path = tl__cuda_binary_cache_path(k_tiny, t);
  assert_non_null(path);
  char *prefix = tl__format("%s/%s/cuda-binaries/", root, tl_version());
  assert_int_equal(strncmp(path, prefix, strlen(prefix)), 0);
  assert_true(tl__str_ends_with(path, ".cubin"));
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  *strrchr(prefix, '/') = '\0';
  assert_int_equal(stat(prefix, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  /* hit: the same bytes, no compile */
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format));
  tl__cuda_binary_cache_stats(&s0);
  assert_int_equal(s0.hits - s1.hits, 1);
  assert_int_equal(s0.compiles, s1.compiles);
  assert_int_equal(size2, size);
  assert_memory_equal(bin, bin2, size);
  tl__free(bin2);
  /* corrupt: one byte of the payload flipped; compiled again and replaced */
  char *data = NULL;
  size_t n = 0;
  TL_ASSERT_OK(tl__file_read(path, &data, &n));
  data[n - 7] ^= 0x5a;
  TL_ASSERT_OK(tl__file_write(path, data, n));
  chmod(path, 0600);
  tl__free(data);
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format));
  tl__cuda_binary_cache_stats(&s1);
  assert_int_equal(s1.corrupt - s0.corrupt, 1);
  assert_int_equal(s1.compiles - s0.compiles, 1);
  assert_memory_equal(bin, bin2, size);
  tl__free(bin2);
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format)); /* repaired: a hit */
  tl__cuda_binary_cache_stats(&s0);
  assert_int_equal(s0.hits - s1.hits, 1);
  tl__free(bin2);
  /* a truncated entry too */
  TL_ASSERT_OK(tl__file_read(path, &data, &n));
  TL_ASSERT_OK(tl__file_write(path, data, n / 2));
  tl__free(data);
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format));
  tl__cuda_binary_cache_stats(&s1);
  assert_int_equal(s1.corrupt - s0.corrupt, 1);
  tl__free(bin2);
  /* another source: another key */
  char *other = tl__cuda_binary_cache_path("extern \"C\" __global__ void tiny2() {}\n", t);
  assert_string_not_equal(other, path);
  tl__free(other);
  /* an entry others may write is not read */
  chmod(path, 0666);
  TL_ASSERT_ERR(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format), TL_EIO, "is not a private file");
  chmod(path, 0600);
  /* a directory others may write is refused, saying what to do */
  chmod(prefix, 0777);
  TL_ASSERT_ERR(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format), TL_EIO, "is not a private directory");
  assert_non_null(strstr(tl_last_error(), "TILELANG_DISABLE_CACHE=1"));
  /* ... unless the cache is disabled: then nvcc runs every time */
  setenv("TILELANG_DISABLE_CACHE", "1", 1);
  tl__cuda_binary_cache_stats(&s0);
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, t, &bin2, &size2, &format));
  tl__cuda_binary_cache_stats(&s1);
  assert_int_equal(s1.compiles - s0.compiles, 1);
  assert_int_equal(s1.hits, s0.hits);
  tl__free(bin2);
  unsetenv("TILELANG_DISABLE_CACHE");
  chmod(prefix, 0700);
  /* nvcc's own errors come back with its output */
  TL_ASSERT_ERR(tl__cuda_compile_cached("extern \"C\" __global__ void broken( {}\n", t, &bin2, &size2, &format),
                TL_ECOMPILE, "nvcc failed (exit status");
  /* through the global function: bytes */
  tl_value args[2] = {tl_value_str(k_tiny), tl_value_target(t)}, ret = {0};
  TL_ASSERT_OK(tl_call_global_func("tilelang_callback_cuda_compile", args, 2, &ret));
  assert_int_equal(ret.kind, TL_VALUE_BYTES);
  assert_int_equal(ret.size, size);
  tl_value_clear(&ret);
  /* two code entries: a fat binary */
  tl_target *fat;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"cuda\",\"arch\":\"sm_80\",\"code\":[\"sm_80\",\"sm_86\"]}", &fat));
  TL_ASSERT_OK(tl__cuda_compile_cached(k_tiny, fat, &bin2, &size2, &format));
  assert_string_equal(format, "fatbin");
  assert_true(size2 > 4 && (unsigned char)bin2[0] == 0x50 && (unsigned char)bin2[3] == 0xba);
  tl__free(bin2);
  tl_target_release(fat);
  tl__free(bin);
  tl__free(prefix);
  tl__free(path);
  tl_target_release(t);
  if (saved) setenv("TILELANG_CACHE_DIR", saved, 1);
  else unsetenv("TILELANG_CACHE_DIR");
  free(saved);
  remove_tree(root);
  tl__free(root);
}

/* ------------------------------------------------------------ the tables */

static void test_nvrtc_table(void **state) {
  (void)state;
  tl__nvrtc n;
  memset(&n, 0xab, sizeof n);
  TL_ASSERT_ERR(tl__nvrtc_open("/nonexistent/libnvrtc.so.13", &n), TL_EUNAVAILABLE,
                "NVRTC library /nonexistent/libnvrtc.so.13 could not be loaded");
  TL_ASSERT_ERR(tl__nvrtc_open("libm.so.6", &n), TL_EUNAVAILABLE,
                "NVRTC library libm.so.6 lacks the symbol nvrtcGetErrorString");
  static const tl__nvrtc zero;
  assert_memory_equal(&n, &zero, sizeof n);
  const tl__nvrtc *g = NULL;
  if (!tl__nvrtc_available()) {
    const char *why = tl__nvrtc_unavailable_reason();
    assert_non_null(strstr(why, "NVRTC not found"));
    assert_non_null(strstr(why, "set CUDA_HOME"));
    TL_ASSERT_ERR(tl__nvrtc_get(&g), TL_EUNAVAILABLE, "NVRTC not found");
    return;
  }
  TL_ASSERT_OK(tl__nvrtc_get(&g));
  assert_true(g->major >= 11);
  assert_null(tl__nvrtc_unavailable_reason());
  /* the include directory holds the 16-bit float headers NVRTC needs */
  if (g->include[0]) {
    char *h = tl__format("%s/cuda_bf16.h", g->include);
    assert_int_equal(access(h, R_OK), 0);
    tl__free(h);
  }
  /* a rejected program: TL_ECOMPILE with the log naming the file */
  const char *opts[] = {"--gpu-architecture=sm_90a"};
  tl__nvrtc_result r;
  TL_ASSERT_ERR(tl__nvrtc_compile(g, "extern \"C\" __global__ void k() { undeclared = 1; }", "bad.cu", opts, 1, &r),
                TL_ECOMPILE, "rejected bad.cu");
  assert_non_null(strstr(tl_last_error(), "undeclared"));
  assert_null(r.cubin);
  tl__nvrtc_result_free(&r);
  /* a virtual architecture gives no cubin */
  const char *virt[] = {"--gpu-architecture=compute_90"};
  TL_ASSERT_ERR(tl__nvrtc_compile(g, k_tiny, "tiny.cu", virt, 1, &r), TL_ERUNTIME, "produced no cubin");
  tl__nvrtc_result_free(&r);
}

static void test_driver_without_device(void **state) {
  (void)state;
  const tl__cuda_driver *d;
  if (tl__cuda_driver_get(&d) == TL_OK) {
    print_message("a CUDA device is present: nothing to check here\n");
    skip();
  }
  const char *msg = tl_last_error();
  assert_non_null(strstr(msg, "libcuda.so.1"));
}

/* ------------------------------------------------------ codegen, backends */

/* What tl_compile does for one context (build and load in a scratch directory). */
static tl_status compile(const tl_ir_module *m, const char *func, tl_backend_context *ctx, tl_kernel **out,
                         tl_artifact **device_out) {
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
  char *dir = s == TL_OK ? scratch() : NULL;
  const tl_kernel_table *table = device ? tl_artifact_kernel_table(device) : NULL;
  tl__build_request req = {func, target, device, host, table, NULL};
  tl__loaded loaded = {0};
  if (s == TL_OK && !impl->identity(&req)) s = TL_EINVAL;
  if (s == TL_OK) s = impl->build(&req, dir);
  if (s == TL_OK) s = impl->load(&req, dir, &loaded);
  if (s == TL_OK) {
    tl__kernel_desc d = {func, target, spec->name, table, tl_artifact_source(device), tl_artifact_source(host), false,
                         impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  if (dir) {
    remove_tree(dir);
    tl__free(dir);
  }
  if (device_out && s == TL_OK) *device_out = tl_artifact_retain(device);
  tl_artifact_release(device);
  tl_artifact_release(host);
  tl_ir_module_free(work);
  return s;
}

static void test_device_codegen_modes(void **state) {
  (void)state;
  tl_ir_module *m = cuda_parse_example(&k_cuda_examples[1]); /* elementwise_add */
  tl_ir_module *low = cuda_lowered(m, NULL);
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context(SM90A, NULL, "source", &ctx));
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_backend_context_codegen_device(ctx, low, 0, &a));
  assert_string_equal(tl_artifact_format(a), "cuda");
  assert_non_null(strstr(tl_artifact_source(a), "extern \"C\" __global__ __launch_bounds__(128) void elementwise_add_kernel("));
  const tl_kernel_table *t = tl_artifact_kernel_table(a);
  assert_non_null(t);
  assert_string_equal(t->entry, "elementwise_add");
  for (uint32_t i = 0; i < 3; i++) assert_int_equal(t->params[i].data_alignment, 16);
  size_t size;
  assert_null(tl_artifact_binary(a, &size));
  tl_artifact_release(a);
  if (tl__nvcc_available()) {
    char *root = scratch();
    setenv("TILELANG_CACHE_DIR", root, 1);
    TL_ASSERT_OK(tl_backend_context_codegen_device(ctx, low, 1, &a));
    assert_string_equal(tl_artifact_format(a), "cubin");
    const unsigned char *b = tl_artifact_binary(a, &size);
    assert_true(b && size > 4 && b[0] == 0x7f && b[1] == 'E');
    assert_non_null(strstr(tl_artifact_source(a), "elementwise_add_kernel"));
    assert_non_null(tl_artifact_kernel_table(a));
    tl_artifact_release(a);
    unsetenv("TILELANG_CACHE_DIR");
    remove_tree(root);
    tl__free(root);
  }
  tl_backend_context_release(ctx);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

/* A call with host tensors is refused by the argument checks; with CUDA tensors it
 * needs a device, which this machine lacks. */
static void check_calls(tl_kernel *k, const tl_ir_func *f, const char *what) {
  pt_dim dims[] = {{"N", 1000}};
  pt_args a = pt_args_make(f, dims, 1, 5);
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EINVAL,
                "argument 'A': expected a CUDA tensor (kDLCUDA) but got device type 1");
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, 2, NULL), TL_EINVAL, "function 'vector_add' takes 3 arguments but got 2");
  for (uint32_t i = 0; i < a.n; i++) a.tensors[i].device.device_type = kDLCUDA;
  a.tensors[2].device.device_id = 1;
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EINVAL,
                "argument 'C': the tensor is on CUDA device 1 but argument 'A' is on device 0; the tensors of one "
                "call must be on one device");
  a.tensors[2].device.device_id = 0;
  a.shapes[8] = 999;
  TL_ASSERT_ERR(tl_kernel_call(k, a.values, (int)a.n, NULL), TL_EINVAL,
                "argument 'B': dimension 0 must equal N (=1000 from argument 'A') but is 999");
  a.shapes[8] = 1000;
  const tl__cuda_driver *d;
  if (tl__cuda_driver_get(&d) != TL_OK) {
    tl_status s = tl_kernel_call(k, a.values, (int)a.n, NULL);
    if (s != TL_EUNAVAILABLE || !strstr(tl_last_error(), "libcuda.so.1"))
      fail_msg("%s: %s: %s", what, tl_status_name(s), tl_last_error());
  }
  pt_args_free(&a);
}

static void test_execution_backends(void **state) {
  (void)state;
  tl_ir_module *m = cuda_parse_example(&k_cuda_examples[0]); /* vector_add */
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  char *root = scratch();
  setenv("TILELANG_CACHE_DIR", root, 1);
  static const char *const names[] = {"nvrtc", "nvcc", "source"};
  for (size_t i = 0; i < 3; i++) {
    if (!strcmp(names[i], "nvrtc") && !tl__nvrtc_available()) continue;
    if (!strcmp(names[i], "nvcc") && !(tl__nvcc_available() && tl__native_available())) continue;
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context(SM90A, NULL, names[i], &ctx));
    tl_kernel *k = NULL;
    tl_artifact *device = NULL;
    tl_status s = compile(m, "vector_add", ctx, &k, &device);
    if (s != TL_OK) fail_msg("%s: %s", names[i], tl_last_error());
    assert_string_equal(tl_kernel_execution_backend(k), names[i]);
    assert_non_null(strstr(tl_kernel_device_source(k), "vector_add_kernel"));
    if (!strcmp(names[i], "source")) {
      TL_ASSERT_ERR(tl_kernel_call(k, NULL, 0, NULL), TL_EUNSUPPORTED,
                    "Kernel 'vector_add' was built with execution backend 'source', which only writes code");
      assert_non_null(strstr(tl_kernel_host_source(k), "cuLaunchKernel"));
    } else {
      check_calls(k, f, names[i]);
    }
    if (!strcmp(names[i], "nvrtc")) assert_string_equal(tl_kernel_host_source(k), "");
    tl_kernel_release(k);
    tl_artifact_release(device);
    tl_backend_context_release(ctx);
  }
  /* identities: the toolchain, the arch and the options */
  tl_target *t;
  TL_ASSERT_OK(tl_target_parse(SM90A, &t));
  tl__build_request req = {"f", t, NULL, NULL, NULL, NULL};
  if (tl__nvrtc_available()) {
    const char *id = tl__exec_nvrtc.identity(&req);
    assert_non_null(id);
    assert_non_null(strstr(id, "|sm_90a|--gpu-architecture=sm_90a"));
    assert_non_null(strstr(id, "--fmad=false -default-device -std=c++17"));
    assert_ptr_equal(id, tl__exec_nvrtc.identity(&req)); /* cached */
  }
  if (tl__nvcc_available()) {
    const char *id = tl__exec_nvcc.identity(&req);
    assert_non_null(id);
    assert_non_null(strstr(id, "|sm_90a|-O3 --fmad=false -std=c++17 -cubin -arch=sm_90a|cc "));
  }
  /* nvrtc needs the source and the table; nvcc the binary */
  char *dir = scratch();
  tl_artifact *cu = NULL;
  TL_ASSERT_OK(tl_artifact_create("cuda", k_tiny, &cu));
  tl__build_request bad = {"f", t, cu, NULL, NULL, NULL};
  if (tl__nvrtc_available())
    TL_ASSERT_ERR(tl__exec_nvrtc.build(&bad, dir), TL_EUNSUPPORTED, "launches from the kernel table, and 'f' has none");
  TL_ASSERT_ERR(tl__exec_nvcc.build(&bad, dir), TL_EINVAL, "needs host code");
  tl_artifact *host = NULL;
  TL_ASSERT_OK(tl_artifact_create("c", "int x;", &host));
  bad.host = host;
  TL_ASSERT_ERR(tl__exec_nvcc.build(&bad, dir), TL_EINVAL, "needs the compiled device code (a cubin");
  tl_artifact_release(host);
  tl_artifact_release(cu);
  remove_tree(dir);
  tl__free(dir);
  tl_target_release(t);
  unsetenv("TILELANG_CACHE_DIR");
  remove_tree(root);
  tl__free(root);
  tl_ir_module_free(m);
}

/* Every example and focused kernel through tl_compile with the nvrtc execution
 * backend (NVRTC builds a cubin, the kernel loads; nothing is called). */
static void test_nvrtc_every_example(void **state) {
  (void)state;
  if (!tl__nvrtc_available()) {
    print_message("NVRTC is not available: %s\n", tl__nvrtc_unavailable_reason());
    skip();
  }
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = SM90A;
  o.execution_backend = "nvrtc";
  o.disable_cache = true;
  for (size_t i = 0; i < CUDA_NEXAMPLES + CUDA_NCASES; i++) {
    tl_ir_module *m = i < CUDA_NEXAMPLES ? cuda_parse_example(&k_cuda_examples[i])
                                         : cuda_parse_case(&k_cuda_cases[i - CUDA_NEXAMPLES]);
    /* an example file with several kernels (flash_decoding.py): each one */
    size_t nfuncs = i < CUDA_NEXAMPLES ? tl_ir_module_num_funcs(m) : 1;
    for (size_t fi = 0; fi < nfuncs; fi++) {
      const char *func = i < CUDA_NEXAMPLES ? tl_ir_module_func(m, fi)->name : k_cuda_cases[i - CUDA_NEXAMPLES].func;
      tl_kernel *k = NULL;
      if (tl_compile(m, func, &o, &k) != TL_OK)
        fail_msg("%s: %s", i < CUDA_NEXAMPLES ? k_cuda_examples[i].file : k_cuda_cases[i - CUDA_NEXAMPLES].name,
                 tl_last_error());
      assert_string_equal(tl_kernel_execution_backend(k), "nvrtc");
      assert_non_null(strstr(tl_kernel_device_source(k), "extern \"C\" __global__"));
      assert_non_null(tl_kernel_get_table(k));
      tl_kernel_release(k);
    }
    tl_ir_module_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_manifest),           cmocka_unit_test(test_context_resolution),
    cmocka_unit_test(test_archless_target),    cmocka_unit_test(test_validate),
    cmocka_unit_test(test_binary_cache),       cmocka_unit_test(test_nvrtc_table),
    cmocka_unit_test(test_driver_without_device), cmocka_unit_test(test_device_codegen_modes),
    cmocka_unit_test(test_execution_backends), cmocka_unit_test(test_nvrtc_every_example),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
